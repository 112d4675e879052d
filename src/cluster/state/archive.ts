/**
 * The run archive: job runs that a new submission of their name replaced, and finished trees
 * that left memory (finished-trees.ts), kept in the `runs` table (schema.ts migration 5).
 *
 * Guarantees:
 * - A run is archived whole: the job as it ended, its tasks and every attempt (log paths and
 *   measured usage included) in one record, plus the runs of its children archived with it, and
 *   its state-change events, which leave the `events` table then (compressed: run-record.ts; an
 *   event written for the run after it was archived stays in `events`, and reads merge both).
 *   Its per-task runtime (planner/prediction.ts runRuntime) is a column, for predictions.
 * - Archived runs are never loaded into memory as a whole: lookups and listings are SQL queries
 *   on indexed columns (`run` primary key; `name`, `user`, `finished_at` indexes, `state` for runs that
 *   did not succeed), with a limit.
 * - The API is small on purpose: `insert` (inside the store's transaction); the reads of
 *   ArchiveReader (`get`, `runsOf`, `list`, `history`); and `remove`, which deletes a run's row,
 *   events and task results (its log directory, which the record's attempts name, is the caller's to
 *   delete), so retention can work by run id.
 * - A run archived while the disk is full waits in the store's journal with the rest of that
 *   change, and is readable here once it has been written.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { JobState } from '../../model/states.js';
import type { Attempt, Job, Task } from '../../model/types.js';
import type { HistoryEntry } from './events.js';
import { Statements } from './database.js';
import { runRuntime } from '../scheduler/planner/index.js';
import {
  decodeRecord,
  encodeRecord,
  loadEvents,
  packRun,
  type StoredEvent,
  storeEvents,
  unpackRun,
} from './run-record.js';

/** One archived run of a job, as stored in its record. */
export interface ArchivedRun {
  job: Job;
  /** By task index. */
  tasks: Task[];
  /** Attempts of each task (same index as `tasks`), by attempt number. */
  attempts: Attempt[][];
  /** Run ids of the job's children that were archived with it. */
  children: number[];
}

/** What `list` filters on; every field optional. */
export interface RunFilter {
  /** Job name prefix: the name itself and everything below it. */
  prefix?: string;
  user?: string;
  states?: readonly JobState[];
  /** Runs still active at or after this time (epoch ms): finished at or after it. */
  since?: number;
  /** Runs submitted at or before this time (epoch ms). */
  until?: number;
  /** Most runs to return (newest runs first). */
  limit: number;
}

const SQL = {
  insert:
    'INSERT OR REPLACE INTO runs (run, name, user, state, submitted_at, started_at, finished_at, record, ' +
    'runtime) VALUES (?,?,?,?,?,?,?,?,?)',
  get: 'SELECT record FROM runs WHERE run = ?',
  runsOf: 'SELECT run FROM runs WHERE name = ? ORDER BY run',
  latest: 'SELECT record FROM runs WHERE name = ? ORDER BY run DESC LIMIT 1',
  latestState: 'SELECT state FROM runs WHERE name = ? ORDER BY run DESC LIMIT 1',
  // The newest archived run of each name (what `iris jobs` lists of a name no live job holds).
  latestRuns:
    'SELECT run, name, user, state, finished_at AS finishedAt FROM runs WHERE run IN ' +
    '(SELECT max(run) FROM runs GROUP BY name)',
  // The last two successful runs of each name and user (what a prediction reads), each with its
  // per-task runtime (the `runtime` column, written with the record; NULL: no task's final attempt
  // succeeded with an end, and such a run is left out after the ranking). No record is read.
  succeeded:
    'SELECT name, user, runtime FROM (SELECT run, name, user, runtime, ' +
    "row_number() OVER (PARTITION BY user, name ORDER BY run DESC) AS newest FROM runs WHERE state = 'SUCCEEDED') " +
    'WHERE newest <= 2 AND runtime IS NOT NULL ORDER BY run',
  remove: 'DELETE FROM runs WHERE run = ?',
  finishedBefore: 'SELECT record FROM runs WHERE finished_at < ? ORDER BY finished_at LIMIT ?',
  removeEvents: 'DELETE FROM events WHERE run = ?',
  removeResults: 'DELETE FROM results WHERE run = ?',
  history: 'SELECT id, time, kind, name, state, reason, run FROM events WHERE run = ? ORDER BY id',
  requeueCounts: "SELECT state, COUNT(*) AS count FROM events WHERE run = ? AND kind = 'requeue' GROUP BY state",
  requeuesRecent:
    "SELECT id, time, kind, name, state, reason, run FROM events WHERE run = ? AND kind = 'requeue' ORDER BY id " +
    'DESC LIMIT ?',
  execCount: "SELECT COUNT(*) AS count FROM events WHERE run = ? AND kind = 'exec'",
  execsRecent:
    "SELECT id, time, kind, name, state, reason, run FROM events WHERE run = ? AND kind = 'exec' ORDER BY id DESC " +
    'LIMIT ?',
} as const;

/** A run's requeue events (model/requeue.ts): how many of each reason, and the latest, oldest first. */
export interface RunRequeues {
  counts: Record<string, number>;
  recent: HistoryEntry[];
}

/** The indexed columns of an archived run. */
export interface RunColumns {
  run: number;
  name: string;
  user: string;
  state: JobState;
  finishedAt: number | null;
}

/** The reads of the archive. */
export interface ArchiveReader {
  /** An archived run by id, or null (also for the run of a live job). */
  get(run: number): ArchivedRun | null;
  /** Archived run ids of exactly this job name, oldest first (the live job's run is not among them). */
  runsOf(name: string): number[];
  /** The newest archived run of exactly this name, or null. */
  latest(name: string): ArchivedRun | null;
  /** The state of the newest archived run of this name (one indexed row, no record read), or undefined. */
  latestState(name: string): JobState | undefined;
  /**
   * The newest archived run of each name that `keep` accepts (from its indexed columns, before any
   * record is read) and whose top-level tree (the first part of the name) has a run that finished
   * at or after `since` (any when undefined): what `iris jobs` lists beside the live jobs.
   */
  latestRuns(keep: (run: RunColumns) => boolean, since?: number): ArchivedRun[];
  list(filter: RunFilter): ArchivedRun[];
  /** The state-change history of one run (its job, tasks and attempts; live or archived), oldest first. */
  history(run: number): HistoryEntry[];
  /** The requeue events of one run (live or archived): counts by reason and the latest `limit`. */
  requeues(run: number, limit: number): RunRequeues;
  /** The `iris exec` events of one run (live or archived): how many, and the latest `limit`, oldest first. */
  execs(run: number, limit: number): { total: number; recent: HistoryEntry[] };
}

/**
 * `reader` whose reads answer as empty instead of failing while `unreadable()` (a full disk);
 * any other failure is thrown as `explain` puts it (a damaged database says so).
 */
export function guardedReader(
  reader: ArchiveReader,
  unreadable: () => boolean,
  explain: (error: unknown) => unknown = (e) => e,
): ArchiveReader {
  const guard = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      if (unreadable()) return fallback;
      throw explain(error);
    }
  };
  return {
    get: (run) => guard(() => reader.get(run), null),
    runsOf: (name) => guard(() => reader.runsOf(name), []),
    latest: (name) => guard(() => reader.latest(name), null),
    latestState: (name) => guard(() => reader.latestState(name), undefined),
    latestRuns: (keep, since) => guard(() => reader.latestRuns(keep, since), []),
    list: (filter) => guard(() => reader.list(filter), []),
    history: (run) => guard(() => reader.history(run), []),
    requeues: (run, limit) => guard(() => reader.requeues(run, limit), { counts: {}, recent: [] }),
    execs: (run, limit) => guard(() => reader.execs(run, limit), { total: 0, recent: [] }),
  };
}

/** `runs.record` as SQLite hands it back: JSON text (older rows) or a compressed BLOB (run-record.ts). */
export type StoredRecord = string | Uint8Array;

/** The run a record holds, still packed (run-record.ts packRun), without the events it carries. */
export function readRun(stored: StoredRecord): ArchivedRun {
  const { events: _events, ...run } = decodeRecord<ArchivedRun & { events?: unknown }>(stored);
  return run;
}

/** The top-level job of a name: `/a` of `/a/b/c`. */
function topOf(name: string): string {
  const cut = name.indexOf('/', 1);
  return cut < 0 ? name : name.slice(0, cut);
}

export class RunArchive implements ArchiveReader {
  private readonly statements: Statements<keyof typeof SQL>;

  /** `logsRoot`: where this database's cluster keeps its logs (stored-row.ts), null: not known. */
  constructor(
    private readonly db: DatabaseSync,
    private readonly logsRoot: string | null = null,
  ) {
    this.statements = new Statements(db, SQL);
  }

  private stmt(name: keyof typeof SQL): StatementSync {
    return this.statements.get(name);
  }

  /**
   * Write one archived run; the caller holds the transaction. Its events move from `events` into
   * its record (with those of an earlier record of the same run, when it is written again).
   */
  insert(entry: ArchivedRun): void {
    const { job } = entry;
    const events = [...this.storedEvents(job.run), ...(this.stmt('history').all(job.run) as unknown as HistoryEntry[])];
    this.stmt('removeEvents').run(job.run);
    const packed = packRun(entry, this.logsRoot);
    const stored = events.length > 0 ? { ...packed, events: storeEvents(events) } : packed;
    this.stmt('insert').run(
      job.run,
      job.name,
      job.spec.user,
      job.state,
      job.submittedAt,
      job.startedAt,
      job.finishedAt,
      encodeRecord(stored),
      job.state === 'SUCCEEDED' ? runRuntime(entry.attempts.map((list) => list.at(-1))) : null,
    );
  }

  /** The run a stored record holds, unpacked, without its events (read through `history`). */
  read(stored: StoredRecord): ArchivedRun {
    return unpackRun(readRun(stored), this.logsRoot);
  }

  /** The events an archived run's record holds (none for a live run or an older record). */
  private storedEvents(run: number): HistoryEntry[] {
    const row = this.stmt('get').get(run) as { record: StoredRecord } | undefined;
    if (!row) return [];
    return loadEvents(decodeRecord<{ events?: StoredEvent[] }>(row.record).events, run);
  }

  get(run: number): ArchivedRun | null {
    const row = this.stmt('get').get(run) as { record: StoredRecord } | undefined;
    return row ? this.read(row.record) : null;
  }

  /**
   * Name, user and per-task runtime (planner/prediction.ts runRuntime) of the last two archived runs
   * of each name and user that succeeded, oldest run first (runtime predictions). Computed in SQL:
   * only those runs' records are read, and no record is parsed in JS.
   */
  succeededRuntimes(): Array<{ name: string; user: string; runtime: number }> {
    return this.stmt('succeeded').all() as Array<{ name: string; user: string; runtime: number }>;
  }

  runsOf(name: string): number[] {
    return (this.stmt('runsOf').all(name) as { run: number }[]).map((r) => r.run);
  }

  latest(name: string): ArchivedRun | null {
    const row = this.stmt('latest').get(name) as { record: StoredRecord } | undefined;
    return row ? this.read(row.record) : null;
  }

  latestState(name: string): JobState | undefined {
    return (this.stmt('latestState').get(name) as { state: JobState } | undefined)?.state;
  }

  latestRuns(keep: (run: RunColumns) => boolean, since?: number): ArchivedRun[] {
    const all = this.stmt('latestRuns').all() as unknown as RunColumns[];
    // The tree test looks at every newest run (a filtered-out run may still make its tree recent).
    const recent = new Set<string>();
    if (since !== undefined)
      for (const row of all) if (row.finishedAt === null || row.finishedAt >= since) recent.add(topOf(row.name));
    const rows = all.filter((row) => keep(row) && (since === undefined || recent.has(topOf(row.name))));
    const get = this.stmt('get');
    return rows.map((row) => this.read((get.get(row.run) as { record: StoredRecord }).record));
  }

  /** Archived runs matching `filter`, newest run first, at most `filter.limit`. */
  list(filter: RunFilter): ArchivedRun[] {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    if (filter.prefix !== undefined) {
      where.push('(name = ? OR (name >= ? AND name < ?))');
      params.push(filter.prefix, filter.prefix + '/', filter.prefix + '0');
    }
    if (filter.user !== undefined) {
      where.push('user = ?');
      params.push(filter.user);
    }
    if (filter.states !== undefined && filter.states.length > 0) {
      where.push(`state IN (${filter.states.map(() => '?').join(',')})`);
      params.push(...filter.states);
      // The state index holds only runs that did not succeed (schema.ts migration 15).
      if (!filter.states.includes('SUCCEEDED')) where.push("state <> 'SUCCEEDED'");
    }
    if (filter.since !== undefined) {
      where.push('finished_at >= ?');
      params.push(filter.since);
    }
    if (filter.until !== undefined) {
      where.push('submitted_at <= ?');
      params.push(filter.until);
    }
    const sql =
      `SELECT record FROM runs${where.length > 0 ? ' WHERE ' + where.join(' AND ') : ''} ORDER BY run ` +
      `DESC LIMIT ?`;
    params.push(filter.limit);
    const rows = this.db.prepare(sql).all(...params) as { record: StoredRecord }[];
    return rows.map((row) => this.read(row.record));
  }

  history(run: number): HistoryEntry[] {
    const kept = this.storedEvents(run);
    const table = this.stmt('history').all(run) as unknown as HistoryEntry[];
    return kept.length === 0 ? table : [...kept, ...table].sort((a, b) => a.id - b.id);
  }

  requeues(run: number, limit: number): RunRequeues {
    const counts: Record<string, number> = {};
    const kept = this.storedEvents(run).filter((e) => e.kind === 'requeue');
    for (const e of kept) counts[e.state] = (counts[e.state] ?? 0) + 1;
    for (const row of this.stmt('requeueCounts').all(run) as { state: string; count: number }[])
      counts[row.state] = (counts[row.state] ?? 0) + row.count;
    const recent = (this.stmt('requeuesRecent').all(run, limit) as unknown as HistoryEntry[]).reverse();
    return { counts, recent: [...kept, ...recent].slice(-limit) };
  }

  execs(run: number, limit: number): { total: number; recent: HistoryEntry[] } {
    const kept = this.storedEvents(run).filter((e) => e.kind === 'exec');
    const total = kept.length + (this.stmt('execCount').get(run) as { count: number }).count;
    if (total === 0) return { total, recent: [] };
    const recent = (this.stmt('execsRecent').all(run, limit) as unknown as HistoryEntry[]).reverse();
    return { total, recent: [...kept, ...recent].slice(-limit) };
  }

  /** Archived runs that finished before `cutoff` (epoch ms), oldest first, at most `limit`. */
  finishedBefore(cutoff: number, limit: number): ArchivedRun[] {
    return (this.stmt('finishedBefore').all(cutoff, limit) as { record: StoredRecord }[]).map((row) =>
      this.read(row.record),
    );
  }

  /** Delete an archived run's row, its events and its task results (retention); its logs are the caller's to delete. */
  remove(run: number): void {
    this.stmt('remove').run(run);
    this.stmt('removeEvents').run(run);
    this.stmt('removeResults').run(run);
  }
}
