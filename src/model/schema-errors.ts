/**
 * zod issues -> one IrisError('invalid_argument'). Guarantees: the message names the field
 * (`command[1]`, `env.A`), says what was wrong and, for an unknown key, suggests the known key
 * it is closest to; the hint lists the known keys. Pure: imports only zod types and errors.
 */
import type { z } from 'zod';
import { IrisError } from './errors.js';

type Issue = z.core.$ZodIssue;
type KeyPath = readonly PropertyKey[];

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `['env', 'A']` -> `env.A`, `['command', 1]` -> `command[1]`, `['env', '1A']` -> `env["1A"]`. */
export function formatKeyPath(keys: KeyPath): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && PLAIN_KEY.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The allowed key closest to `key` (case-insensitive), or undefined when none is close. */
export function suggestKey(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const limit = Math.max(2, Math.ceil(key.length * 0.4));
  return best !== undefined && bestDistance <= limit ? best : undefined;
}

/** How a message shows an offending value: `"text"`, `3`, `null`, `an array`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

export interface IssueOptions {
  /** Prefix of the message (a config file path). */
  file?: string;
  /** Keys allowed where an unknown key was found: one list for the top level, or per path. */
  knownKeys?: readonly string[] | ((path: KeyPath) => readonly string[] | undefined);
}

function unknownKey(issue: Extract<Issue, { code: 'unrecognized_keys' }>, options: IssueOptions): { message: string; hint?: string } {
  const key = issue.keys[0]!;
  const known = typeof options.knownKeys === 'function' ? options.knownKeys(issue.path) : options.knownKeys;
  const where = formatKeyPath(issue.path);
  const suggestion = known ? suggestKey(key, known) : undefined;
  const message = `${where ? `${where}: ` : ''}unknown field "${key}"${suggestion ? `: did you mean "${suggestion}"?` : ''}`;
  return { message, hint: known ? `known fields: ${known.join(', ')}` : undefined };
}

/**
 * The first issue (an unknown key before any other) as an IrisError: `<path> <issue message>` (the schema words the message, such
 * as `must be an integer, got 1.5`), or the message alone for the value as a whole. A custom
 * issue may carry `params.hint`.
 */
export function issuesToError(issues: readonly Issue[], options: IssueOptions = {}): IrisError {
  // An unknown key first: a misspelt key often explains a "required" issue elsewhere.
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  const prefix = options.file ? `${options.file}: ` : '';
  if (!issue) return new IrisError('invalid_argument', `${prefix}invalid value`);
  if (issue.code === 'unrecognized_keys') {
    const { message, hint } = unknownKey(issue, options);
    return new IrisError('invalid_argument', prefix + message, hint);
  }
  const where = formatKeyPath(issue.path);
  const hint = issue.code === 'custom' ? (issue.params as { hint?: unknown } | undefined)?.hint : undefined;
  return new IrisError('invalid_argument', prefix + (where ? `${where} ${issue.message}` : issue.message), typeof hint === 'string' ? hint : undefined);
}
