/**
 * ClusterStore: the single writer of cluster state, held in memory and persisted to SQLite.
 *
 * Contracts (transactions, events and a full disk: store-core.ts):
 * - Queries return the store's live objects for speed. They are read-only: never mutate them,
 *   and copy one if you need it to stay as it was. Arrays returned are fresh.
 * - `seq` and `run` come from persisted counters and keep growing across restarts.
 * - Every mutation runs in a transaction (StoreCore.transaction): all of it or none of it.
 */
import type { Band } from '../../model/band.js';
import { changeBand } from '../lifecycle/bands.js';
import type { DatabaseSync } from 'node:sqlite';
import { IrisError, conflict } from '../../model/errors.js';
import { noSpaceError } from '../../model/storage.js';
import { isFinalJobState, type AttemptOutcome, type JobState } from '../../model/states.js';
import { cascadedDependents, dependenciesStatus, waitingForReason } from '../lifecycle/dependencies.js';
import type {
  Attempt,
  DisabledBy,
  Endpoint,
  Job,
  JobSpec,
  PlacementDecision,
  Task,
  Worker,
  WorkerLeft,
  WorkerSpec,
} from '../../model/types.js';
import { isPresent } from '../../model/types.js';
import { attemptHistoryName, type ExecRecord, type HistoryEntry, type StopOrder } from './events.js';
import { StoreCore } from './store-core.js';
import { RESERVE_BYTES, SpaceReserve, fullDisk } from './reserve.js';
import { openReadable, openWritable } from './database.js';
import { asDamage } from './integrity.js';
import type { LoadedState } from './persist.js';
import { messageOf, type LoadProblem } from './load-check.js';
import { Quarantines } from './quarantine.js';
import { archivedRun, prepareSubmit, replacedBySubmit, subtreeOf } from './submit.js';
import { guardedReader, type ArchiveReader } from './archive.js';
import type { RuntimeHistory } from '../scheduler/planner/index.js';
import type { ResultRow } from './results.js';
import { pruneRuns, type PruneOptions, type PrunedRun } from './retention.js';
import { FINISHED_KEPT, treesToArchive, type FinishedLimits } from './finished-trees.js';
import { PendingReasons } from './pending-reasons.js';
import { dropExpiredHints, hintsAt } from './cache-hints.js';
import { syncWorkerRows } from './worker-sync.js';
import { chooseWindow, overlaps, type AttemptKey, type WindowAttempt } from './timeline.js';
import {
  assign,
  assignMerged,
  attemptEnded,
  attemptOrThrow,
  markRunning,
  preemptAttempt,
  taskOrThrow,
} from '../lifecycle/attempts.js';
import type { Item, LifecycleView } from '../lifecycle/changes.js';
import { cancelJob, cancelTask, markUnschedulable, waitsOnDependencies } from '../lifecycle/jobs.js';
import { disableWorker, drainWorker, enableWorker, resumeWorker } from '../lifecycle/workers.js';
import type { CacheHint } from '../scheduler/types.js';

export type { ResultRow } from './results.js';
export type { ExecRecord, HistoryEntry, StopOrder, StoreEvent, StoreEventMap } from './events.js';
export type { ArchivedRun, ArchiveReader, RunFilter } from './archive.js';
export type { PruneOptions, PrunedRun } from './retention.js';
export type { LoadProblem } from './load-check.js';

export interface StoreOptions {
  /** SQLite file, or ':memory:' (tests). */
  path: string;
  now?: () => number;
  /** Size of the space reserve beside the database (reserve.ts; default RESERVE_BYTES; 0: none). */
  reserveBytes?: number;
  /**
   * Read the database as it was saved, changing nothing (no migration, no reserve, no writes):
   * how commands show the state of a stopped cluster. Refuses a database of another schema
   * version. Any write fails (SQLite refuses it). Takes no lock and creates no file: a database
   * with changes waiting in its WAL is read from a private copy (database.ts `openSaved`).
   */
  readOnly?: boolean;
  /**
   * Thrown, instead of initialising the database (or reading it as empty, with `readOnly`), when
   * it holds nothing: a 0-byte or missing file, or no table and schema version 0. For a state
   * directory that holds traces of earlier runs, which a new database would orphan.
   */
  ifEmpty?: Error;
  /** Config `placement.cache-ttl` (cache-hints.ts); default 1 hour. */
  cacheTtlMs?: number;
}

export class ClusterStore extends StoreCore {
  /** The pass reasons of jobs with pending tasks, and the sticky waits they start (pending-reasons.ts). */
  private readonly reasons = new PendingReasons(this.model);
  private readonly quarantines = new Quarantines(
    this.life,
    this.model,
    (fn) => this.transaction(fn),
    (fn) => this.inMemory(fn),
  );

  private constructor(db: DatabaseSync, now: () => number, path: string, reserve: SpaceReserve | null) {
    super(db, now, path, reserve);
  }

  /**
   * Open (creating or migrating) the database and load all of it into memory. The connection
   * holds the database's lock for the store's life (database.ts): another connection to the file
   * gets SQLite's SQLITE_BUSY (`isLocked`) and nothing else is done. A database that cannot be
   * trusted (integrity.ts, `quick_check` included) is refused with `<path> is damaged: …`. On a
   * full disk the space reserve is given up when opening needs room (a new database, a
   * migration); when even that fails the error says the disk is full.
   */
  static open(opts: StoreOptions): ClusterStore {
    if (opts.readOnly) {
      const { db, empty } = openReadable(opts.path, opts.ifEmpty);
      try {
        return ClusterStore.loaded(db, opts, null, !empty, false);
      } catch (error) {
        db.close();
        throw asDamage(error, opts.path) ?? error;
      }
    }
    const memory = opts.path === ':memory:';
    const reserveBytes = memory ? 0 : (opts.reserveBytes ?? RESERVE_BYTES);
    const reserve = reserveBytes > 0 ? new SpaceReserve(`${opts.path}.reserve`, reserveBytes) : null;
    const db = openWritable(opts.path, reserve, opts.ifEmpty);
    try {
      const store = ClusterStore.loaded(db, opts, reserve, true, true);
      // Started on a full disk: serve what is known, accept nothing new until space returns.
      if (reserve && (!(store.reserveHeld = reserve.ensure()) || fullDisk(opts.path)))
        store.problem = noSpaceError(opts.path);
      return store;
    } catch (error) {
      db.close();
      throw asDamage(error, opts.path) ?? error;
    }
  }

  /**
   * The store over `db`, with every table loaded (none when `load` is false: an empty database read
   * as such); rows the load could not read are quarantined, in the database when `writable`.
   */
  private static loaded(
    db: DatabaseSync,
    opts: StoreOptions,
    reserve: SpaceReserve | null,
    load: boolean,
    writable: boolean,
  ): ClusterStore {
    const store = new ClusterStore(db, opts.now ?? Date.now, opts.path, reserve);
    if (opts.cacheTtlMs !== undefined) store.model.cacheTtlMs = opts.cacheTtlMs;
    if (!load) return store;
    const loaded = store.persistence.load(store.model);
    store.model.rebuildRuntimes(store.archivedRuntimes());
    store.holdWaiting(loaded);
    store.quarantines.loaded(loaded, writable);
    return store;
  }

  /** The archived successful runs for the runtime history; none when the archive cannot be read (read-only, old). */
  private archivedRuntimes(): ReturnType<ClusterStore['persistence']['archive']['succeededRuntimes']> {
    try {
      return this.persistence.archive.succeededRuntimes();
    } catch {
      return [];
    }
  }

  /** After loading: the jobs whose dependencies are not met yet wait again (it is not stored, it is derived). */
  private holdWaiting(loaded: LoadedState): void {
    for (const entry of this.model.jobs.values()) {
      if (!entry.job.spec.after?.length || isFinalJobState(entry.job.state)) continue;
      try {
        if (dependenciesStatus(entry.job.spec.after, this.stateOf).kind === 'waiting') this.model.holdLoaded(entry);
      } catch (error) {
        loaded.problems.push({ job: entry.job.name, problem: `its dependencies cannot be read (${messageOf(error)})` });
      }
    }
  }

  /**
   * Jobs quarantined at start-up and rows skipped (`job` null), with what was wrong, for the daemon
   * to log once: rows the load could not read (load-check.ts), recoveries that failed (quarantine).
   */
  get quarantined(): readonly LoadProblem[] {
    return this.quarantines.list;
  }

  /**
   * Quarantine the job `name` at start-up because its recovery failed with `problem`: it ends
   * FAILED with `quarantined at start-up: <problem>` (lifecycle/jobs.ts quarantine), and is listed in
   * `quarantined`. False when even that failed (the job is left as it is).
   */
  quarantine(name: string, problem: string): boolean {
    return this.quarantines.job(name, problem);
  }

  private readonly stateOf = (name: string): JobState | undefined => this.model.jobs.get(name)?.job.state;

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

  /**
   * The state of the latest run of `name`: its live job's, or, when none is held (finished work
   * leaves memory: finished-trees.ts), its newest archived run's; undefined for a name never run.
   */
  jobState(name: string): JobState | undefined {
    return this.model.jobs.get(name)?.job.state ?? this.archivedState(name);
  }

  /** The state of the newest archived run of `name` (an ended job no longer held live), or undefined. */
  private readonly archivedState = (name: string): JobState | undefined => this.archive.latestState(name);

  /** Live jobs held in memory that have ended (finished-trees.ts bounds them). */
  get finishedHeld(): number {
    let n = 0;
    for (const entry of this.model.jobs.values()) if (isFinalJobState(entry.job.state)) n++;
    return n;
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
    return subtreeOf(this.model, name)
      .slice(1)
      .map((n) => this.model.jobs.get(n)!.job);
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

  /** The job's tasks as the store holds them (no copy; read-only, read before the next change). */
  liveTasksOf(job: string): readonly Task[] {
    return this.model.jobs.get(job)?.tasks ?? [];
  }

  attemptsOf(task: string): Attempt[] {
    return (this.model.attempts.get(task) ?? []).filter((a) => a !== undefined);
  }

  attempt(task: string, n: number): Attempt | undefined {
    return this.model.attempts.get(task)?.[n];
  }

  /**
   * At most `limit` of the attempts that overlapped [from, to], those of archived runs included
   * (timeline.ts: index reads, not a walk over every attempt; past the limit those that ended
   * earliest are left out, and `truncated` says so), newest start first; a live run's attempts as
   * the store holds them now. While the disk is full and the database cannot be read back, none.
   */
  attemptsDuring(from: number, to: number, limit: number): { attempts: WindowAttempt[]; truncated: boolean } {
    const window = this.persistence.window;
    const held = (keys: AttemptKey[]) =>
      keys
        .map((key) => this.attempt(key.task, key.attempt))
        .filter((a): a is Attempt => a !== undefined && overlaps(a.startedAt, a.finishedAt, from, to));
    // One more than the limit tells whether there were more.
    const read = () =>
      chooseWindow(
        held(window.liveKeys(to, limit + 1)),
        [...held(window.endedKeys(from, to, limit + 1)), ...window.archived(from, to, limit + 1)],
        limit,
      );
    return this.readBack(read, { attempts: [], truncated: false });
  }

  /** Every PENDING task, those of jobs waiting on their dependencies included. */
  pendingTasks(): Task[] {
    const out = [...this.model.pending];
    for (const entry of this.model.waitingJobs) for (const t of entry.tasks) if (t.state === 'PENDING') out.push(t);
    return out;
  }

  /** The PENDING tasks in the scheduler's queue: those of jobs not waiting on dependencies (live Set, read-only). */
  queuedTasks(): ReadonlySet<Task> {
    return this.model.pending;
  }

  /**
   * From now on, log the tasks that join the queue and the band changes that move queued jobs
   * (ClusterModel.logQueue); `takeQueueLog` hands the log over and starts a new one. The first
   * log says `reorder`: the reader sorts what is queued then.
   */
  logQueue(): void {
    this.model.logQueue();
  }

  takeQueueLog(): { arrivals: Task[]; reorder: boolean } {
    return this.model.takeQueueLog();
  }

  /** Whether a stored job depends on `name` (names it in `after`). */
  dependedOn(name: string): boolean {
    return this.model.dependents.has(name);
  }

  /**
   * How many jobs still wait on their dependencies (their tasks are not in the queue yet). A job that
   * ended waiting (a dependency that failed, a cancel) keeps its hold in the model but waits no more.
   */
  waitingJobCount(): number {
    return [...this.waitingJobs()].length;
  }

  /** The jobs still waiting on their dependencies (see waitingJobCount). */
  *waitingJobs(): Iterable<Job> {
    for (const entry of this.model.waitingJobs) if (!isFinalJobState(entry.job.state)) yield entry.job;
  }

  /**
   * The pending reason of a job waiting on its dependencies (`waiting for /prep (RUNNING)`), or null when it does not
   * wait.
   */
  dependencyWait(name: string): string | null {
    const entry = this.model.jobs.get(name);
    if (!entry?.waiting) return null;
    const status = dependenciesStatus(entry.job.spec.after, this.stateOf);
    return status.kind === 'waiting' ? waitingForReason(status.on, status.state) : null;
  }

  activeAttempts(): Attempt[] {
    return [...this.model.active.values()];
  }

  /**
   * The workers of the cluster: every live view's (`iris workers`, capacity, pending reasons, metrics).
   * One that left (worker-sync.ts) is among them only while attempts still run there (DRAINING).
   */
  workers(): Worker[] {
    return [...this.model.workers.values()].filter(isPresent);
  }

  /** A worker by id, one that left the cluster included (its history, and the refusal that says it left). */
  worker(id: string): Worker | undefined {
    return this.model.workers.get(id);
  }

  /**
   * The context-reuse hints in force at `now` (cache-hints.ts hintsAt): worker id -> key -> hint, loading ones
   * included.
   */
  cacheHints(now: number = this.model.now()): Map<string, Map<string, CacheHint>> {
    return hintsAt(this.model, now);
  }

  endpoints(prefix?: string): Endpoint[] {
    const all = [...this.model.endpoints.values()];
    return prefix === undefined ? all : all.filter((e) => e.name.startsWith(prefix));
  }

  /** The last successful runtimes per user and job name: what the planner predicts runtimes from. */
  get runtimes(): RuntimeHistory {
    return this.model.runtimes;
  }

  /**
   * The run archive (archive.ts): runs that a new submission of their name replaced, read with
   * SQL (nothing of it is held in memory). While the disk is full and the database cannot be
   * read, its reads answer as if it were empty.
   */
  get archive(): ArchiveReader {
    return guardedReader(
      this.persistence.archive,
      () => this.problem !== null,
      (error) => asDamage(error, this.path) ?? error,
    );
  }

  /**
   * Retention (retention.ts): the runs that ended before `cutoff` — whole live trees and archived
   * runs — removed with their events unless `dryRun`. Their log files are the caller's to delete.
   */
  prune(cutoff: number, options: PruneOptions): PrunedRun[] {
    return this.transaction(() => {
      const pruned = pruneRuns(this.model, this.persistence.archive, cutoff, options);
      if (!options.dryRun) dropExpiredHints(this.model, this.model.now());
      return pruned;
    });
  }

  /**
   * Finished work leaves memory (finished-trees.ts): the finished trees beyond `limits` (oldest
   * first, at most `batch` trees per call) are archived as runs and leave the live model, in one
   * transaction. `busy` names jobs that still hold a stopping attempt (they stay). Returns the
   * jobs archived and whether trees beyond the batch are left for another call.
   */
  archiveFinished(
    busy: (job: string) => boolean,
    limits: FinishedLimits = FINISHED_KEPT,
    batch = 5000,
  ): { jobs: number; more: boolean } {
    const trees = treesToArchive(this.model, limits, busy);
    if (trees.length === 0) return { jobs: 0, more: false };
    const now = trees.slice(0, batch);
    const jobs = this.transaction(() => {
      let count = 0;
      for (const names of now) {
        // Records first: a parent's names its children's runs, read before they leave.
        const records = names.map((name) => archivedRun(this.model, name));
        for (const record of records) this.model.archiveRun(record);
        for (const name of names) this.model.removeJob(name);
        count += names.length;
      }
      return count;
    });
    return { jobs, more: trees.length > now.length };
  }

  /** Persisted state-change history of `name` (job, task, worker) and everything below it. */
  history(name: string, opts: { afterId?: number; limit?: number } = {}): HistoryEntry[] {
    return this.readBack(() => this.persistence.history(name, opts.afterId ?? 0, opts.limit ?? 1000), []);
  }

  // ---- mutations ----

  /**
   * The cluster's workers now (worker-sync.ts): upsert them, keeping DRAINED ones drained and DISABLED ones
   * disabled; the others leave the cluster (`by`: they left the config, or their node was deleted).
   */
  syncWorkers(specs: readonly WorkerSpec[], by: WorkerLeft['by'] = 'config'): void {
    this.transaction(() => syncWorkerRows(this.model, specs, by, this.model.now()));
  }

  /** Durable: refused with `no space left on …` while the store cannot write (see the header). */
  submit(spec: JobSpec): Job {
    return this.transaction(() => {
      const { job, tasks, replaces, archive, nextSeq, nextRun } = prepareSubmit(
        this.model,
        spec,
        this.model.now(),
        this.archivedState,
      );
      for (const entry of archive) this.model.archiveRun(entry);
      for (const name of replaces) this.model.removeJob(name);
      const waiting = waitsOnDependencies(this.life.view, job, this.archivedState);
      this.model.putMeta('seq', String(nextSeq));
      this.model.putMeta('run', String(nextRun));
      return this.model.addJob(job, tasks, waiting).job;
    }, true);
  }

  /**
   * Submit several jobs as one: all of them or none (durable), in the order given, so a job may
   * name an earlier one as its parent or dependency (a pipeline's root and its stages).
   */
  submitAll(specs: readonly JobSpec[]): Job[] {
    return this.transaction(() => specs.map((spec) => this.submit(spec)), true);
  }

  /**
   * Throws at once the conflict a submission of `name` would meet (its job or a job below it has
   * not ended: submit.ts replacedBySubmit); returns the names it would replace ([] for a new name).
   */
  replacedBySubmit(name: string): string[] {
    return replacedBySubmit(this.model, name);
  }

  /**
   * The names `retry(name, downstream)` would run again, or the refusal it would meet (the same
   * checks, made at once, without changing anything).
   */
  retryNames(name: string, downstream: boolean): string[] {
    return this.retryJobs(name, downstream).map((job) => job.name);
  }

  /** The jobs `retryNames` names, live or (the job alone) archived: read once per retry. */
  private retryJobs(name: string, downstream: boolean): Job[] {
    const job = this.model.jobs.get(name)?.job ?? this.archivedToRetry(name, downstream);
    if (!isFinalJobState(job.state))
      throw conflict(
        `job ${name} is still ${job.state}`,
        `only an ended job can be retried: wait for it (iris wait ${name}) or cancel it first`,
      );
    if (job.state === 'SUCCEEDED')
      throw conflict(`job ${name} succeeded`, `to run it once more, submit it again (iris submit --name ${name} …)`);
    const names = downstream ? this.cascadedFrom(name) : [name];
    for (const n of names) replacedBySubmit(this.model, n);
    return names.map((n) => (n === name ? job : this.model.jobs.get(n)!.job));
  }

  /**
   * Run an ended job again (`iris retry`): a new run of the name with the same spec, in place of
   * the old one (archived with its subtree, as at submit). With `downstream`, also the jobs its
   * failure cascaded to (dependencies.ts cascadedDependents), each a new run waiting on the job
   * before it again. All of them or none (durable). Refused: an unknown job (not_found), one that
   * has not ended or that succeeded (conflict). Returns the new jobs, the retried one first.
   */
  retry(name: string, downstream: boolean): Job[] {
    return this.transaction(() => {
      const specs = this.retryJobs(name, downstream).map((job) => job.spec);
      return specs.map((spec) => this.submit(spec));
    }, true);
  }

  /**
   * The newest archived run of a job that ended and left memory (finished-trees.ts), which `retry`
   * runs again like a live ended job. not_found when there is none; with `downstream` a conflict:
   * the jobs its failure cascaded to are found among the live jobs only.
   */
  private archivedToRetry(name: string, downstream: boolean): Job {
    const record = this.archive.latest(name);
    if (!record) throw new IrisError('not_found', `job ${name} not found`, 'list jobs with `iris jobs`');
    if (downstream && record.job.state !== 'SUCCEEDED')
      throw conflict(
        `job ${name} has left memory (archived), and --downstream finds only the jobs still held live`,
        `retry it without --downstream, then the jobs after it, or raise \`keep-finished\` in the cluster config`,
      );
    return record.job;
  }

  /**
   * For a dry run: what a job of `spec` submitted now would wait for (`waiting for /prep
   * (RUNNING)`), or null when nothing; throws the submit's conflict when a dependency can never be met.
   */
  dependencyPreview(spec: JobSpec): string | null {
    if (!waitsOnDependencies(this.life.view, { name: spec.name, spec }, this.archivedState)) return null;
    const status = dependenciesStatus(spec.after, this.stateOf);
    return status.kind === 'waiting' ? waitingForReason(status.on, status.state) : null;
  }

  /** Names `retry(name, true)` would run again: the job and the jobs its failure cascaded to. */
  cascadedFrom(name: string): string[] {
    return [
      name,
      ...cascadedDependents(
        name,
        (n) => this.model.dependents.get(n) ?? [],
        (n) => this.model.jobs.get(n)?.job,
      ),
    ];
  }

  /**
   * Start a new attempt of a pending task on `workerId`, holding `devices` (indices on that worker)
   * while it is live; `placement`: how adaptive placement chose it (kept on the attempt).
   */
  assign(
    taskId: string,
    workerId: string,
    logPath: string,
    devices: readonly number[] = [],
    placement: PlacementDecision | null = null,
  ): Attempt {
    return this.transaction(() => {
      const now = this.model.now();
      const { attempt, items } = assign(this.life.view, taskId, workerId, logPath, devices, placement, now);
      this.life.run(items, now);
      return attempt;
    });
  }

  /**
   * A merged batch (lifecycle/attempts.ts assignMerged): the lead's attempt on `workerId` holding
   * `devices`, and one attempt for each of `members` that follows it. Returns the lead's attempt.
   */
  assignMerged(
    taskId: string,
    members: readonly string[],
    workerId: string,
    logPath: string,
    devices: readonly number[],
    placement: PlacementDecision | null,
  ): Attempt {
    return this.transaction(() => {
      const now = this.model.now();
      const decided = assignMerged(this.life.view, taskId, members, workerId, logPath, devices, placement, now);
      this.life.run(decided.items, now);
      return decided.attempt;
    });
  }

  /** Records that the attempt's log was cut at `limitBytes` (its output passed the log limit). */
  markLogCut(taskId: string, attempt: number, limitBytes: number): void {
    this.transaction(() => {
      const a = attemptOrThrow(this.life.view, taskId, attempt);
      if (a.logCutBytes !== limitBytes) this.model.patchAttempt(a, { logCutBytes: limitBytes });
    });
  }

  /** Records what the attempt used (measured by its runtime when it ended). */
  recordUsage(taskId: string, attempt: number, usage: Pick<Attempt, 'cpuSeconds' | 'peakMemoryBytes'>): void {
    this.transaction(() => {
      const a = attemptOrThrow(this.life.view, taskId, attempt);
      if (a.cpuSeconds !== usage.cpuSeconds || a.peakMemoryBytes !== usage.peakMemoryBytes) {
        this.model.patchAttempt(a, { cpuSeconds: usage.cpuSeconds, peakMemoryBytes: usage.peakMemoryBytes });
      }
    });
  }

  markRunning(taskId: string, attempt: number, pid: number | null): void {
    this.transaction(() => this.life.decide((view, now) => markRunning(view, taskId, attempt, pid, now)));
  }

  finishAttempt(taskId: string, attempt: number, outcome: AttemptOutcome): StopOrder[] {
    return this.transaction(() => this.life.decide((view, now) => attemptEnded(view, taskId, attempt, outcome, now)));
  }

  cancel(name: string, reason: string): StopOrder[] {
    return this.transaction(() => this.life.decide((view) => cancelJob(view, name, reason)));
  }

  /** Cancel one task of a job (lifecycle/jobs.ts cancelTask); returns what the controller must stop. */
  cancelTask(taskId: string, reason: string): StopOrder[] {
    return this.transaction(() => this.life.decide((view) => cancelTask(view, taskId, reason)));
  }

  drainWorker(id: string): StopOrder[] {
    return this.transaction(() => this.life.decide((view) => drainWorker(view, id)));
  }

  /** Disable a worker (lifecycle/workers.ts): no new placements, running tasks go on. False: no change. */
  disableWorker(id: string, by: DisabledBy, reason: string): boolean {
    return this.transaction(() => this.changed((view, now) => disableWorker(view, id, by, reason, now)));
  }

  /** Enable a DISABLED worker (lifecycle/workers.ts); `onlyBy`: only one that party disabled. False: no change. */
  enableWorker(id: string, onlyBy?: DisabledBy): boolean {
    return this.transaction(() => this.changed((view) => enableWorker(view, id, onlyBy)));
  }

  /** Within a transaction: apply a decision that returns no stop orders; whether it changed anything. */
  private changed(decide: (view: LifecycleView, now: number) => readonly Item[]): boolean {
    const now = this.model.now();
    const items = decide(this.life.view, now);
    this.life.run(items, now);
    return items.length > 0;
  }

  /** Undrain a DRAINED worker (conflict otherwise, or when it left the cluster: lifecycle/workers.ts). */
  resumeWorker(id: string): void {
    this.transaction(() => this.life.decide((view) => resumeWorker(view, id)));
  }

  preemptAttempt(taskId: string, attempt: number, reason: string): StopOrder[] {
    return this.transaction(() => this.life.decide((view, now) => preemptAttempt(view, taskId, attempt, reason, now)));
  }

  /** Move a job (and any live job below it in a higher band) to `band` (lifecycle/bands.ts); the jobs changed. */
  setBand(name: string, band: Band): string[] {
    const changed: string[] = [];
    this.transaction(
      () =>
        this.life.decide((view) => {
          const changes = changeBand(view, name, band);
          for (const change of changes) if (change.kind === 'job') changed.push(change.job.name);
          return changes;
        }),
      true,
    );
    return changed;
  }

  markUnschedulable(job: string, reason: string): StopOrder[] {
    return this.transaction(() => this.life.decide((view) => markUnschedulable(view, job, reason)));
  }

  /**
   * The last pass's reason for a job's pending tasks (PENDING or partly running), or null. Held in
   * memory only: every pass gives it again. A PENDING job also keeps it as its `reason`.
   */
  waitingReason(job: string): string | null {
    return this.reasons.of(job);
  }

  /**
   * Set the scheduler's "why still pending" text of PENDING jobs (memory only; events only on
   * change), and record the `sticky_worker_busy` requeue events of waits that start (pending-reasons.ts).
   */
  setPendingReasons(reasons: Map<string, string>): void {
    this.reasons.remember(reasons);
    this.transaction(() => this.reasons.apply(reasons));
  }

  registerEndpoint(e: Omit<Endpoint, 'registeredAt'>): Endpoint {
    return this.transaction(() => {
      const task = taskOrThrow(this.life.view, e.task);
      const live = this.model.active.get(e.task);
      if (!live || live.attempt !== e.attempt) {
        throw new IrisError(
          'conflict',
          `task ${e.task} attempt ${e.attempt} is not running; cannot register endpoint "${e.name}"`,
        );
      }
      const endpoint: Endpoint = {
        name: e.name,
        address: e.address,
        task: e.task,
        attempt: e.attempt,
        job: task.job,
        registeredAt: this.model.now(),
      };
      this.model.putEndpoint(endpoint);
      return endpoint;
    });
  }

  /**
   * Store results set by attempt `attempt` of `taskId`, which must be running (conflict
   * otherwise). Written at once in their own SQLite transaction, durably, outside any store
   * transaction (results are never held in memory: results.ts); refused with `no space left on
   * …` while the store cannot write, like a submission. Values are checked by the caller
   * (model/results.ts); the per-attempt key cap is checked here. The lead of a merged batch sets
   * them for every member still live too (docs/architecture.md, "Task merging").
   */
  setResults(taskId: string, attempt: number, entries: Readonly<Record<string, string>>): void {
    const task = taskOrThrow(this.life.view, taskId);
    const live = this.model.active.get(taskId);
    if (!live || live.attempt !== attempt) {
      throw conflict(
        `task ${taskId} attempt ${attempt} is not running; its results can no longer be set`,
        'results are set by a running task, before it exits',
      );
    }
    const run = this.model.jobs.get(task.job)!.job.run;
    this.writeDirect('setResults', () => this.results.put(run, task.index, attempt, entries, this.model.now(), taskId));
    if (!live.merged || live.merged.lead !== taskId) return;
    for (const id of live.merged.tasks) {
      const member = this.model.active.get(id);
      const t = id === taskId ? undefined : this.life.view.task(id);
      if (!t || member?.merged?.lead !== taskId) continue;
      const memberRun = this.model.jobs.get(t.job)!.job.run;
      this.writeDirect('setResults', () =>
        this.results.put(memberRun, t.index, member.attempt, entries, this.model.now(), id),
      );
    }
  }

  /**
   * Every stored result row of a job run (live or archived), by task index and key; filter with results.ts `current`.
   */
  resultRows(run: number): ResultRow[] {
    return this.readBack(() => this.results.ofRun(run), []);
  }

  /** Stored result counts of a job run by task index and attempt; count with results.ts `countCurrent`. */
  resultCounts(run: number): { index: number; attempt: number; n: number }[] {
    return this.readBack(() => this.results.countsOf(run), []);
  }

  /**
   * Records an `iris exec` into attempt `attempt` of `taskId` (who ran which command): an `exec`
   * row of its run's history, written at once; `iris status` lists them (docs/cli.md, "iris exec").
   */
  recordExec(taskId: string, attempt: number, record: ExecRecord): void {
    const task = this.model.tasks.get(taskId);
    const run = (task && this.model.jobs.get(task.job)?.job.run) ?? null;
    this.transaction(() => this.model.recordExec(attemptHistoryName(taskId, attempt), JSON.stringify(record), run));
  }

  removeEndpointsOf(taskId: string): void {
    this.transaction(() => this.model.dropEndpointsOf(taskId));
  }
}
