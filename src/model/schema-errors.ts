/**
 * From zod issues to one IrisError, the same way for every file and body iris validates
 * (docs/configuration.md, "Validation"). Guarantees: the message starts with the source (when
 * given) and the key path (`/proj/.irisrc.yaml: workers[1].memory: ...`); an unknown key names
 * the closest allowed key when one is likely a typo and the hint lists the allowed keys; a
 * value is shown as `"text"`, a number, `null`, `a list` or `an object`. Parsers of the model
 * plug in through `parseWith`: their IrisError's message and hint become the issue's own.
 * Request bodies of the socket API use the `body` style: `command[1] must be a string, got 3`,
 * `unknown field "maxRetry": did you mean "maxRetries"?` (hint: the known fields), arrays shown
 * as `an array`. Pure: imports only zod and the error type.
 */
import { z } from 'zod';
import { IrisError, describeValue, invalid } from './errors.js';
import { formatKeyPath, type KeyPath } from './key-path.js';
import { suggestKey } from './suggest.js';

export { suggestKey };

export { formatKeyPath, type KeyPath } from './key-path.js';

/** Allowed keys of the object at a key path (for the "allowed keys here" hint). */
export type KnownKeys = readonly string[] | ((path: KeyPath) => readonly string[] | undefined);

/** How messages read: a file's keys (`workers[1].cpu: ...`) or a request body's fields (`cpu must ...`). */
export type MessageStyle = Parameters<typeof describeValue>[1] & string;

export interface IssuesToErrorOptions {
  /** Shown first: `file: key.path: message`. */
  file?: string;
  /** Default `file`. */
  style?: MessageStyle;
  /** The allowed keys of each object, for unknown-key hints; `knownKeysOf(schema)` derives them. */
  knownKeys?: KnownKeys;
}

/** ` (did you mean "cpu"?)` or nothing. */
export function didYouMean(key: string, allowed: readonly string[]): string {
  const suggestion = suggestKey(key, allowed);
  return suggestion ? ` (did you mean "${suggestion}"?)` : '';
}

export { describeValue } from './errors.js';

/** The issue an IrisError raised while parsing `input` becomes: its message, its hint as `params.hint`. */
export function irisIssue(error: IrisError, input: unknown) {
  const params = error.hint ? { hint: error.hint } : undefined;
  return { code: 'custom' as const, message: error.message, input, params };
}

/**
 * A schema whose value goes through `parse` (a model parser, or a check that throws
 * IrisError): the error's message and hint become the issue. `I` is the input type the
 * schema advertises (for inferred file types); any value reaches `parse`.
 */
export function parseWith<O, I = unknown>(parse: (value: unknown) => O): z.ZodType<O, I> {
  return z.unknown().transform((value, ctx) => {
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof IrisError)) throw error;
      ctx.issues.push(irisIssue(error, value));
      return z.NEVER;
    }
  }) as unknown as z.ZodType<O, I>;
}

type Issue = z.core.$ZodIssue;

/** A union branch that failed only because the value has another type (at its root). */
function failedOnType(issues: readonly Issue[]): boolean {
  return issues.every(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' || (issue.code === 'invalid_union' && issue.errors.every(failedOnType))),
  );
}

/**
 * The issue to report: a union's matching branch is opened; an unknown key goes before the other problems of its
 * object.
 */
function pick(issues: readonly Issue[]): Issue | undefined {
  let first = issues[0];
  while (first?.code === 'invalid_union' && first.errors.length > 0) {
    const branch = first.errors.find((errors) => !failedOnType(errors));
    if (branch === undefined || branch.length === 0) break;
    const chosen = pick(branch)!;
    first = { ...chosen, path: [...first.path, ...chosen.path] } as Issue;
  }
  if (first === undefined) return undefined;
  const within = (outer: KeyPath, inner: KeyPath) =>
    outer.length <= inner.length && outer.every((key, i) => key === inner[i]);
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys' && within(issue.path, first!.path));
  return unknown ?? first;
}

function allowedAt(known: KnownKeys | undefined, path: KeyPath): readonly string[] | undefined {
  if (known === undefined) return undefined;
  return typeof known === 'function' ? known(path) : known;
}

/** One IrisError('invalid_argument') for a failed parse: the first problem, with its file and key path. */
export function issuesToError(issues: readonly Issue[], options: IssuesToErrorOptions = {}): IrisError {
  const issue = pick(issues);
  const body = options.style === 'body';
  const prefix = options.file ? `${options.file}: ` : '';
  const where = (path: KeyPath) => `${prefix}${path.length > 0 ? `${formatKeyPath(path)}${body ? ' ' : ': '}` : ''}`;
  if (issue === undefined) return invalid(`${prefix}invalid value`);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const allowed = allowedAt(options.knownKeys, issue.path);
    if (body) {
      const suggestion = allowed ? suggestKey(key, allowed) : null;
      const at = issue.path.length > 0 ? `${formatKeyPath(issue.path)}: ` : '';
      return invalid(
        `${prefix}${at}unknown field "${key}"${suggestion ? `: did you mean "${suggestion}"?` : ''}`,
        allowed ? `known fields: ${allowed.join(', ')}` : undefined,
      );
    }
    return invalid(
      `${where([...issue.path, key])}unknown key${allowed ? didYouMean(key, allowed) : ''}`,
      allowed ? `allowed keys here: ${allowed.join(', ')}` : undefined,
    );
  }
  let hint: string | undefined;
  if (issue.code === 'custom' && typeof issue.params?.hint === 'string') hint = issue.params.hint;
  if (issue.code === 'invalid_value') hint = `use one of: ${issue.values.map(String).join(', ')}`;
  let message = issue.message;
  if (issue.code === 'invalid_type' && message.startsWith('Invalid input'))
    message = `expected ${issue.expected}, got ${describeValue(issue.input, options.style)}`;
  // A refused key of a record (`env`, `stages`): what its own schema said about it.
  if (issue.code === 'invalid_key' && issue.issues[0] !== undefined) message = issue.issues[0].message;
  // A body's error names its field as data too (`field`), so a client can name it its own way.
  const field = body && issue.path.length > 0 ? formatKeyPath(issue.path) : undefined;
  return new IrisError('invalid_argument', `${where(issue.path)}${message}`, hint, field);
}

/** Unwrap optional, default, pipe and lazy wrappers down to the schema that parses. */
function inner(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let current = schema;
  for (let i = 0; current !== undefined && i < 32; i++) {
    const def = current._zod.def as unknown as Record<string, unknown> & { type: string };
    if ('innerType' in def) current = def.innerType as z.core.$ZodType;
    else if (def.type === 'pipe') current = def.in as z.core.$ZodType;
    else if (def.type === 'lazy') current = (def.getter as () => z.core.$ZodType)();
    else return current;
  }
  return current;
}

function objectsAt(schema: z.core.$ZodType | undefined, path: KeyPath): z.core.$ZodType[] {
  const at = inner(schema);
  if (at === undefined) return [];
  const def = at._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === 'union') return (def.options as z.core.$ZodType[]).flatMap((option) => objectsAt(option, path));
  if (path.length === 0) return def.type === 'object' ? [at] : [];
  const [key, ...rest] = path;
  if (def.type === 'object') return objectsAt((def.shape as Record<string, z.core.$ZodType>)[String(key)], rest);
  if (def.type === 'array') return objectsAt(def.element as z.core.$ZodType, rest);
  if (def.type === 'record') return objectsAt(def.valueType as z.core.$ZodType, rest);
  return [];
}

/** The `knownKeys` of a schema: the keys of the object schema found at each key path. */
export function knownKeysOf(schema: z.core.$ZodType): (path: KeyPath) => readonly string[] | undefined {
  return (path) => {
    const [object] = objectsAt(schema, path);
    return object ? Object.keys((object._zod.def as unknown as { shape: Record<string, unknown> }).shape) : undefined;
  };
}

/**
 * How iris parses a file or a request body with a schema: the parsed value, or the IrisError of
 * its first problem (unknown keys named against the schema's own keys, `knownKeysOf`). Query
 * parameters go through api/queries.ts parseQuery instead (its messages name the parameter).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  options: Omit<IssuesToErrorOptions, 'knownKeys'> = {},
): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw issuesToError(result.error.issues, { ...options, knownKeys: knownKeysOf(schema) });
}
