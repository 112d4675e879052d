/**
 * The attempts of a time window (GET /v1/timeline, the dashboard's Gantt), read with SQL on the
 * `attempts_by_finished` index (schema.ts migration 12) rather than by walking every attempt.
 *
 * Guarantees:
 * - An attempt is in the window [from, to] when it overlapped it: it started at or before `to`
 *   and had not ended before `from` (one still live has no end and is always in).
 * - Newest start first (ties by task and attempt number), at most `limit` keys.
 * - Cost: the index finds the attempts that ended in the window or are still live; only those rows
 *   are read and sorted, whatever the number of older attempts the store holds.
 * - Attempts of archived runs (archive.ts: a name submitted again) are not in the `attempts` table
 *   and so not in the window.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** The window read (exported for its query-plan test). */
export const WINDOW_SQL =
  'SELECT task, attempt FROM attempts WHERE (finished_at >= ? OR finished_at IS NULL) AND started_at <= ? ' +
  'ORDER BY started_at DESC, task, attempt LIMIT ?';

/** One attempt's key. */
export interface AttemptKey {
  task: string;
  attempt: number;
}

/** True when an attempt that ran from `start` to `end` (null: still live) overlapped [from, to]. */
export function overlaps(start: number, end: number | null, from: number, to: number): boolean {
  return start <= to && (end === null || end >= from);
}

export class AttemptWindow {
  private statement: StatementSync | null = null;

  constructor(private readonly db: DatabaseSync) {}

  /** Keys of the attempts that overlapped [from, to], newest start first, at most `limit`. */
  keys(from: number, to: number, limit: number): AttemptKey[] {
    this.statement ??= this.db.prepare(WINDOW_SQL);
    return this.statement.all(from, to, limit) as unknown as AttemptKey[];
  }
}
