/**
 * "From when": the one parser of `--since` and `--until` (`iris logs`, `iris history`) and of
 * the logs route's `since` (GET /v1/logs). Pure: `now` is an input. An input is, in this order:
 *
 * - epoch milliseconds: 10 or more digits (what the client sends);
 * - a duration ago, by the one duration parser (src/model/duration.ts): `10m`, `1h30m`, `2d`,
 *   `500ms`, any case, or a bare number of seconds (`300`);
 * - an instant as Date.parse reads it: ISO 8601 such as `2025-01-02T10:00:00Z` or `2025-01-02`.
 *
 * Anything else is invalid_argument: `invalid WHAT "…"`, where `what` names the flag or the query
 * parameter, with a hint listing the three forms.
 */
import { IrisError, describeValue, invalid } from './errors.js';
import { parseDuration } from './duration.js';

const EPOCH_MS = /^\d{10,}$/;
const HINT = 'use a duration such as 10m or 1h, an ISO time such as 2025-01-02T10:00:00Z, or epoch milliseconds';

/** The epoch milliseconds `input` means at `now`; `what` names it in the error (`--since`). */
export function parseSince(input: string, now: number, what = '--since'): number {
  const text = input.trim();
  if (EPOCH_MS.test(text)) return Number(text);
  try {
    return now - parseDuration(text);
  } catch (error) {
    if (!(error instanceof IrisError)) throw error;
  }
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw invalid(`invalid ${what} ${describeValue(input)}`, HINT);
  return time;
}
