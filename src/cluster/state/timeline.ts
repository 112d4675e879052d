/**
 * The attempts of a time window (GET /v1/timeline, the dashboard's Gantt), read with SQL on
 * indexes rather than by walking every attempt: the `attempts` table on `attempts_by_finished`
 * (schema.ts migration 12), and the runs a new submission or a retry replaced (archive.ts, whose
 * records hold their attempts) on `runs_by_finished`.
 *
 * Guarantees:
 * - An attempt is in the window [from, to] when it overlapped it: it started at or before `to`
 *   and had not ended before `from` (one still live has no end and is always in).
 * - At most `limit`: the live attempts first, then those that ended in the window, latest end
 *   first. So past the limit, what is left out is what ended earliest. The answer is newest start
 *   first (ties by task and attempt number).
 * - Cost: every read walks an index and stops at the limit: the live attempts (as many as run
 *   now), at most `limit` ended ones in index order (no sort), and the archived runs latest end
 *   first, each record parsed whole (JSON.parse is far quicker than SQLite's JSON functions per
 *   attempt), until `limit` of their attempts ended after the next run did. It does not grow
 *   with the older attempts the store holds; one archived run costs its record.
 * - An archived attempt ends no later than its run (its job's end); one that did (a cancelled
 *   job's process stopping late) may be missed when the limit is reached.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Attempt } from '../../model/types.js';
import { readRun, type StoredRecord } from './archive.js';

/** An attempt as the window shows it. */
export type WindowAttempt = Pick<Attempt, 'task' | 'attempt' | 'workerId' | 'state' | 'startedAt' | 'finishedAt'>;

/** The window's reads (exported for their query-plan test). */
export const WINDOW_SQL = {
  live:
    'SELECT task, attempt FROM attempts WHERE finished_at IS NULL AND started_at <= ? ' +
    'ORDER BY started_at DESC, task, attempt LIMIT ?',
  ended:
    'SELECT task, attempt FROM attempts WHERE finished_at >= ? AND started_at <= ? ORDER BY finished_at DESC LIMIT ?',
  archivedRuns: 'SELECT finished_at AS finishedAt, record FROM runs WHERE finished_at >= ? ORDER BY finished_at DESC',
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
export function newestFirst(a: WindowAttempt, b: WindowAttempt): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  if (a.task !== b.task) return a.task < b.task ? -1 : 1;
  return a.attempt - b.attempt;
}

/**
 * At most `limit` of `live` and `ended` (see the header for which), newest start first, and
 * whether some were left out.
 */
export function chooseWindow(
  live: readonly WindowAttempt[],
  ended: readonly WindowAttempt[],
  limit: number,
): { attempts: WindowAttempt[]; truncated: boolean } {
  const latestEnd = [...ended].sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
  const all = [...live, ...latestEnd];
  return { attempts: all.slice(0, limit).sort(newestFirst), truncated: all.length > limit };
}

export class AttemptWindow {
  private readonly statements = new Map<keyof typeof WINDOW_SQL, StatementSync>();

  constructor(private readonly db: DatabaseSync) {}

  private stmt(name: keyof typeof WINDOW_SQL): StatementSync {
    let s = this.statements.get(name);
    if (!s) this.statements.set(name, (s = this.db.prepare(WINDOW_SQL[name])));
    return s;
  }

  /** Keys of the live attempts that started by `to`, newest start first, at most `limit`. */
  liveKeys(to: number, limit: number): AttemptKey[] {
    return this.stmt('live').all(to, limit) as unknown as AttemptKey[];
  }

  /** Keys of the attempts that ended in the window, latest end first, at most `limit`. */
  endedKeys(from: number, to: number, limit: number): AttemptKey[] {
    return this.stmt('ended').all(from, to, limit) as unknown as AttemptKey[];
  }

  /**
   * The attempts of archived runs that overlapped the window: at least the `limit` that ended
   * latest, when there are that many (see the header).
   */
  archived(from: number, to: number, limit: number): WindowAttempt[] {
    const out: WindowAttempt[] = [];
    const runs = this.stmt('archivedRuns').iterate(from) as Iterable<{ finishedAt: number; record: StoredRecord }>;
    for (const run of runs) {
      // The attempts of this run and the older ones end by run.finishedAt: enough ended after it?
      if (out.length >= limit && out.filter((a) => (a.finishedAt ?? Infinity) >= run.finishedAt).length >= limit) break;
      const { attempts } = readRun(run.record);
      for (const a of attempts.flat()) {
        if (!overlaps(a.startedAt, a.finishedAt, from, to)) continue;
        const { task, attempt, workerId, state, startedAt, finishedAt } = a;
        out.push({ task, attempt, workerId, state, startedAt, finishedAt });
      }
    }
    return out;
  }
}
