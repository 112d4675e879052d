/**
 * ClusterStore: the single writer of cluster state, held in memory and persisted to SQLite.
 *
 * Contracts:
 * - Every mutation runs in a transaction (its own, or the caller's via `transaction()`):
 *   all of it commits, durably (WAL + synchronous=FULL), or none of it does — memory included.
 * - Change events (`events.on('change', …)`) are emitted after COMMIT; see events.ts.
 * - Queries return the store's live objects for speed. They are read-only: never mutate them,
 *   and copy one if you need it to stay as it was. Arrays returned are fresh.
 * - `seq` comes from a persisted counter and keeps growing across restarts.
 */
import { EventEmitter } from 'node:events';
import { DatabaseSync } from 'node:sqlite';
import { IrisError } from '../../model/errors.js';
import { isFinalJobState, type AttemptOutcome } from '../../model/states.js';
import type { Attempt, Endpoint, Job, JobSpec, Task, Worker, WorkerSpec } from '../../model/types.js';
import type { HistoryEntry, StopOrder, StoreEvent, StoreEventMap } from './events.js';
import { Journal, type EventKey } from './journal.js';
import { splitKey } from './keys.js';
import { Lifecycle } from './lifecycle.js';
import { ClusterModel } from './model.js';
import { Persistence } from './persist.js';
import { configure, migrate } from './schema.js';
import { prepareSubmit, subtreeOf } from './submit.js';

export type { HistoryEntry, StopOrder, StoreEvent, StoreEventMap } from './events.js';

export interface StoreOptions {
  /** SQLite file, or ':memory:' (tests). */
  path: string;
  now?: () => number;
}

export class ClusterStore {
  readonly events = new EventEmitter<StoreEventMap>();
  private readonly journal = new Journal();
  private readonly model: ClusterModel;
  private readonly life: Lifecycle;
  private readonly persistence: Persistence;
  private closed = false;

  private constructor(private readonly db: DatabaseSync, now: () => number) {
    this.model = new ClusterModel(this.journal, now);
    this.life = new Lifecycle(this.model);
    this.persistence = new Persistence(db);
  }

  /** Open (creating or migrating) the database and load all of it into memory. */
  static open(opts: StoreOptions): ClusterStore {
    const db = new DatabaseSync(opts.path);
    try {
      configure(db, opts.path === ':memory:');
      migrate(db);
      const store = new ClusterStore(db, opts.now ?? Date.now);
      store.persistence.load(store.model);
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  close(): void {
    if (this.closed) return;
    if (this.journal.depth > 0) throw new IrisError('internal', 'ClusterStore.close() inside a transaction');
    this.closed = true;
    this.db.close();
  }

  /**
   * Run `fn` atomically. Nested calls join the outer transaction; if a nested call throws, only
   * its own changes are undone (the error still propagates). Events are emitted after COMMIT;
   * if a listener throws, the remaining events are still emitted and the first error is then
   * rethrown (the change itself stays committed).
   */
  transaction<T>(fn: () => T): T {
    if (this.closed) throw new IrisError('unavailable', 'the cluster store is closed');
    const j = this.journal;
    const mark = j.mark();
    j.depth++;
    let result: T;
    try {
      result = fn();
    } catch (error) {
      j.depth--;
      j.rollbackTo(mark);
      if (j.depth === 0) j.reset();
      throw error;
    }
    j.depth--;
    if (j.depth > 0) return result;
    this.commit();
    return result;
  }

  private commit(): void {
    const j = this.journal;
    if (j.hasWrites) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
        this.persistence.flush(this.model, j);
        this.db.exec('COMMIT');
      } catch (error) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        j.rollbackTo({ undo: 0, history: 0, events: 0 });
        j.reset();
        throw error;
      }
    }
    const keys = j.events;
    const removed = new Map(j.removedEndpoints);
    j.reset();
    this.emit(keys, removed);
  }

  private emit(keys: EventKey[], removed: Map<string, Endpoint>): void {
    let failure: unknown = null;
    for (const key of keys) {
      const event = this.snapshot(key, removed);
      if (!event) continue;
      try {
        this.events.emit('change', event);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  }

  private snapshot(key: EventKey, removed: Map<string, Endpoint>): StoreEvent | null {
    const cut = key.indexOf(':');
    const kind = key.slice(0, cut);
    const id = key.slice(cut + 1);
    switch (kind) {
      case 'job': {
        const job = this.model.jobs.get(id)?.job;
        return job ? { type: 'job', job: { ...job } } : null;
      }
      case 'task': {
        const task = this.model.tasks.get(id);
        return task ? { type: 'task', task: { ...task } } : null;
      }
      case 'attempt': {
        const [task, n] = splitKey(id);
        const attempt = this.model.attempts.get(task)?.[Number(n)];
        return attempt ? { type: 'attempt', attempt: { ...attempt } } : null;
      }
      case 'worker': {
        const worker = this.model.workers.get(id);
        return worker ? { type: 'worker', worker: { ...worker } } : null;
      }
      default: {
        const endpoint = this.model.endpoints.get(id);
        if (endpoint) return { type: 'endpoint', endpoint: { ...endpoint }, removed: false };
        const gone = removed.get(id);
        return gone ? { type: 'endpoint', endpoint: { ...gone }, removed: true } : null;
      }
    }
  }

  // ---- metadata ----

  getMeta(key: string): string | null {
    return this.model.meta.get(key) ?? null;
  }

  setMeta(key: string, value: string): void {
    this.transaction(() => this.model.putMeta(key, value));
  }

  // ---- queries (live, read-only objects) ----

  job(name: string): Job | undefined {
    return this.model.jobs.get(name)?.job;
  }

  task(id: string): Task | undefined {
    return this.model.tasks.get(id);
  }

  *jobs(): Iterable<Job> {
    for (const entry of this.model.jobs.values()) yield entry.job;
  }

  children(name: string): Job[] {
    const out: Job[] = [];
    for (const child of this.model.children.get(name) ?? []) out.push(this.model.jobs.get(child)!.job);
    return out;
  }

  /** All jobs below `name`, parents before children. */
  descendants(name: string): Job[] {
    return subtreeOf(this.model, name).slice(1).map((n) => this.model.jobs.get(n)!.job);
  }

  /** True when `name` and every job below it are in final states (a job no longer stored has ended). */
  subtreeEnded(name: string): boolean {
    const job = this.model.jobs.get(name)?.job;
    if (!job) return true;
    return isFinalJobState(job.state) && this.descendants(name).every((d) => isFinalJobState(d.state));
  }

  tasksOf(job: string): Task[] {
    return [...(this.model.jobs.get(job)?.tasks ?? [])];
  }

  attemptsOf(task: string): Attempt[] {
    return (this.model.attempts.get(task) ?? []).filter((a) => a !== undefined);
  }

  attempt(task: string, n: number): Attempt | undefined {
    return this.model.attempts.get(task)?.[n];
  }

  pendingTasks(): Task[] {
    return [...this.model.pending];
  }

  activeAttempts(): Attempt[] {
    return [...this.model.active.values()];
  }

  workers(): Worker[] {
    return [...this.model.workers.values()];
  }

  worker(id: string): Worker | undefined {
    return this.model.workers.get(id);
  }

  endpoints(prefix?: string): Endpoint[] {
    const all = [...this.model.endpoints.values()];
    return prefix === undefined ? all : all.filter((e) => e.name.startsWith(prefix));
  }

  /** Persisted state-change history of `name` (job, task, worker) and everything below it. */
  history(name: string, opts: { afterId?: number; limit?: number } = {}): HistoryEntry[] {
    return this.persistence.history(name, opts.afterId ?? 0, opts.limit ?? 1000);
  }

  // ---- mutations ----

  /** Upsert the configured workers; keep DRAINED ones drained; drain the ones no longer configured. */
  syncWorkers(specs: WorkerSpec[]): void {
    this.transaction(() => {
      const seen = new Set<string>();
      for (const spec of specs) {
        seen.add(spec.id);
        const old = this.model.workers.get(spec.id);
        const next: Worker = { ...spec, state: old?.state === 'DRAINED' ? 'DRAINED' : 'READY' };
        if (!old || JSON.stringify(old) !== JSON.stringify(next)) this.model.putWorker(next);
      }
      for (const w of [...this.model.workers.values()]) {
        if (!seen.has(w.id) && w.state !== 'DRAINED') this.model.putWorker({ ...w, state: 'DRAINED' });
      }
    });
  }

  submit(spec: JobSpec): Job {
    return this.transaction(() => {
      const { job, tasks, replaces, nextSeq } = prepareSubmit(this.model, spec, this.model.now());
      for (const name of replaces) this.model.removeJob(name);
      this.model.putMeta('seq', String(nextSeq));
      return this.model.addJob(job, tasks).job;
    });
  }

  /** Start attempt `task.attempt` on `workerId`, holding `devices` (indices on that worker) while it is live. */
  assign(taskId: string, workerId: string, logPath: string, devices: readonly number[] = []): Attempt {
    return this.transaction(() => this.life.assign(taskId, workerId, logPath, devices));
  }

  /** Records that the attempt's log was cut at `limitBytes` (its output passed the log limit). */
  markLogCut(taskId: string, attempt: number, limitBytes: number): void {
    this.transaction(() => this.life.markLogCut(taskId, attempt, limitBytes));
  }

  markRunning(taskId: string, attempt: number, pid: number | null): void {
    this.transaction(() => this.life.markRunning(taskId, attempt, pid));
  }

  finishAttempt(taskId: string, attempt: number, outcome: AttemptOutcome): StopOrder[] {
    return this.transaction(() => this.life.finishAttempt(taskId, attempt, outcome));
  }

  cancel(name: string, reason: string): StopOrder[] {
    return this.transaction(() => this.life.cancel(name, reason));
  }

  drainWorker(id: string): StopOrder[] {
    return this.transaction(() => this.life.drainWorker(id));
  }

  preemptAttempt(taskId: string, attempt: number, reason: string): StopOrder[] {
    return this.transaction(() => this.life.preemptAttempt(taskId, attempt, reason));
  }

  markUnschedulable(job: string, reason: string): StopOrder[] {
    return this.transaction(() => this.life.markUnschedulable(job, reason));
  }

  /** Set the scheduler's "why still pending" text of PENDING jobs (memory only; events only on change). */
  setPendingReasons(reasons: Map<string, string>): void {
    this.transaction(() => {
      for (const [name, reason] of reasons) {
        const job = this.model.jobs.get(name)?.job;
        if (job && job.state === 'PENDING' && job.reason !== reason) this.model.patchJob(job, { reason }, false);
      }
    });
  }

  registerEndpoint(e: Omit<Endpoint, 'registeredAt'>): Endpoint {
    return this.transaction(() => {
      const task = this.life.taskOrThrow(e.task);
      const live = this.model.active.get(e.task);
      if (!live || live.attempt !== e.attempt) {
        throw new IrisError('conflict', `task ${e.task} attempt ${e.attempt} is not running; cannot register endpoint "${e.name}"`);
      }
      const endpoint: Endpoint = { name: e.name, address: e.address, task: e.task, attempt: e.attempt, job: task.job, registeredAt: this.model.now() };
      this.model.putEndpoint(endpoint);
      return endpoint;
    });
  }

  removeEndpointsOf(taskId: string): void {
    this.transaction(() => this.life.removeEndpointsOf(taskId));
  }

  /** Delete finished root trees that ended before `before`. Returns the number of jobs deleted. */
  pruneFinished(before: number): number {
    return this.transaction(() => {
      let count = 0;
      for (const entry of [...this.model.jobs.values()]) {
        const { job } = entry;
        if (!this.model.jobs.has(job.name)) continue; // went with its tree already
        if (job.parent !== null && this.model.jobs.has(job.parent)) continue; // not a root of what is known
        if (job.finishedAt === null || job.finishedAt >= before) continue;
        const tree = subtreeOf(this.model, job.name);
        if (tree.some((n) => this.model.jobs.get(n)!.job.finishedAt === null)) continue;
        for (const n of tree) this.model.removeJob(n);
        count += tree.length;
      }
      return count;
    });
  }
}
