/**
 * The building blocks of config validation: key paths, typo suggestions, durations and the
 * Validator whose every error is an IrisError ('invalid_argument') starting with the file path
 * and the offending key path: `/proj/.irisrc.yaml: workers[1].memory: invalid memory "lots": ...`.
 */
import { IrisError, invalid } from '../../model/errors.js';
import { parseCpu, parseMemory } from '../../model/resources.js';

export type KeyPath = ReadonlyArray<string | number>;
export type Obj = Record<string, unknown>;


export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const ATTRIBUTE_KEY = /^[A-Za-z0-9][A-Za-z0-9_./-]*$/;
const HOSTNAME = /^[A-Za-z0-9_]([A-Za-z0-9_.:-]*[A-Za-z0-9_.])?$/;
export const MAX_NAME_LENGTH = 63;

/** `workers[1].gpu.count`, `quotas.alice.cpu`, `quotas["a b"]`. */
export function formatKeyPath(keys: KeyPath): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The allowed key closest to `key`, if any is close enough to be a likely typo. */
export function suggestKey(key: string, allowed: readonly string[]): string | null {
  const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    if (squash(candidate) === squash(key)) return candidate;
    const distance = editDistance(key.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === null) return null;
  return bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `"${value}"`;
  return String(value);
}

/** Durations in the config: `10s`, `500ms`, `2m`, `1h`, `1.5s`, or a bare number of seconds. */
export function parseConfigDuration(input: unknown): number {
  const hint = 'use units such as 500ms, 10s or 2m (a bare number means seconds)';
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw invalid(`invalid duration ${input}: must not be negative`, hint);
    return Math.round(input * 1000);
  }
  if (typeof input !== 'string') throw invalid(`invalid duration ${describe(input)}: expected a string such as 10s`, hint);
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(input);
  if (!match) throw invalid(`invalid duration "${input}": expected a duration such as 10s, 500ms or 2m`, hint);
  const unit = (match[2] ?? 's').toLowerCase();
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(Number(match[1]) * factor);
}

export class Validator {
  constructor(readonly source: string) {}

  fail(keys: KeyPath, message: string, hint?: string): IrisError {
    const where = keys.length > 0 ? `${formatKeyPath(keys)}: ` : '';
    return invalid(`${this.source}: ${where}${message}`, hint);
  }

  /** Run a parser from the model and re-label its IrisError with file and key path. */
  at<T>(keys: KeyPath, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof IrisError) throw this.fail(keys, error.message, error.hint);
      throw error;
    }
  }

  object(value: unknown, keys: KeyPath, what: string): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw this.fail(keys, `expected ${what}, got ${describe(value)}`);
    }
    return value as Obj;
  }

  knownKeys(obj: Obj, allowed: readonly string[], keys: KeyPath): void {
    for (const key of Object.keys(obj)) {
      if (allowed.includes(key)) continue;
      const suggestion = suggestKey(key, allowed);
      throw this.fail(
        [...keys, key],
        `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        `allowed keys here: ${allowed.join(', ')}`,
      );
    }
  }

  positiveInteger(value: unknown, keys: KeyPath, what: string): number {
    const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
      throw this.fail(keys, `invalid ${what} ${describe(value)}: expected a whole number of at least 1`);
    }
    return number;
  }

  nonNegativeInteger(value: unknown, keys: KeyPath, what: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw this.fail(keys, `invalid ${what} ${describe(value)}: expected a whole number of 0 or more`);
    }
    return value;
  }

  cpu(value: unknown, keys: KeyPath): number {
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw this.fail(keys, `invalid cpu ${describe(value)}: expected a number of cores such as 0.5 or 8`);
    }
    return this.at(keys, () => parseCpu(value));
  }

  memory(value: unknown, keys: KeyPath): number {
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw this.fail(keys, `invalid memory ${describe(value)}: expected a size such as 512M, 4GiB or 2G`);
    }
    return this.at(keys, () => parseMemory(value));
  }

  variantName(value: unknown, keys: KeyPath): string {
    if (typeof value !== 'string' || !SAFE_NAME.test(value.trim())) {
      throw this.fail(keys, `invalid variant ${describe(value)}: expected a name such as H100 or v5litepod-16`);
    }
    return value.trim();
  }

  /** True when the key is present with a value (YAML `key:` with nothing after it is null). */
  static given(value: unknown): boolean {
    return value !== undefined && value !== null;
  }

  string(value: unknown, keys: KeyPath, what: string): string {
    if (typeof value !== 'string' || value.trim() === '') throw this.fail(keys, `invalid ${what} ${describe(value)}: expected a non-empty string`);
    return value.trim();
  }

  boolean(value: unknown, keys: KeyPath, what: string): boolean {
    if (typeof value !== 'boolean') throw this.fail(keys, `invalid ${what} ${describe(value)}: expected true or false`);
    return value;
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[], keys: KeyPath, what: string): T {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value.trim())) return value.trim() as T;
    const suggestion = typeof value === 'string' ? suggestKey(value, allowed) : null;
    throw this.fail(
      keys,
      `invalid ${what} ${describe(value)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
      `use one of: ${allowed.join(', ')}`,
    );
  }

  list(value: unknown, keys: KeyPath, what: string): unknown[] {
    if (!Array.isArray(value)) throw this.fail(keys, `expected a list of ${what}, got ${describe(value)}`);
    return value;
  }

  hostname(value: unknown, keys: KeyPath): string {
    if (typeof value !== 'string' || !HOSTNAME.test(value.trim())) {
      throw this.fail(keys, `invalid hostname ${describe(value)}: expected a host name or address such as localhost, tpu-host-1 or 10.0.0.2`);
    }
    return value.trim();
  }

  /** Absolute paths of device files (TPU chips or stand-ins such as /dev/zero). */
  devicePaths(value: unknown, keys: KeyPath): string[] {
    return this.list(value, keys, 'device paths').map((item, i) => {
      if (typeof item !== 'string' || !item.trim().startsWith('/') || /[\s:,]/.test(item.trim())) {
        throw this.fail([...keys, i], `invalid device path ${describe(item)}: expected an absolute path such as /dev/accel0`);
      }
      return item.trim();
    });
  }

  attributes(value: unknown, keys: KeyPath): Record<string, string> {
    if (value === undefined || value === null) return {};
    const obj = this.object(value, keys, 'an object of name: value pairs');
    const out: Record<string, string> = {};
    for (const [key, raw] of Object.entries(obj)) {
      if (!ATTRIBUTE_KEY.test(key)) {
        throw this.fail([...keys, key], 'invalid attribute name: use letters, digits, "-", "_", "." and "/", starting with a letter or digit');
      }
      if (typeof raw === 'string') out[key] = raw;
      else if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') out[key] = String(raw);
      else throw this.fail([...keys, key], `invalid attribute value ${describe(raw)}: expected a string, number or boolean`);
    }
    return out;
  }
}
