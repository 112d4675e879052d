/**
 * Rows <-> objects, with cached prepared statements. `load` streams every table into the
 * in-memory model (rows as arrays, to keep loading 100k tasks fast and small; tasks as compact
 * records, task-record.ts); `flush` writes
 * the journal's dirty keys from memory, inside the caller's transaction.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { AttemptState, JobState, TaskState } from '../../model/states.js';
import type { Attempt, Job, JobCause, JobSpec, PlacementDecision, Task, Worker, WorkerSpec, WorkerState } from '../../model/types.js';
import type { HistoryEntry } from './events.js';
import type { Journal } from './journal.js';
import { splitKey } from './keys.js';
import { RunArchive } from './archive.js';
import type { ClusterModel } from './model.js';
import { Statements } from './database.js';
import { TaskGroups, TaskRecord } from './task-record.js';

type Row = unknown[];
const num = (v: unknown): number => v as number;
const optNum = (v: unknown): number | null => (v === null ? null : (v as number));
const optStr = (v: unknown): string | null => (v === null ? null : (v as string));
/** The `devices` column: comma-separated indices, '' (or NULL) for none. */
const parseDevices = (v: unknown): number[] => (typeof v === 'string' && v !== '' ? v.split(',').map(Number) : []);

const SQL = {
  upsertJob: 'INSERT OR REPLACE INTO jobs (name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, started_at, finished_at, failed_tasks, run, cause) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
  deleteJob: 'DELETE FROM jobs WHERE name = ?',
  upsertTask: 'INSERT OR REPLACE INTO tasks (id, job, idx, state, attempt, submitted_at, seq, failures, preemptions, worker_id, exit_code, reason, started_at, finished_at, eligible_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
  deleteTask: 'DELETE FROM tasks WHERE id = ?',
  upsertAttempt: 'INSERT OR REPLACE INTO attempts (task, attempt, worker_id, state, pid, exit_code, reason, started_at, finished_at, log_path, devices, log_cut_bytes, cpu_seconds, peak_memory_bytes, placement) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
  deleteAttemptsOf: 'DELETE FROM attempts WHERE task = ?',
  upsertWorker: 'INSERT OR REPLACE INTO workers VALUES (?,?,?)',
  upsertEndpoint: 'INSERT OR REPLACE INTO endpoints VALUES (?,?,?,?,?,?)',
  deleteEndpoint: 'DELETE FROM endpoints WHERE task = ? AND name = ?',
  deleteEndpointsOf: 'DELETE FROM endpoints WHERE task = ?',
  upsertHint: 'INSERT OR REPLACE INTO cache_hints (worker, key, expires_at) VALUES (?,?,?)',
  deleteHint: 'DELETE FROM cache_hints WHERE worker = ? AND key = ?',
  upsertMeta: 'INSERT OR REPLACE INTO meta VALUES (?,?)',
  insertEvent: 'INSERT INTO events (time, kind, name, state, reason, run) VALUES (?,?,?,?,?,?)',
  // Events of archived runs are left out: they belong to `NAME@RUN`, not to the name's latest run.
  history: 'SELECT id, time, kind, name, state, reason, run FROM events WHERE (name = ? OR (name >= ? AND name < ?) OR (name >= ? AND name < ?)) AND id > ? AND (run IS NULL OR run NOT IN (SELECT run FROM runs)) ORDER BY id LIMIT ?',
} as const;

export class Persistence {
  private readonly statements: Statements<keyof typeof SQL>;
  readonly archive: RunArchive;

  constructor(private readonly db: DatabaseSync) {
    this.statements = new Statements(db, SQL);
    this.archive = new RunArchive(db);
  }

  private stmt(name: keyof typeof SQL): StatementSync {
    return this.statements.get(name);
  }

  private run(name: keyof typeof SQL, ...params: SQLInputValue[]): void {
    this.stmt(name).run(...params);
  }

  private rows(sql: string): Iterable<Row> {
    const s = this.db.prepare(sql);
    s.setReturnArrays(true);
    return s.iterate() as Iterable<Row>;
  }

  /** Fill an empty model from the database. */
  load(model: ClusterModel): void {
    for (const [k, v] of this.rows('SELECT key, value FROM meta')) model.meta.set(k as string, v as string);
    const specs = new Map<string, JobSpec>();
    for (const r of this.rows('SELECT name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, started_at, finished_at, failed_tasks, run, cause FROM jobs')) {
      const spec = JSON.parse(r[3] as string) as JobSpec;
      specs.set(r[0] as string, spec);
      model.indexJob({
        name: r[0] as string, run: num(r[12]), spec, parent: optStr(r[1]), depth: num(r[2]), submittedAt: num(r[4]), rootSubmittedAt: num(r[5]),
        seq: num(r[6]), state: r[7] as JobState, reason: optStr(r[8]), startedAt: optNum(r[9]), finishedAt: optNum(r[10]), failedTasks: num(r[11]),
        ...(r[13] === null ? {} : { cause: JSON.parse(r[13] as string) as JobCause }),
      }, []);
    }
    const groups = new TaskGroups(); // the tasks of one submission share one group (task-record.ts)
    for (const r of this.rows('SELECT id, job, idx, state, attempt, submitted_at, seq, failures, preemptions, worker_id, exit_code, reason, started_at, finished_at, eligible_at FROM tasks')) {
      const entry = model.jobs.get(r[1] as string);
      if (!entry) continue; // a task without its job cannot be scheduled; ignore it
      const index = num(r[2]);
      const task = new TaskRecord(groups.of(r[1] as string, num(r[5]), num(r[6]) - index), index, r[3] as TaskState, num(r[4]));
      task.failures = num(r[7]);
      task.preemptions = num(r[8]);
      task.workerId = optStr(r[9]);
      task.exitCode = optNum(r[10]);
      task.reason = optStr(r[11]);
      task.startedAt = optNum(r[12]);
      task.finishedAt = optNum(r[13]);
      task.eligibleAt = optNum(r[14]);
      model.indexTask(entry, task);
    }
    for (const r of this.rows('SELECT task, attempt, worker_id, state, pid, exit_code, reason, started_at, finished_at, log_path, devices, log_cut_bytes, cpu_seconds, peak_memory_bytes, placement FROM attempts')) {
      model.indexAttempt({
        task: r[0] as string, attempt: num(r[1]), workerId: r[2] as string, state: r[3] as AttemptState, pid: optNum(r[4]),
        exitCode: optNum(r[5]), reason: optStr(r[6]), startedAt: num(r[7]), finishedAt: optNum(r[8]), logPath: r[9] as string,
        devices: parseDevices(r[10]), logCutBytes: optNum(r[11]), cpuSeconds: optNum(r[12]), peakMemoryBytes: optNum(r[13]),
        placement: r[14] == null ? null : (JSON.parse(r[14] as string) as PlacementDecision),
      });
    }
    for (const task of model.tasks.values()) model.indexActive(task);
    for (const [id, spec, state] of this.rows('SELECT id, spec, state FROM workers')) {
      model.workers.set(id as string, { ...(JSON.parse(spec as string) as WorkerSpec), id: id as string, state: state as WorkerState });
    }
    for (const r of this.rows('SELECT task, name, address, attempt, job, registered_at FROM endpoints')) {
      model.indexEndpoint({ task: r[0] as string, name: r[1] as string, address: r[2] as string, attempt: num(r[3]), job: r[4] as string, registeredAt: num(r[5]) });
    }
    for (const [worker, key, expiresAt] of this.rows('SELECT worker, key, expires_at FROM cache_hints')) {
      model.indexCacheHint(worker as string, key as string, num(expiresAt));
    }
  }

  /** Write the journal's changes; the caller holds the transaction. */
  flush(model: ClusterModel, j: Journal): void {
    for (const id of j.deletedTasks) {
      this.run('deleteAttemptsOf', id);
      this.run('deleteEndpointsOf', id);
      if (!model.tasks.has(id)) this.run('deleteTask', id);
    }
    for (const name of j.deletedJobs) if (!model.jobs.has(name)) this.run('deleteJob', name);
    for (const name of j.dirtyJobs) {
      const job = model.jobs.get(name)?.job;
      if (job) this.writeJob(job);
      else this.run('deleteJob', name);
    }
    for (const id of j.dirtyTasks) {
      const t = model.tasks.get(id);
      if (t) this.writeTask(t);
      else this.run('deleteTask', id);
    }
    for (const key of j.dirtyAttempts) {
      const [task, n] = splitKey(key);
      const a = model.attempts.get(task)?.[Number(n)];
      if (a) this.writeAttempt(a);
    }
    for (const id of j.dirtyWorkers) {
      const w = model.workers.get(id);
      if (w) this.writeWorker(w);
    }
    for (const key of j.dirtyEndpoints) {
      const e = model.endpoints.get(key);
      if (e) this.run('upsertEndpoint', e.task, e.name, e.address, e.attempt, e.job, e.registeredAt);
      else this.run('deleteEndpoint', ...splitKey(key));
    }
    for (const hk of j.dirtyHints) {
      const [worker, key] = splitKey(hk);
      const expiresAt = model.cacheHints.get(worker)?.get(key);
      if (expiresAt !== undefined) this.run('upsertHint', worker, key, expiresAt);
      else this.run('deleteHint', worker, key);
    }
    for (const key of j.dirtyMeta) {
      const value = model.meta.get(key);
      if (value !== undefined) this.run('upsertMeta', key, value);
    }
    for (const entry of j.archived) this.archive.insert(entry);
    for (const run of j.pruned) this.archive.remove(run);
    for (const h of j.history) this.run('insertEvent', h.time, h.kind, h.name, h.state, h.reason, h.run);
  }

  private writeJob(j: Job): void {
    this.run('upsertJob', j.name, j.parent, j.depth, JSON.stringify(j.spec), j.submittedAt, j.rootSubmittedAt, j.seq, j.state, j.reason,
      j.startedAt, j.finishedAt, j.failedTasks, j.run, j.cause ? JSON.stringify(j.cause) : null);
  }

  private writeTask(t: Task): void {
    this.run('upsertTask', t.id, t.job, t.index, t.state, t.attempt, t.submittedAt, t.seq, t.failures, t.preemptions, t.workerId,
      t.exitCode, t.reason, t.startedAt, t.finishedAt, t.eligibleAt);
  }

  private writeAttempt(a: Attempt): void {
    this.run('upsertAttempt', a.task, a.attempt, a.workerId, a.state, a.pid, a.exitCode, a.reason, a.startedAt, a.finishedAt, a.logPath, a.devices.join(','), a.logCutBytes, a.cpuSeconds, a.peakMemoryBytes, a.placement ? JSON.stringify(a.placement) : null);
  }

  private writeWorker(w: Worker): void {
    const { state, ...spec } = w;
    this.run('upsertWorker', w.id, JSON.stringify(spec), state);
  }

  /** History of a job, task or worker and everything below it (`/a` covers `/a/task-0#1`, `/a/b`). */
  history(name: string, afterId: number, limit: number): HistoryEntry[] {
    const s = this.stmt('history');
    s.setReturnArrays(false);
    return s.all(name, name + '/', name + '0', name + '#', name + '$', afterId, limit) as unknown as HistoryEntry[];
  }
}
