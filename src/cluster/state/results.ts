/**
 * The `results` table (schema.ts migration 7): task results by (job run, task index, key).
 *
 * Guarantees:
 * - Results are never held in memory: they are written and read with SQL, keyed by the job's
 *   run id, so an archived run keeps its results readable and retention removes them with the
 *   run (archive.ts `remove`).
 * - Each row records the attempt that set it. The results of a task are those of its latest
 *   attempt: `put` for attempt N first deletes the task's rows of earlier attempts (a retried
 *   task starts clean), and readers keep only rows of the attempt that counts (`current`): the
 *   task's current attempt, or, while that one has published nothing, the results of the attempts
 *   before it that were preempted (`countingAttempts`: a preempted task keeps what it published
 *   before its stop, docs/priorities.md).
 * - `put` enforces the per-attempt key cap (model/results.ts) counting keys already stored; a
 *   key set again overwrites its value and is not counted twice. The caller holds the transaction.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { checkResultCount } from '../../model/results.js';
import { Statements } from './database.js';

/** One stored result. */
export interface ResultRow {
  /** Task index within the job's run. */
  index: number;
  key: string;
  value: string;
  /** The attempt that set it. */
  attempt: number;
  /** When it was set (epoch ms). */
  setAt: number;
}

const SQL = {
  dropEarlier: 'DELETE FROM results WHERE run = ? AND idx = ? AND attempt < ?',
  keysOf: 'SELECT key FROM results WHERE run = ? AND idx = ? AND attempt = ?',
  upsert: 'INSERT OR REPLACE INTO results (run, idx, key, attempt, value, set_at) VALUES (?,?,?,?,?,?)',
  ofRun: 'SELECT idx AS "index", key, value, attempt, set_at AS setAt FROM results WHERE run = ? ORDER BY idx, key',
  countsOf: 'SELECT idx AS "index", attempt, COUNT(*) AS n FROM results WHERE run = ? GROUP BY idx, attempt',
} as const;

export class ResultTable {
  private readonly statements: Statements<keyof typeof SQL>;

  constructor(db: DatabaseSync) {
    this.statements = new Statements(db, SQL);
  }

  private stmt(name: keyof typeof SQL): StatementSync {
    return this.statements.get(name);
  }

  /** Store `entries` as set by attempt `attempt` of task `index` of run `run`; `task` names it in errors. */
  put(
    run: number,
    index: number,
    attempt: number,
    entries: Readonly<Record<string, string>>,
    now: number,
    task: string,
  ): void {
    this.stmt('dropEarlier').run(run, index, attempt);
    const keys = new Set((this.stmt('keysOf').all(run, index, attempt) as { key: string }[]).map((row) => row.key));
    for (const key of Object.keys(entries)) keys.add(key);
    checkResultCount(keys.size, task);
    for (const [key, value] of Object.entries(entries)) this.stmt('upsert').run(run, index, key, attempt, value, now);
  }

  /** Stored rows of a run by task index and attempt: how many. */
  countsOf(run: number): { index: number; attempt: number; n: number }[] {
    return (this.stmt('countsOf').all(run) as { index: number; attempt: number; n: number }[]).map((row) => ({
      ...row,
    }));
  }

  /** Every stored row of a run, by task index then key. */
  ofRun(run: number): ResultRow[] {
    return (this.stmt('ofRun').all(run) as unknown as ResultRow[]).map((row) => ({ ...row }));
  }
}

/** How many results of a run count (those of each task's current attempt), without reading values. */
export function countCurrent(
  counts: readonly { index: number; attempt: number; n: number }[],
  attempts: ReadonlyMap<number, number>,
): number {
  return counts.reduce((sum, row) => sum + (attempts.get(row.index) === row.attempt ? row.n : 0), 0);
}

/** The rows that count: those set by each task's current attempt (`attempts[index]`). */
export function current(rows: readonly ResultRow[], attempts: ReadonlyMap<number, number>): ResultRow[] {
  return rows.filter((row) => attempts.get(row.index) === row.attempt);
}

/**
 * Per task index, the attempt whose results count: its current attempt when that one has rows,
 * else the latest earlier attempt with rows reached back through attempts that ended preempted
 * (`preempted(index, attempt)`), else the current one.
 */
export function countingAttempts(
  tasks: readonly { index: number; attempt: number }[],
  counts: readonly { index: number; attempt: number; n: number }[],
  preempted: (index: number, attempt: number) => boolean,
): Map<number, number> {
  const withRows = new Set(counts.filter((row) => row.n > 0).map((row) => `${row.index}:${row.attempt}`));
  const out = new Map<number, number>();
  for (const { index, attempt } of tasks) {
    let n = attempt;
    while (!withRows.has(`${index}:${n}`) && n > 0 && preempted(index, n - 1)) n--;
    out.set(index, withRows.has(`${index}:${n}`) ? n : attempt);
  }
  return out;
}
