/**
 * A small checker of JSON shapes for the answers the CLI gets from a cluster (responses.ts). Not
 * zod: importing zod costs ~100 ms, and the CLI's start is a tracked benchmark (`iris jobs` <=
 * 120 ms, docs/benchmarks.md); these checks are plain functions, each built once on its first
 * use (`lazy`), that allocate nothing on an answer that fits.
 *
 * A Shape returns null when the value fits, else the first Mismatch: where (a path of keys and
 * indexes), what was expected and what came. Objects may carry keys the shape does not name (a
 * newer cluster may add fields); every key it names is checked.
 */
import { describeValue } from '../model/errors.js';

export interface Mismatch {
  path: Array<string | number>;
  expected: string;
  value: unknown;
}

/** A check of one JSON value; `T` only tells TypeScript what a value that fits is. */
export interface Shape<T = unknown> {
  (value: unknown): Mismatch | null;
  /** Never set: carries the type of the value the shape admits (so `object` can compare it with a field's). */
  readonly shapeOf?: T;
}

const miss = (expected: string, value: unknown): Mismatch => ({ path: [], expected, value });

export const string: Shape<string> = (value) => (typeof value === 'string' ? null : miss('a string', value));
export const number: Shape<number> = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? null : miss('a number', value);
export const boolean: Shape<boolean> = (value) => (typeof value === 'boolean' ? null : miss('true or false', value));
/** Any JSON value. */
export const anything: Shape<unknown> = () => null;

/** A string, typed as the union `T` of the wire type without listing its values (the cluster's business). */
export function text<T extends string>(): Shape<T> {
  return string as Shape<T>;
}

/** One of these literal values. */
export function oneOf<const V extends string | number | boolean>(values: readonly V[]): Shape<V> {
  const set = new Set<unknown>(values);
  const expected = `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  return (value) => (set.has(value) ? null : miss(expected, value));
}

export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (value) => (value === null ? null : shape(value));
}

/** A field that may be left out (undefined). */
export function optional<T>(shape: Shape<T>): Shape<T | undefined> {
  return (value) => (value === undefined ? null : shape(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function array<T>(item: Shape<T>): Shape<T[]> {
  return (value) => {
    if (!Array.isArray(value)) return miss('an array', value);
    for (let i = 0; i < value.length; i++) {
      const mismatch = item(value[i]);
      if (mismatch) {
        mismatch.path.unshift(i);
        return mismatch;
      }
    }
    return null;
  };
}

/** An object whose values all fit `item` (keys free). */
export function record<T>(item: Shape<T>): Shape<Record<string, T>> {
  return (value) => {
    if (!isObject(value)) return miss('an object', value);
    for (const key of Object.keys(value)) {
      const mismatch = item(value[key]);
      if (mismatch) {
        mismatch.path.unshift(key);
        return mismatch;
      }
    }
    return null;
  };
}

/** A check for each key of `T`, of that field's type; an optional field's check must admit undefined. */
export type Fields<T> = {
  readonly [K in keyof Required<T>]: {} extends Pick<T, K> ? Shape<T[K] | undefined> : Shape<T[K]>;
};

/**
 * An object with these fields: one check for every key of `T`, of the field's type (so a field
 * added to the wire type must be added here too, or the build fails); optional fields use
 * `optional(…)`.
 */
export function object<T>(fields: Fields<T>): Shape<T> {
  const entries = Object.entries(fields) as Array<[string, Shape]>;
  return (value) => {
    if (!isObject(value)) return miss('an object', value);
    for (const [key, shape] of entries) {
      const mismatch = shape(value[key]);
      if (mismatch) {
        mismatch.path.unshift(key);
        return mismatch;
      }
    }
    return null;
  };
}

/** A shape built on its first use: a CLI start builds only the shapes of the route it calls. */
export function lazy<T>(build: () => Shape<T>): Shape<T> {
  let built: Shape<T> | undefined;
  return (value) => (built ??= build())(value);
}

/** The first shape that fits; a mismatch names the last one's complaint. */
export function either<A, B>(a: Shape<A>, b: Shape<B>): Shape<A | B> {
  return (value) => (a(value) === null ? null : b(value));
}

/** `tasks[3].state` (empty for the value itself). */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
  return text;
}

/** `tasks[3].state must be one of …, got "DONE"` / `name is missing` / `the answer must be an object, got an array`. */
export function describeMismatch(mismatch: Mismatch): string {
  const where = mismatch.path.length === 0 ? 'the answer' : formatPath(mismatch.path);
  if (mismatch.value === undefined) return `${where} is missing (expected ${mismatch.expected})`;
  // A string from the other end is shown escaped (JSON): no control character reaches the terminal.
  const value = typeof mismatch.value === 'string' ? JSON.stringify(mismatch.value).slice(1, -1) : mismatch.value;
  return `${where} must be ${mismatch.expected}, got ${describeValue(value, 'body')}`;
}
