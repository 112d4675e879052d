/**
 * The CLI's JSON text: where `--json` output is serialised (BaseCommand's logJson and logJsonLine,
 * and the NDJSON lines of `iris logs --json`). Not yet the lines of `iris watch --stream --json`:
 * commands/watch.ts writes them with JSON.stringify, so DEL and C1 controls there are not escaped.
 *
 * Guarantee: an instant is printed as an ISO 8601 string in UTC (`2025-01-02T12:00:00.000Z`),
 * never as epoch milliseconds. An instant is a finite number under a key that ends in `At`
 * (`submittedAt`, `startedAt`, `finishedAt`, `registeredAt`, …) or is one of INSTANT_KEYS
 * (`time`, `start`, `now`, `reservedStart`, `cutoff` of `iris prune`). Durations (`timeoutMs`, `timeLimitMs`) and every
 * other number stay numbers; a `null` instant stays `null`. The HTTP API keeps epoch
 * milliseconds (docs/api.md); only what the CLI prints changes.
 * A reason the cluster wrote (a string under the key `reason`) carries its instants as data
 * (model/reason-instants.ts): they are printed in the reason's text as ISO 8601 too
 * (`…; reserved to start at 2025-01-02T12:00:00.000Z`).
 * A command whose output has no instants but uses those keys for something else (`iris
 * simulate`: virtual seconds) passes `instants: false`; a reason's instant is then its number.
 */
import { renderInstants } from '../model/reason-instants.js';

const INSTANT_KEYS = new Set(['time', 'start', 'now', 'reservedStart', 'cutoff']);
/** The range of a JavaScript Date (±100,000,000 days around 1970). */
const MAX_DATE_MS = 8.64e15;

function isInstantKey(key: string): boolean {
  return INSTANT_KEYS.has(key) || (key.length > 2 && key.endsWith('At'));
}

const iso = (time: number): string => new Date(time).toISOString();

function instantsAsIso(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_DATE_MS && isInstantKey(key)) {
    return iso(value);
  }
  if (key === 'reason' && typeof value === 'string') return renderInstants(value, iso);
  return value;
}

function instantsAsNumbers(this: unknown, key: string, value: unknown): unknown {
  return key === 'reason' && typeof value === 'string' ? renderInstants(value, String) : value;
}

export interface JsonTextOptions {
  /** Indent (2 for a document, 0 for one NDJSON line). */
  indent?: number;
  /** Print instants as ISO 8601 strings (default true). */
  instants?: boolean;
}

/** DEL and the C1 controls, which JSON.stringify leaves as they are (it escapes only U+0000–U+001F). */
const LEFT_BY_STRINGIFY = /[\u007f-\u009f]/;
const LEFT_BY_STRINGIFY_ALL = /[\u007f-\u009f]/g;

/**
 * `value` as the CLI prints JSON (see the header), without a trailing newline. Every control
 * character is escaped (`\u001b`, `\u009b`): JSON.stringify does C0, and DEL and C1 are done
 * here (they occur only inside strings, where `\u00XX` reads back as the same character), so no
 * value can act on a terminal the JSON is printed to.
 */
export function jsonText(value: unknown, { indent = 0, instants = true }: JsonTextOptions = {}): string {
  const text = JSON.stringify(value, instants ? instantsAsIso : instantsAsNumbers, indent || undefined);
  if (!LEFT_BY_STRINGIFY.test(text)) return text;
  return text.replace(LEFT_BY_STRINGIFY_ALL, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
