/**
 * The in-memory cluster model and the only primitives that change it.
 *
 * Invariants (kept by the primitives, relied on by queries):
 * - `pending` holds exactly the tasks in PENDING of jobs that do not wait on dependencies (the
 *   scheduler's queue); `waitingJobs` holds exactly the entries whose `waiting` is set (jobs
 *   whose dependencies are not met yet: their PENDING tasks are in no queue). `dependents`
 *   indexes every stored job by the names it depends on (`spec.after`). `active` maps exactly the tasks in
 *   ASSIGNED/RUNNING to their current attempt (`attempts[task][task.attempt]`).
 * - `tasks` is no map of its own: it finds a task through its job's entry (task-lookup.ts), so a
 *   task is held once, in `JobEntry.tasks` (and in `pending` while queued).
 * - `JobEntry.counts` is the tally of its tasks' states; `children` indexes jobs by parent
 *   name, also for parents that do not exist (orphans).
 * - Every primitive records an undo step, marks the rows to write and queues a change event
 *   in the journal; state changes are checked against the transition tables and appended to
 *   the history. Nothing else may mutate the objects held here.
 * - `runtimes` holds, per user and job name, the per-task runtimes (planner/prediction.ts
 *   `runRuntime`: the mean of its tasks' final attempts) of the last two runs that succeeded, live
 *   and archived: patchJob records a job's success, the store rebuilds it at load (`rebuildRuntimes`).
 * - `cacheHints` holds only hints of configured workers; expired ones may linger until
 *   cache-hints.ts drops them (readers filter by time).
 */
import { isActiveTaskState } from '../../model/states.js';
import { disableText, type Attempt, type Endpoint, type Job, type Task, type Worker } from '../../model/types.js';
import type { RequeueReason } from '../../model/requeue.js';
import { DEFAULT_CACHE_TTL_MS } from '../../model/workload.js';
import { attemptHistoryName, type HistoryEntry } from './events.js';
import type { Journal } from './journal.js';
import { TaskLookup } from './task-lookup.js';
import type { ArchivedRun } from './archive.js';
import { attemptKey, endpointKey, hintKey } from './keys.js';
import { RuntimeHistory, runRuntime, runtimeKey } from '../scheduler/planner/index.js';
import { assertJobTransition, assertTaskTransition, emptyCounts, type TaskCounts } from '../lifecycle/transitions.js';

export interface JobEntry {
  job: Job;
  /** By index. */
  tasks: Task[];
  counts: TaskCounts;
  /** Waiting on its dependencies (dependencies.ts): its PENDING tasks are kept out of `pending`. */
  waiting: boolean;
}

export class ClusterModel {
  readonly jobs = new Map<string, JobEntry>();
  readonly tasks = new TaskLookup(this.jobs);
  /** Attempts of a task, by attempt number. */
  readonly attempts = new Map<string, Attempt[]>();
  readonly children = new Map<string, Set<string>>();
  readonly pending = new Set<Task>();
  readonly waitingJobs = new Set<JobEntry>();
  /** Dependency name -> names of the stored jobs that depend on it. */
  readonly dependents = new Map<string, Set<string>>();
  readonly active = new Map<string, Attempt>();
  readonly workers = new Map<string, Worker>();
  readonly endpoints = new Map<string, Endpoint>();
  readonly endpointsByTask = new Map<string, Set<string>>();
  readonly meta = new Map<string, string>();
  /** The last successful runtimes per user and job name (the planner's runtime predictions). */
  readonly runtimes = new RuntimeHistory();
  /** Context-reuse cache hints (cache-hints.ts): worker id -> key -> expiry (epoch ms). */
  readonly cacheHints = new Map<string, Map<string, number>>();
  /** Config `placement.cache-ttl`: how long a worker holds a key after a task using it ended there. */
  cacheTtlMs = DEFAULT_CACHE_TTL_MS;
  /** Tasks that joined `pending` since last taken, and whether a band changed (logQueue); null: not kept. */
  private queueLog: { arrivals: Task[]; reorder: boolean } | null = null;

  constructor(
    readonly journal: Journal,
    readonly now: () => number,
  ) {}

  // ---- indexing (shared by loading and the primitives; no journal) ----

  indexJob(job: Job, tasks: Task[], waiting = false): JobEntry {
    const entry: JobEntry = { job, tasks, counts: emptyCounts(), waiting };
    this.jobs.set(job.name, entry);
    if (waiting) this.waitingJobs.add(entry);
    if (job.parent !== null) {
      let set = this.children.get(job.parent);
      if (!set) this.children.set(job.parent, (set = new Set()));
      set.add(job.name);
    }
    this.indexDependencies(job);
    for (const t of tasks) this.indexTask(entry, t);
    return entry;
  }

  private indexDependencies(job: Job): void {
    for (const dep of job.spec.after ?? []) {
      let set = this.dependents.get(dep.job);
      if (!set) this.dependents.set(dep.job, (set = new Set()));
      set.add(job.name);
    }
  }

  private unindexDependencies(job: Job): void {
    for (const dep of job.spec.after ?? []) {
      const set = this.dependents.get(dep.job);
      set?.delete(job.name);
      if (set?.size === 0) this.dependents.delete(dep.job);
    }
  }

  indexTask(entry: JobEntry, task: Task): void {
    entry.tasks[task.index] = task;
    entry.counts[task.state]++;
    if (task.state === 'PENDING' && !entry.waiting) this.enqueue(task);
  }

  /** `task` joins the scheduler's queue (and the log of arrivals, when it is kept). */
  private enqueue(task: Task): void {
    if (this.pending.has(task)) return;
    this.pending.add(task);
    this.queueLog?.arrivals.push(task);
  }

  /**
   * Keep a log of the tasks that join `pending` (and of band changes, which move queued jobs),
   * for a reader that keeps the queue in order itself (controller/ordered-queue.ts) and takes the
   * log after each change it reads. Off until asked: nobody else pays for it.
   */
  logQueue(): void {
    this.queueLog ??= { arrivals: [], reorder: true };
  }

  /**
   * The log since the last call (logQueue): tasks that joined the queue or were given a retry
   * backoff while in it, and whether queue keys changed.
   */
  takeQueueLog(): { arrivals: Task[]; reorder: boolean } {
    const log = this.queueLog;
    if (!log) return { arrivals: [], reorder: true };
    this.queueLog = { arrivals: [], reorder: false };
    return log;
  }

  /**
   * Loading only (no journal): mark a stored job as waiting on its dependencies, taking its
   * PENDING tasks out of the queue.
   */
  holdLoaded(entry: JobEntry): void {
    this.setWaiting(entry, true);
  }

  private setWaiting(entry: JobEntry, waiting: boolean): void {
    entry.waiting = waiting;
    if (waiting) this.waitingJobs.add(entry);
    else this.waitingJobs.delete(entry);
    for (const t of entry.tasks) {
      if (t.state !== 'PENDING') continue;
      if (waiting) this.pending.delete(t);
      else this.enqueue(t);
    }
  }

  /** Call after the task's attempts are indexed (loading) to fill `active`. */
  indexActive(task: Task): void {
    if (!isActiveTaskState(task.state)) return;
    const attempt = this.attempts.get(task.id)?.[task.attempt];
    if (attempt) this.active.set(task.id, attempt);
  }

  indexAttempt(a: Attempt): void {
    let list = this.attempts.get(a.task);
    if (!list) this.attempts.set(a.task, (list = []));
    list[a.attempt] = a;
  }

  indexEndpoint(e: Endpoint): void {
    const key = endpointKey(e.task, e.name);
    this.endpoints.set(key, e);
    let set = this.endpointsByTask.get(e.task);
    if (!set) this.endpointsByTask.set(e.task, (set = new Set()));
    set.add(key);
  }

  private unindexEndpoint(e: Endpoint): void {
    const key = endpointKey(e.task, e.name);
    this.endpoints.delete(key);
    const set = this.endpointsByTask.get(e.task);
    set?.delete(key);
    if (set?.size === 0) this.endpointsByTask.delete(e.task);
  }

  private unindexJob(entry: JobEntry): void {
    const { job } = entry;
    this.jobs.delete(job.name);
    this.waitingJobs.delete(entry);
    this.unindexDependencies(job);
    if (job.parent !== null) {
      const set = this.children.get(job.parent);
      set?.delete(job.name);
      if (set?.size === 0) this.children.delete(job.parent);
    }
    for (const t of entry.tasks) {
      this.pending.delete(t);
      this.active.delete(t.id);
      this.attempts.delete(t.id);
      for (const key of this.endpointsByTask.get(t.id) ?? []) this.endpoints.delete(key);
      this.endpointsByTask.delete(t.id);
    }
  }

  private retally(task: Task, from: Task['state']): void {
    const entry = this.jobs.get(task.job)!;
    entry.counts[from]--;
    entry.counts[task.state]++;
    if (task.state === 'PENDING' && !entry.waiting) this.enqueue(task);
    else this.pending.delete(task);
    if (isActiveTaskState(task.state)) this.active.set(task.id, this.attempts.get(task.id)![task.attempt]!);
    else this.active.delete(task.id);
  }

  private history(
    kind: HistoryEntry['kind'],
    name: string,
    state: string,
    reason: string | null,
    run: number | null,
  ): void {
    this.journal.history.push({ time: this.now(), kind, name, state, reason, run });
  }

  /** Run id of the job a task belongs to (null when the job is unknown). */
  private runOfTask(taskId: string): number | null {
    const task = this.tasks.get(taskId);
    return (task && this.jobs.get(task.job)?.job.run) ?? null;
  }

  // ---- primitives ----

  /** `waiting`: the job waits on its dependencies (its tasks stay out of the queue until released). */
  addJob(job: Job, tasks: Task[], waiting = false): JobEntry {
    const entry = this.indexJob(job, tasks, waiting);
    const j = this.journal;
    j.undo.push(() => this.unindexJob(entry));
    j.dirtyJobs.add(job.name);
    j.event(`job:${job.name}`);
    for (const t of tasks) {
      const id = t.id; // derived on each read (task-record.ts)
      j.dirtyTasks.add(id);
      j.event(`task:${id}`);
    }
    this.history('job', job.name, job.state, 'submitted', job.run);
    return entry;
  }

  /** Delete a job with its tasks, attempts and endpoints (not its children). */
  removeJob(name: string): void {
    const entry = this.jobs.get(name);
    if (!entry) return;
    const endpoints = entry.tasks.flatMap((t) =>
      [...(this.endpointsByTask.get(t.id) ?? [])].map((k) => this.endpoints.get(k)!),
    );
    const attempts = entry.tasks.map((t) => this.attempts.get(t.id) ?? []);
    this.unindexJob(entry);
    const j = this.journal;
    j.deletedJobs.add(name);
    for (const t of entry.tasks) j.deletedTasks.add(t.id);
    j.undo.push(() => {
      // Restore and rewrite everything: the DELETEs still run at COMMIT, the upserts follow.
      this.jobs.set(name, entry);
      if (entry.waiting) this.waitingJobs.add(entry);
      this.indexDependencies(entry.job);
      if (entry.job.parent !== null) {
        let set = this.children.get(entry.job.parent);
        if (!set) this.children.set(entry.job.parent, (set = new Set()));
        set.add(name);
      }
      j.dirtyJobs.add(name);
      entry.tasks.forEach((t, i) => {
        if (t.state === 'PENDING' && !entry.waiting) this.enqueue(t);
        j.dirtyTasks.add(t.id);
        for (const a of attempts[i]!) {
          this.indexAttempt(a);
          j.dirtyAttempts.add(attemptKey(a.task, a.attempt));
        }
        this.indexActive(t);
      });
      for (const e of endpoints) {
        this.indexEndpoint(e);
        j.dirtyEndpoints.add(endpointKey(e.task, e.name));
      }
    });
  }

  /**
   * Delete the row of a task that is not in memory (a row loading could not make one of its job's
   * tasks, load-check.ts), with its attempts and endpoints. Nothing in memory changes.
   */
  deleteTaskRow(id: string): void {
    if (!this.tasks.has(id)) this.journal.deletedTasks.add(id);
  }

  /**
   * Record a requeue event (model/requeue.ts) of job `job`'s run `run`: `name` is the attempt that
   * ended (`task#attempt`), or the job for a sticky wait; `detail` says what happened.
   */
  recordRequeue(name: string, job: string, reason: RequeueReason, detail: string | null, run: number | null): void {
    this.history('requeue', name, reason, detail, run);
    this.journal.requeues.push({ reason, job });
  }

  /** Record an `iris exec` into an attempt (`name`: `task#attempt`) of run `run`; `detail`: an ExecRecord as JSON. */
  recordExec(name: string, detail: string, run: number | null): void {
    this.history('exec', name, 'exec', detail, run);
  }

  /** Queue the deletion of a run's archive row and events (retention); a live job's rows are removed with removeJob. */
  pruneRun(run: number): void {
    this.journal.pruned.push(run);
  }

  /** Queue an archived run for writing (archive.ts); the job's rows are removed separately. */
  archiveRun(entry: ArchivedRun): void {
    this.journal.archived.push(entry);
  }

  /** The job's dependencies are met: its PENDING tasks join the queue (memory only: derived again at load). */
  releaseJob(entry: JobEntry): void {
    if (!entry.waiting) return;
    this.setWaiting(entry, false);
    this.journal.undo.push(() => this.setWaiting(entry, true));
    this.journal.event(`job:${entry.job.name}`);
  }

  patchJob(job: Job, patch: Partial<Job>, persist = true): void {
    if (patch.state !== undefined && patch.state !== job.state) {
      assertJobTransition(job.name, job.state, patch.state);
      if (persist) this.history('job', job.name, patch.state, patch.reason ?? job.reason, job.run);
    }
    const prev = pick(job, patch);
    const succeeded = patch.state === 'SUCCEEDED' && job.state !== 'SUCCEEDED';
    // A band is a queue key (scheduler/queue/order.ts): the ordered queue sorts again (rare).
    if (this.queueLog && patch.spec !== undefined && patch.spec.band !== job.spec.band) this.queueLog.reorder = true;
    Object.assign(job, patch);
    this.journal.undo.push(() => Object.assign(job, prev));
    if (succeeded) this.recordRuntime(job);
    if (persist) this.journal.dirtyJobs.add(job.name);
    this.journal.event(`job:${job.name}`);
  }

  /** A run that succeeded joins its name's runtime history (undone with the transaction). */
  private recordRuntime(job: Job): void {
    const runtime = this.taskRuntime(job);
    if (runtime === null) return;
    const key = runtimeKey(job.spec.user, job.name);
    const before = this.runtimes.record(key, runtime);
    this.journal.undo.push(() => this.runtimes.restore(key, before));
  }

  /** A job's runtime per task (planner/prediction.ts `runRuntime`), from its tasks' final attempts. */
  private taskRuntime(job: Job): number | null {
    const entry = this.jobs.get(job.name);
    if (!entry) return null;
    return runRuntime(entry.tasks.map((t) => this.attempts.get(t.id)?.at(-1)));
  }

  /**
   * Loading only: the runtime history again from the archived runs that succeeded (`archived`:
   * their per-task runtimes, oldest first) and then the loaded jobs, in run order.
   */
  rebuildRuntimes(archived: Iterable<{ name: string; user: string; runtime: number }>): void {
    this.runtimes.clear();
    for (const r of archived) this.runtimes.record(runtimeKey(r.user, r.name), r.runtime);
    const live = [...this.jobs.values()].map((e) => e.job).filter((j) => j.state === 'SUCCEEDED');
    live.sort((a, b) => a.run - b.run);
    for (const j of live) {
      const runtime = this.taskRuntime(j);
      if (runtime !== null) this.runtimes.record(runtimeKey(j.spec.user, j.name), runtime);
    }
  }

  patchTask(task: Task, patch: Partial<Task>): void {
    const from = task.state;
    const changes = patch.state !== undefined && patch.state !== from;
    const id = task.id; // derived on each read (task-record.ts)
    if (changes) {
      assertTaskTransition(id, from, patch.state!);
      this.history('task', id, patch.state!, patch.reason ?? task.reason, this.jobs.get(task.job)?.job.run ?? null);
    }
    const prev = pick(task, patch);
    Object.assign(task, patch);
    if (changes) this.retally(task, from);
    // A queued task given a backoff (a gang restart) stays queued: the log says to look at it again.
    else if (patch.eligibleAt !== undefined && this.pending.has(task)) this.queueLog?.arrivals.push(task);
    this.journal.undo.push(() => {
      const cur = task.state;
      Object.assign(task, prev);
      if (changes) this.retally(task, cur);
    });
    this.journal.dirtyTasks.add(id);
    this.journal.event(`task:${id}`);
  }

  addAttempt(a: Attempt): void {
    this.indexAttempt(a);
    this.journal.undo.push(() => {
      this.attempts.get(a.task)!.length = a.attempt;
    });
    this.touchAttempt(a);
    this.history('attempt', attemptHistoryName(a.task, a.attempt), a.state, `on ${a.workerId}`, this.runOfTask(a.task));
  }

  patchAttempt(a: Attempt, patch: Partial<Attempt>): void {
    if (patch.state !== undefined && patch.state !== a.state) {
      this.history(
        'attempt',
        attemptHistoryName(a.task, a.attempt),
        patch.state,
        patch.reason ?? a.reason,
        this.runOfTask(a.task),
      );
    }
    const prev = pick(a, patch);
    Object.assign(a, patch);
    this.journal.undo.push(() => Object.assign(a, prev));
    this.touchAttempt(a);
  }

  private touchAttempt(a: Attempt): void {
    const key = attemptKey(a.task, a.attempt);
    this.journal.dirtyAttempts.add(key);
    this.journal.event(`attempt:${key}`);
  }

  /** `reason`: what the history records with it (else a disable's text), also when its state stays. */
  putWorker(w: Worker, reason?: string): void {
    const old = this.workers.get(w.id);
    if (old?.state !== w.state || reason !== undefined)
      this.history(
        'worker',
        w.id,
        w.state,
        reason ?? (w.state === 'DISABLED' && w.disabled ? disableText(w.disabled) : null),
        null,
      );
    this.workers.set(w.id, w);
    this.journal.undo.push(() => (old ? this.workers.set(w.id, old) : this.workers.delete(w.id)));
    this.journal.dirtyWorkers.add(w.id);
    this.journal.event(`worker:${w.id}`);
  }

  putEndpoint(e: Endpoint): void {
    const key = endpointKey(e.task, e.name);
    const old = this.endpoints.get(key);
    this.indexEndpoint(e);
    this.journal.undo.push(() => (old ? this.indexEndpoint(old) : this.unindexEndpoint(e)));
    this.journal.dirtyEndpoints.add(key);
    this.journal.event(`endpoint:${key}`);
  }

  /** Drop every endpoint task `taskId` registered. */
  dropEndpointsOf(taskId: string): void {
    const keys = this.endpointsByTask.get(taskId);
    if (!keys) return;
    for (const key of [...keys]) this.dropEndpoint(this.endpoints.get(key)!);
  }

  dropEndpoint(e: Endpoint): void {
    const key = endpointKey(e.task, e.name);
    this.unindexEndpoint(e);
    this.journal.removedEndpoints.set(key, e);
    this.journal.undo.push(() => this.indexEndpoint(e));
    this.journal.dirtyEndpoints.add(key);
    this.journal.event(`endpoint:${key}`);
  }

  /** Loading and undo (no journal): set or (expiresAt null) remove one cache hint. */
  indexCacheHint(worker: string, key: string, expiresAt: number | null): void {
    let keys = this.cacheHints.get(worker);
    if (expiresAt === null) {
      keys?.delete(key);
      if (keys?.size === 0) this.cacheHints.delete(worker);
      return;
    }
    if (!keys) this.cacheHints.set(worker, (keys = new Map()));
    keys.set(key, expiresAt);
  }

  /** Set (expiresAt a time) or drop (null) worker `worker`'s cache hint for `key`. */
  putCacheHint(worker: string, key: string, expiresAt: number | null): void {
    const old = this.cacheHints.get(worker)?.get(key) ?? null;
    if (old === expiresAt) return;
    this.indexCacheHint(worker, key, expiresAt);
    this.journal.undo.push(() => this.indexCacheHint(worker, key, old));
    this.journal.dirtyHints.add(hintKey(worker, key));
    this.journal.event(`worker:${worker}`);
  }

  putMeta(key: string, value: string): void {
    const old = this.meta.get(key);
    this.meta.set(key, value);
    this.journal.undo.push(() => (old === undefined ? this.meta.delete(key) : this.meta.set(key, old)));
    this.journal.dirtyMeta.add(key);
  }
}

function pick<T extends object>(obj: T, patch: Partial<T>): Partial<T> {
  const prev: Partial<T> = {};
  for (const k of Object.keys(patch) as (keyof T)[]) prev[k] = obj[k];
  return prev;
}
