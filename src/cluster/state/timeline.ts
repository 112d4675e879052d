/**
 * The attempts of a time window (GET /v1/timeline, the dashboard's Gantt), read with SQL on the
 * `attempts_by_finished` index (schema.ts migration 12) rather than by walking every attempt.
 *
 * Guarantees:
 * - An attempt is in the window [from, to] when it overlapped it: it started at or before `to`
 *   and had not ended before `from` (one still live has no end and is always in).
 * - At most `limit` keys: the live attempts first (newest start first), then those that ended in
 *   the window, latest end first. So past the limit, what is left out is what ended earliest.
 * - Cost: both reads walk the index in its own order and stop at the limit: the live attempts
 *   (as many as run now, sorted), then at most `limit` ended ones (no sort). It does not grow
 *   with the number of older attempts the store holds, nor with a window busier than the limit.
 * - Attempts of archived runs (archive.ts: a name submitted again) are not in the `attempts` table
 *   and so not in the window.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** The window's reads (exported for their query-plan test). */
export const WINDOW_SQL = {
  live:
    'SELECT task, attempt FROM attempts WHERE finished_at IS NULL AND started_at <= ? ' +
    'ORDER BY started_at DESC, task, attempt LIMIT ?',
  ended:
    'SELECT task, attempt FROM attempts WHERE finished_at >= ? AND started_at <= ? ORDER BY finished_at DESC LIMIT ?',
} as const;

/** One attempt's key. */
export interface AttemptKey {
  task: string;
  attempt: number;
}

/** True when an attempt that ran from `start` to `end` (null: still live) overlapped [from, to]. */
export function overlaps(start: number, end: number | null, from: number, to: number): boolean {
  return start <= to && (end === null || end >= from);
}

/** Newest start first; ties by task and attempt number. */
export function newestFirst(a: AttemptKey & { startedAt: number }, b: AttemptKey & { startedAt: number }): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  if (a.task !== b.task) return a.task < b.task ? -1 : 1;
  return a.attempt - b.attempt;
}

export class AttemptWindow {
  private statements: { live: StatementSync; ended: StatementSync } | null = null;

  constructor(private readonly db: DatabaseSync) {}

  /** Keys of at most `limit` attempts that overlapped [from, to] (see the header for which). */
  keys(from: number, to: number, limit: number): AttemptKey[] {
    this.statements ??= { live: this.db.prepare(WINDOW_SQL.live), ended: this.db.prepare(WINDOW_SQL.ended) };
    const live = this.statements.live.all(to, limit) as unknown as AttemptKey[];
    if (live.length >= limit) return live;
    return [...live, ...(this.statements.ended.all(from, to, limit - live.length) as unknown as AttemptKey[])];
  }
}
