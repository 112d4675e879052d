/**
 * The field schemas of iris's files (the config file and `iris simulate` workload files): each
 * leaf calls the one model parser (cpu, memory, durations, gpu, TPU variants), so its message is
 * the parser's own; the structural ones (objects, lists, maps) say what was expected and what
 * was found. `null` (YAML `key:` with nothing after it) means absent for every optional key.
 */
import { z } from 'zod';
import { parseDuration } from '../../model/duration.js';
import { IrisError, invalid } from '../../model/errors.js';
import { parseCpu, parseMemory } from '../../model/resources.js';
import { describeValue, didYouMean, irisIssue, parseWith } from '../../model/schema-errors.js';
import { ATTRIBUTE_KEY, ATTRIBUTE_KEY_RULE, NAME_COMPONENT, NAME_COMPONENT_RULE } from '../../model/names.js';
import { isHost, notAHost } from '../../model/net-address.js';

/** True when the key is present with a value (YAML `key:` with nothing after it is null). */
export const given = (value: unknown): boolean => value !== undefined && value !== null;

/** A strict object (unknown keys are errors); a value of another type: `expected WHAT, got X`. */
export function object<S extends z.core.$ZodLooseShape>(shape: S, what: string) {
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'invalid_type' ? `expected ${what}, got ${describeValue(iss.input)}` : undefined),
  });
}

/** A list: `expected a list of WHAT, got X`. */
export function list<T extends z.core.SomeType>(item: T, what: string) {
  return z.array(item, {
    error: (iss) =>
      iss.code === 'invalid_type' ? `expected a list of ${what}, got ${describeValue(iss.input)}` : undefined,
  });
}

/** A map of free-form keys: `expected WHAT, got X`. */
export function map<T extends z.core.SomeType>(value: T, what: string) {
  return z.record(z.string(), value, {
    error: (iss) => (iss.code === 'invalid_type' ? `expected ${what}, got ${describeValue(iss.input)}` : undefined),
  });
}

export const cpu = parseWith<number, number | string>((value) => {
  if (typeof value !== 'number' && typeof value !== 'string')
    throw invalid(`invalid cpu ${describeValue(value)}: expected a number of cores such as 0.5 or 8`);
  return parseCpu(value);
});

export const memory = parseWith<number, number | string>((value) => {
  if (typeof value !== 'number' && typeof value !== 'string')
    throw invalid(`invalid memory ${describeValue(value)}: expected a size such as 512M, 4GiB or 2G`);
  return parseMemory(value);
});

/** A byte size by the model's parser (`512M`, `1GiB`); `what` names it in messages. */
export function byteSize(what: string) {
  return parseWith<number, number | string>((value) => {
    if (typeof value !== 'number' && typeof value !== 'string')
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a size such as 512M or 1GiB`);
    return parseMemory(value, what);
  });
}

/** A duration in milliseconds by the model's parser; `what` names it in messages (`invalid time "soon"`). */
export function durationMs(value: unknown, what = 'duration'): number {
  if (typeof value !== 'number' && typeof value !== 'string')
    throw invalid(`invalid ${what} ${describeValue(value)}: expected a string such as 10s`);
  return parseDuration(value, { what });
}

export function duration(what = 'duration') {
  return parseWith<number, number | string>((value) => durationMs(value, what));
}

/** A whole number ≥ 1 (digits in a string are accepted). */
export function positiveInteger(what: string) {
  return parseWith<number, number>((value) => {
    const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a whole number of at least 1`);
    }
    return number;
  });
}

export function nonNegativeInteger(what: string) {
  return parseWith<number, number>((value) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a whole number of 0 or more`);
    }
    return value;
  });
}

/** A finite number of 0 or more (digits in a string are accepted), e.g. a cost per hour. */
export function nonNegativeNumber(what: string, example: string) {
  return finiteNumber(what, example, false);
}

/** A finite number above 0 (digits in a string are accepted), e.g. a quota's weight. */
export function positiveNumber(what: string, example: string) {
  return finiteNumber(what, example, true);
}

function finiteNumber(what: string, example: string, aboveZero: boolean) {
  return parseWith<number, number | string>((value) => {
    const number = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || (aboveZero && number === 0)) {
      const floor = aboveZero ? 'above 0' : 'of 0 or more';
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a number ${floor} such as ${example}`);
    }
    return number;
  });
}

/** A trimmed, non-empty string. */
export function text(what: string) {
  return parseWith<string, string>((value) => {
    if (typeof value !== 'string' || value.trim() === '')
      throw invalid(`invalid ${what} ${describeValue(value)}: expected a non-empty string`);
    return value.trim();
  });
}

export function boolean(what: string) {
  return parseWith<boolean, boolean>((value) => {
    if (typeof value !== 'boolean') throw invalid(`invalid ${what} ${describeValue(value)}: expected true or false`);
    return value;
  });
}

/** One of a few words; a near miss gets a suggestion, and the hint lists them all. */
export function oneOf<const T extends string>(allowed: readonly T[], what: string) {
  return parseWith<T, T>((value) => {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value.trim())) return value.trim() as T;
    throw invalid(
      `invalid ${what} ${describeValue(value)}${typeof value === 'string' ? didYouMean(value, allowed) : ''}`,
      `use one of: ${allowed.join(', ')}`,
    );
  });
}

export const variantName = parseWith<string, string>((value) => {
  if (typeof value !== 'string' || !NAME_COMPONENT.test(value.trim())) {
    const message = `invalid variant ${describeValue(value)}: a variant ${NAME_COMPONENT_RULE}`;
    throw invalid(message, 'for example H100 or v5litepod-16');
  }
  return value.trim();
});

export const hostname = parseWith<string, string>((value) => {
  if (typeof value !== 'string' || !isHost(value.trim())) {
    const host = typeof value === 'string' ? value.trim() : value;
    const message = `invalid hostname ${describeValue(value)}: ${notAHost(host)}`;
    throw invalid(message, 'for example localhost, tpu-host-1 or 10.0.0.2');
  }
  return value.trim();
});

/** Absolute paths of device files (TPU chips or stand-ins such as /dev/zero). */
export const devicePaths = list(
  parseWith<string, string>((item) => {
    if (typeof item !== 'string' || !item.trim().startsWith('/') || /[\s:,]/.test(item.trim())) {
      throw invalid(`invalid device path ${describeValue(item)}: expected an absolute path such as /dev/accel0`);
    }
    return item.trim();
  }),
  'device paths',
);

const attributeValue = parseWith<string, string | number | boolean>((raw) => {
  if (typeof raw === 'string') return raw;
  if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') return String(raw);
  throw invalid(`invalid attribute value ${describeValue(raw)}: expected a string, number or boolean`);
});

/** Worker attributes: name -> text (numbers and booleans become text); absent is `{}`. */
export const attributes = map(attributeValue, 'an object of name: value pairs')
  .nullish()
  .transform((value, ctx): Record<string, string> => {
    for (const key of Object.keys(value ?? {})) {
      if (!ATTRIBUTE_KEY.test(key)) {
        const message = `invalid attribute name ${describeValue(key)}: it ${ATTRIBUTE_KEY_RULE}`;
        ctx.issues.push({ code: 'custom', path: [key], input: key, message });
        return z.NEVER;
      }
    }
    return { ...value };
  });

/** Raise an issue at a key path from inside an object's transform. */
export function fail(
  ctx: z.core.$RefinementCtx,
  path: ReadonlyArray<string | number>,
  message: string,
  hint?: string,
): never {
  ctx.issues.push({ code: 'custom', path: [...path], message, input: undefined, params: hint ? { hint } : undefined });
  throw FAILED;
}

const FAILED = Symbol('failed');

/** An object's transform that may `fail(ctx, path, ...)`: the first failure ends it. */
export function resolving<I, O>(run: (value: I, ctx: z.core.$RefinementCtx) => O) {
  return (value: I, ctx: z.core.$RefinementCtx): O => {
    try {
      return run(value, ctx);
    } catch (error) {
      if (error === FAILED) return z.NEVER;
      if (error instanceof IrisError) {
        ctx.issues.push(irisIssue(error, value));
        return z.NEVER;
      }
      throw error;
    }
  };
}
