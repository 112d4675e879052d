/**
 * Task results: small named strings a task publishes for later stages to read (a checkpoint
 * path, a metric). The one home of their rules:
 * - a key is 1–128 characters of letters, digits and `_ . -`, starting with a letter or digit
 *   (the characters of a name component, src/model/names.ts);
 * - a value is a string of at most 64 KiB (UTF-8 bytes) without a NUL character (a value can
 *   become a later stage's argument or environment variable: model/nul.ts);
 * - one attempt of a task holds at most 256 keys (a later set of the same key overwrites it and
 *   does not count again);
 * - a result file (`$IRIS_RESULT_FILE`) is one JSON object whose members are key → string value,
 *   at most MAX_RESULT_FILE_BYTES (1 MiB) long.
 * Errors are IrisError('invalid_argument') naming the argument or member at fault. An error about
 * a result file quotes nothing of the file but a member's key that is itself valid (letters,
 * digits, `_ . -`): never a JSON parser's excerpt, an invalid key or a value.
 */
import { IrisError, invalid } from './errors.js';
import { NAME_COMPONENT } from './names.js';
import { NUL_REFUSAL, hasNul } from './nul.js';

export const MAX_RESULT_KEY_LENGTH = 128;
export const MAX_RESULT_VALUE_BYTES = 64 * 1024;
export const MAX_RESULTS_PER_TASK = 256;
/**
 * The largest result file read (docs/cli.md, "Results"): 1 MiB. It holds any one value at its
 * largest even with every character escaped in JSON (6 × 64 KiB = 384 KiB) beside many small
 * ones; a task with more publishes the rest with `iris result set`, or a path to a file.
 * (256 keys of 64 KiB, escaped, could take ~100 MB: the cap keeps what a task's file costs the
 * controller's memory and the database small.)
 */
export const MAX_RESULT_FILE_BYTES = 1024 * 1024;

const KEY_HINT =
  'a key is 1-128 letters, digits and `_ . -`, starting with a letter or digit (e.g. checkpoint, eval.loss)';

/** Whether `key` is a valid result key (the rules of checkResultKey). */
export function isResultKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_RESULT_KEY_LENGTH && NAME_COMPONENT.test(key);
}

/** `key` unchanged when valid; else invalid_argument naming `field`. */
export function checkResultKey(field: string, key: unknown): string {
  if (typeof key !== 'string') throw invalid(`${field}: a result key must be a string`, KEY_HINT);
  if (key.length === 0) throw invalid(`${field}: the result key is empty`, KEY_HINT);
  if (key.length > MAX_RESULT_KEY_LENGTH)
    throw invalid(
      `${field}: the result key is ${key.length} characters long, more than ${MAX_RESULT_KEY_LENGTH}`,
      KEY_HINT,
    );
  if (!NAME_COMPONENT.test(key)) {
    const why = 'has characters other than letters, digits and `_ . -` (or does not start with a letter or digit)';
    throw invalid(`${field}: the result key ${JSON.stringify(key)} ${why}`, KEY_HINT);
  }
  return key;
}

/** `value` unchanged when valid; else invalid_argument naming `field`. */
export function checkResultValue(field: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw invalid(
      `${field}: a result value must be a string, got ` +
        `${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
      'publish numbers and objects as text (e.g. "0.93", or JSON encoded as one string)',
    );
  }
  if (hasNul(value))
    throw invalid(
      `${field}: the result value ${NUL_REFUSAL}`,
      'publish text; encode binary data (base64) or publish the path of a file',
    );
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_RESULT_VALUE_BYTES) {
    throw invalid(
      `${field}: the result value is ${bytes} bytes, more than ${MAX_RESULT_VALUE_BYTES} (64 KiB)`,
      'store large outputs in a file and publish its path as the result',
    );
  }
  return value;
}

/** invalid_argument when one attempt would hold more than MAX_RESULTS_PER_TASK keys. */
export function checkResultCount(count: number, task: string): void {
  if (count <= MAX_RESULTS_PER_TASK) return;
  throw new IrisError(
    'invalid_argument',
    `task ${task} would hold ${count} results, more than ${MAX_RESULTS_PER_TASK}`,
    'publish fewer keys (overwrite a key to change its value), or collect many values into one file and publish its ' +
      'path',
  );
}

const FILE_HINT = 'write one JSON object of key -> string, e.g. {"checkpoint": "/ckpt/step-100"}';

/**
 * Where JSON.parse stopped, in iris's words, from its error: `at character N` (1-based) or
 * `it ends too early`; '' when the parser does not say. Nothing of the parser's message is kept:
 * it quotes the text it could not parse.
 */
function jsonErrorPlace(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = /\bposition (\d+)/.exec(message);
  if (at) return ` (at character ${Number(at[1]) + 1})`;
  return /unexpected end/i.test(message) ? ' (it ends too early)' : '';
}

/**
 * The results in a result file's text: one JSON object of key → string. Throws
 * invalid_argument saying what is wrong (`not valid JSON (at character 9)`, `member "x": …`,
 * `member 3: its key is not a valid result key`), quoting nothing of the text but valid keys.
 */
export function parseResultFile(text: string): Record<string, string> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(`the result file is not valid JSON${jsonErrorPlace(error)}`, FILE_HINT);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const got = data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data;
    throw invalid(`the result file must hold one JSON object, got ${got}`, FILE_HINT);
  }
  const out: Record<string, string> = {};
  let index = 0;
  for (const [key, value] of Object.entries(data)) {
    index += 1;
    if (!isResultKey(key)) throw invalid(`result file member ${index}: its key is not a valid result key`, KEY_HINT);
    out[key] = checkResultValue(`result file member "${key}"`, value);
  }
  return out;
}
