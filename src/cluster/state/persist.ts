/**
 * Rows <-> objects, with cached prepared statements. `load` streams every table into the
 * in-memory model (rows as arrays, to keep loading 100k tasks fast and small; tasks as compact
 * records, task-record.ts); `flush` writes
 * the journal's dirty keys from memory, inside the caller's transaction.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { AttemptState, JobState, TaskState } from '../../model/states.js';
import { describeValue } from '../../model/errors.js';
import { taskName } from '../../model/names.js';
import type {
  Attempt,
  Job,
  JobCause,
  JobSpec,
  MergedBatch,
  PlacementDecision,
  Task,
  Worker,
  WorkerSpec,
  WorkerState,
} from '../../model/types.js';
import { attemptHistoryName, type HistoryEntry } from './events.js';
import {
  isStoredAttemptState,
  isStoredJobState,
  isStoredTaskState,
  messageOf,
  placeholderSpec,
  specProblem,
  type LoadProblem,
} from './load-check.js';
import type { Journal } from './journal.js';
import { splitKey } from './keys.js';
import { RunArchive } from './archive.js';
import { AttemptWindow } from './timeline.js';
import type { ClusterModel } from './model.js';
import { Statements } from './database.js';
import { TaskGroup, TaskGroups, TaskRecord } from './task-record.js';
import { packLogPath, packPlacement, packSpec, unpackLogPath, unpackPlacement, unpackSpec } from './stored-row.js';

/** What a load read that it could not make sense of (load-check.ts): for store.ts to quarantine. */
export interface LoadedState {
  problems: LoadProblem[];
  /** Ids of task rows that cannot be one of their job's tasks: deleted with the quarantine. */
  strayTasks: string[];
  /** Attempts loaded from an unreadable row (state or placement): written again with the quarantine. */
  repairedAttempts: Attempt[];
}

type Row = unknown[];
const num = (v: unknown): number => v as number;
const optNum = (v: unknown): number | null => (v === null ? null : (v as number));
const optStr = (v: unknown): string | null => (v === null ? null : (v as string));
/** The `devices` column: comma-separated indices, '' (or NULL) for none. */
const parseDevices = (v: unknown): number[] => (typeof v === 'string' && v !== '' ? v.split(',').map(Number) : []);

const SQL = {
  upsertJob:
    'INSERT OR REPLACE INTO jobs (name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, ' +
    'started_at, finished_at, failed_tasks, run, cause) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
  deleteJob: 'DELETE FROM jobs WHERE name = ?',
  upsertTask:
    'INSERT OR REPLACE INTO tasks (id, job, idx, state, attempt, submitted_at, seq, failures, preemptions, ' +
    'worker_id, exit_code, reason, started_at, finished_at, eligible_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
  deleteTask: 'DELETE FROM tasks WHERE id = ?',
  upsertAttempt:
    'INSERT OR REPLACE INTO attempts (task, attempt, worker_id, state, pid, exit_code, reason, started_at, ' +
    'finished_at, log_path, devices, log_cut_bytes, cpu_seconds, peak_memory_bytes, placement, merged) VALUES ' +
    '(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
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
  history:
    'SELECT id, time, kind, name, state, reason, run FROM events WHERE (name = ? OR (name >= ? AND name < ?) OR ' +
    '(name >= ? AND name < ?)) AND id > ? AND (run IS NULL OR run NOT IN (SELECT run FROM runs)) ORDER BY id LIMIT ?',
} as const;

export class Persistence {
  private readonly statements: Statements<keyof typeof SQL>;
  readonly archive: RunArchive;
  /** The attempts of a time window (timeline.ts). */
  readonly window: AttemptWindow;

  /**
   * `logsRoot`: where the cluster of this database keeps its logs (`<home>/logs`), so that an
   * attempt's log path there is stored as '' (stored-row.ts); null (an in-memory store): stored as is.
   */
  constructor(
    private readonly db: DatabaseSync,
    private readonly logsRoot: string | null = null,
  ) {
    this.statements = new Statements(db, SQL);
    this.archive = new RunArchive(db, logsRoot);
    this.window = new AttemptWindow(db);
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

  /**
   * Fill an empty model from the database. A row that cannot be read does not stop the load: it is
   * loaded as load-check.ts says and reported, for its job to be quarantined (store.ts).
   */
  load(model: ClusterModel): LoadedState {
    const loaded: LoadedState = { problems: [], strayTasks: [], repairedAttempts: [] };
    const problem = (job: string | null, text: string): void => {
      loaded.problems.push({ job, problem: text });
    };
    for (const [k, v] of this.rows('SELECT key, value FROM meta')) model.meta.set(k as string, v as string);
    const placeholders = new Set<string>();
    for (const r of this.rows(
      'SELECT name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, started_at, ' +
        'finished_at, failed_tasks, run, cause FROM jobs',
    )) {
      const name = r[0] as string;
      let spec: JobSpec;
      let wrong: string | null;
      try {
        spec = unpackSpec(r[3] as string, name);
        wrong = specProblem(spec, name);
      } catch (error) {
        spec = null as unknown as JobSpec;
        wrong = `spec is not JSON (${messageOf(error)})`;
      }
      if (wrong !== null) {
        spec = placeholderSpec(name, this.taskRowCount(name));
        placeholders.add(name);
      }
      let state = r[7];
      if (!isStoredJobState(state)) {
        wrong ??= `state ${describeValue(state)} is not a job state`;
        state = 'PENDING';
      }
      let cause: JobCause | null = null;
      try {
        cause = r[13] === null ? null : (JSON.parse(r[13] as string) as JobCause);
      } catch (error) {
        wrong ??= `cause is not JSON (${messageOf(error)})`;
      }
      if (wrong !== null) problem(name, wrong);
      model.indexJob(
        {
          name,
          run: num(r[12]),
          spec,
          parent: optStr(r[1]),
          depth: num(r[2]),
          submittedAt: num(r[4]),
          rootSubmittedAt: num(r[5]),
          seq: num(r[6]),
          state: state as JobState,
          reason: optStr(r[8]),
          startedAt: optNum(r[9]),
          finishedAt: optNum(r[10]),
          failedTasks: num(r[11]),
          ...(cause === null ? {} : { cause }),
        },
        [],
      );
    }
    const groups = new TaskGroups(); // the tasks of one submission share one group (task-record.ts)
    for (const r of this.rows(
      'SELECT id, job, idx, state, attempt, submitted_at, seq, failures, preemptions, worker_id, exit_code, reason, ' +
        'started_at, finished_at, eligible_at FROM tasks',
    )) {
      const entry = model.jobs.get(r[1] as string);
      if (!entry) continue; // a task without its job cannot be scheduled; ignore it
      const job = entry.job.name;
      const index = r[2];
      if (
        !Number.isSafeInteger(index) ||
        (index as number) < 0 ||
        (index as number) >= entry.job.spec.replicas ||
        r[0] !== taskName(job, index as number)
      ) {
        problem(
          job,
          `task row ${describeValue(r[0])} (index ${describeValue(index)}) is not one of its ` +
            `${entry.job.spec.replicas} task(s)`,
        );
        loaded.strayTasks.push(r[0] as string);
        continue;
      }
      let state = r[3];
      if (!isStoredTaskState(state)) {
        problem(job, `task ${r[0] as string}: state ${describeValue(state)} is not a stored task state`);
        state = 'PENDING';
      }
      let attempt = r[4];
      if (!Number.isSafeInteger(attempt) || (attempt as number) < 0) {
        problem(job, `task ${r[0] as string}: attempt ${describeValue(attempt)} is not an integer >= 0`);
        attempt = 0;
      }
      const task = new TaskRecord(
        groups.of(job, num(r[5]), num(r[6]) - (index as number)),
        index as number,
        state as TaskState,
        attempt as number,
      );
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
    for (const entry of model.jobs.values()) {
      const { job, tasks } = entry;
      if (tasks.length === job.spec.replicas && !tasks.includes(undefined as unknown as Task)) continue;
      const group = new TaskGroup(job.name, job.submittedAt, job.seq + 1);
      let missing = 0;
      for (let i = 0; i < job.spec.replicas; i++) {
        if (tasks[i] !== undefined) continue;
        model.indexTask(entry, new TaskRecord(group, i));
        missing++;
      }
      if (!placeholders.has(job.name)) problem(job.name, `${missing} of its ${job.spec.replicas} task row(s) missing`);
    }
    for (const r of this.rows(
      'SELECT task, attempt, worker_id, state, pid, exit_code, reason, started_at, finished_at, log_path, devices, ' +
        'log_cut_bytes, cpu_seconds, peak_memory_bytes, placement, merged FROM attempts',
    )) {
      const n = r[1];
      if (!Number.isSafeInteger(n) || (n as number) < 0) continue; // not an attempt of any task: never read
      let wrong: string | null = null;
      let state = r[3];
      if (!isStoredAttemptState(state)) {
        wrong = `state ${describeValue(state)} is not an attempt state`;
        state = 'KILLED';
      }
      let placement: PlacementDecision | null = null;
      try {
        placement = r[14] == null ? null : unpackPlacement(r[14] as string);
      } catch (error) {
        wrong ??= `placement is not JSON (${messageOf(error)})`;
      }
      let merged: MergedBatch | null = null;
      try {
        merged = r[15] == null ? null : (JSON.parse(r[15] as string) as MergedBatch);
      } catch (error) {
        wrong ??= `merged is not JSON (${messageOf(error)})`;
      }
      const owner = model.tasks.get(r[0] as string);
      const ownerJob = owner ? model.jobs.get(owner.job)?.job : undefined;
      const attempt: Attempt = {
        task: r[0] as string,
        attempt: n as number,
        workerId: r[2] as string,
        state: state as AttemptState,
        pid: optNum(r[4]),
        exitCode: optNum(r[5]),
        reason: optStr(r[6]),
        startedAt: num(r[7]),
        finishedAt: optNum(r[8]),
        logPath: unpackLogPath(this.logsRoot, r[9] as string, ownerJob, owner?.index ?? 0, n as number),
        devices: parseDevices(r[10]),
        logCutBytes: optNum(r[11]),
        cpuSeconds: optNum(r[12]),
        peakMemoryBytes: optNum(r[13]),
        placement,
        ...(merged ? { merged } : {}),
      };
      model.indexAttempt(attempt);
      if (wrong === null) continue;
      const job = model.tasks.get(attempt.task)?.job ?? null;
      problem(job, `attempt ${attemptHistoryName(attempt.task, attempt.attempt)}: ${wrong}`);
      loaded.repairedAttempts.push(attempt);
    }
    for (const task of model.tasks.values()) model.indexActive(task);
    for (const [id, spec, state] of this.rows('SELECT id, spec, state FROM workers')) {
      try {
        model.workers.set(id as string, {
          ...(JSON.parse(spec as string) as WorkerSpec),
          id: id as string,
          state: state as WorkerState,
        });
      } catch (error) {
        problem(null, `worker ${describeValue(id)}: spec is not JSON (${messageOf(error)}); skipped`);
      }
    }
    for (const r of this.rows('SELECT task, name, address, attempt, job, registered_at FROM endpoints')) {
      model.indexEndpoint({
        task: r[0] as string,
        name: r[1] as string,
        address: r[2] as string,
        attempt: num(r[3]),
        job: r[4] as string,
        registeredAt: num(r[5]),
      });
    }
    for (const [worker, key, expiresAt] of this.rows('SELECT worker, key, expires_at FROM cache_hints')) {
      model.indexCacheHint(worker as string, key as string, num(expiresAt));
    }
    return loaded;
  }

  /** How many task rows the job `name` has (for a job whose spec cannot be read). */
  private taskRowCount(name: string): number {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM tasks WHERE job = ?').get(name) as { n: number };
    return Math.max(1, row.n);
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
      if (a) this.writeAttempt(model, a);
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
    this.run(
      'upsertJob',
      j.name,
      j.parent,
      j.depth,
      packSpec(j.spec),
      j.submittedAt,
      j.rootSubmittedAt,
      j.seq,
      j.state,
      j.reason,
      j.startedAt,
      j.finishedAt,
      j.failedTasks,
      j.run,
      j.cause ? JSON.stringify(j.cause) : null,
    );
  }

  private writeTask(t: Task): void {
    this.run(
      'upsertTask',
      t.id,
      t.job,
      t.index,
      t.state,
      t.attempt,
      t.submittedAt,
      t.seq,
      t.failures,
      t.preemptions,
      t.workerId,
      t.exitCode,
      t.reason,
      t.startedAt,
      t.finishedAt,
      t.eligibleAt,
    );
  }

  private writeAttempt(model: ClusterModel, a: Attempt): void {
    const task = model.tasks.get(a.task);
    const job = task ? model.jobs.get(task.job)?.job : undefined;
    this.run(
      'upsertAttempt',
      a.task,
      a.attempt,
      a.workerId,
      a.state,
      a.pid,
      a.exitCode,
      a.reason,
      a.startedAt,
      a.finishedAt,
      packLogPath(this.logsRoot, a.logPath, job, task?.index ?? 0, a.attempt),
      a.devices.join(','),
      a.logCutBytes,
      a.cpuSeconds,
      a.peakMemoryBytes,
      a.placement ? packPlacement(a.placement) : null,
      a.merged ? JSON.stringify(a.merged) : null,
    );
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
