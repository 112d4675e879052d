/**
 * The simulator's job and task state: jobs, tasks and attempts as the cluster's model records
 * (times in seconds of virtual time), read by the lifecycle through LifecycleView and changed only
 * by applying the lifecycle's changes (cluster/lifecycle), as the live store applies them. The
 * simulator decides nothing about a job's or task's state itself: it asks the lifecycle (assign,
 * markRunning, attemptEnded, …) and runs the items here.
 *
 * Guarantees (the indexes, kept by `add`, `remove` and the applier):
 * - A job's `counts` is the tally of its tasks' states; the live attempts are the latest attempts
 *   of the tasks in ASSIGNED/RUNNING, in the order they became live (as the store's).
 * - The hints (lifecycle/cache-hints.ts): the stored ones as the lifecycle's changes set them, and
 *   the keys the live attempts use, counted per worker (`loading`), for the jobs that use keys.
 * - Changes that mean nothing here are taken as done: a requeue event and endpoints (no history,
 *   no endpoints). A stop order (a preemption's victims and their gangs) is kept in `stops` for
 *   the engine, which holds the task's resources, its own, until the grace is over. The queue of
 *   PENDING tasks is the engine's own (pending-queue.ts, in the scheduler's order).
 * - A transition the lifecycle's tables do not allow throws, as in the store (a bug).
 * - Cheap enough for a replay of 10,000s of jobs: one lookup per task (its slot: task, job,
 *   attempts, whether its latest is live), no copies, patches written field by field; an ended
 *   job is removed by the engine.
 */
import { reconcile, type Reconciler } from '../cluster/lifecycle/reconcile.js';
import {
  writeAttemptPatch,
  writeJobPatch,
  writeTaskPatch,
  type Change,
  type Item,
  type JobRecord,
  type LifecycleView,
  type TaskPatch,
  type StopOrder,
  type TaskResults,
} from '../cluster/lifecycle/changes.js';
import { DEFAULT_MAX_PREEMPTIONS } from '../cluster/lifecycle/retries.js';
import { hintsInForce, isWarm, type HintsInForce } from '../cluster/lifecycle/cache-hints.js';
import {
  assertJobTransition,
  assertTaskTransition,
  emptyCounts,
  type TaskCounts,
} from '../cluster/lifecycle/transitions.js';
import { isActiveTaskState, type TaskState } from '../model/states.js';
import { taskName } from '../model/names.js';
import type { Attempt, Job, Task, Worker } from '../model/types.js';
import type { SimJob, SimWorker } from './workload.js';

interface Entry extends JobRecord {
  readonly job: Job;
  readonly tasks: Task[];
  readonly counts: TaskCounts;
  waiting: boolean;
}

/** A task with its job and its attempts: one lookup for what the lifecycle reads of a task. */
interface Slot {
  readonly task: Task;
  readonly entry: Entry;
  /** Its latest attempt (null before the first), and the earlier ones by number (null while there are none). */
  latest: Attempt | null;
  earlier: Attempt[] | null;
  /** While its task is ASSIGNED/RUNNING (`latest` is its live attempt): when it became live (an order); else -1. */
  liveSince: number;
}

const NONE: ReadonlySet<string> = new Set();
const NO_RESULTS: TaskResults = new Map();

export class SimState implements LifecycleView, Reconciler {
  readonly view: LifecycleView = this;
  /** The time of the decision being applied (`run`). */
  now = 0;
  /** Stop orders applied since the engine last emptied this (a preemption's victims and their gangs). */
  readonly stops: StopOrder[] = [];
  private readonly jobs = new Map<string, Entry>();
  private readonly slots = new Map<string, Slot>();
  /** The slot looked up last: a decision and its changes read the same task (and its job) again and again. */
  private lastSlot: Slot | null = null;
  /** How many attempts became live so far (Slot.liveSince). */
  private liveSeq = 0;
  private readonly childrenOf = new Map<string, Set<string>>();
  private readonly dependentsOf = new Map<string, Set<string>>();
  private readonly workers = new Map<string, Worker>();
  /** Stored hints: worker -> key -> expiresAt. */
  private readonly stored = new Map<string, Map<string, number>>();
  /** Keys the live attempts use: worker -> key -> how many. */
  private readonly loading = new Map<string, Map<string, number>>();
  private hintView: HintsInForce = new Map();
  private hintViewAt = -Infinity;
  private hintsChanged = false;

  /** `hintTtl`: seconds a cache hint lasts after its attempt ended. */
  constructor(
    workers: readonly Worker[],
    readonly hintTtl: number,
  ) {
    for (const w of workers) this.workers.set(w.id, w);
  }

  // ---- LifecycleView ----

  job(name: string): JobRecord | undefined {
    const last = this.lastSlot;
    if (last !== null && last.entry.job.name === name) return last.entry;
    return this.jobs.get(name);
  }

  task(id: string): Task | undefined {
    return this.slot(id)?.task;
  }

  attempt(task: string, n: number): Attempt | undefined {
    const slot = this.slot(task);
    if (slot === undefined) return undefined;
    const latest = slot.latest;
    return latest !== null && latest.attempt === n ? latest : slot.earlier?.[n];
  }

  liveAttempt(task: string): Attempt | undefined {
    const slot = this.slot(task);
    return slot !== undefined && slot.liveSince >= 0 ? slot.latest! : undefined;
  }

  /** A walk over every task (a worker's drain only, never in a replay), in the order they became live. */
  liveAttempts(): Iterable<Attempt> {
    const live: Slot[] = [];
    for (const slot of this.slots.values()) if (slot.liveSince >= 0) live.push(slot);
    return live.sort((a, b) => a.liveSince - b.liveSince).map((slot) => slot.latest!);
  }

  children(job: string): Iterable<string> {
    return this.childrenOf.get(job) ?? NONE;
  }

  dependents(job: string): Iterable<string> {
    return this.dependentsOf.get(job) ?? NONE;
  }

  worker(id: string): Worker | undefined {
    return this.workers.get(id);
  }

  hints(worker: string): ReadonlyMap<string, number> | undefined {
    return this.stored.get(worker);
  }

  /** Simulated tasks set no results. */
  resultsOf(): TaskResults {
    return NO_RESULTS;
  }

  // ---- records ----

  private slot(id: string): Slot | undefined {
    const last = this.lastSlot;
    if (last !== null && last.task.id === id) return last;
    const slot = this.slots.get(id);
    if (slot !== undefined) this.lastSlot = slot;
    return slot;
  }

  /**
   * Add a job with its tasks (PENDING); `waiting`: it waits on its dependencies (lifecycle/jobs.ts
   * waitsOnDependencies). Its parent link (`job.parent`) makes it a child in the cascade.
   */
  add(job: Job, tasks: Task[], waiting: boolean): JobRecord {
    const entry: Entry = { job, tasks, counts: emptyCounts(), waiting };
    this.jobs.set(job.name, entry);
    if (job.parent !== null) index(this.childrenOf, job.parent, job.name);
    const after = job.spec.after;
    if (after !== undefined) for (const dep of after) index(this.dependentsOf, dep.job, job.name);
    for (const task of tasks) {
      this.slots.set(task.id, { task, entry, latest: null, earlier: null, liveSince: -1 });
      count(entry.counts, task.state, 1);
    }
    return entry;
  }

  /** Forget a job that has ended (nothing reads its records any more): it leaves every index. */
  remove(name: string): void {
    const entry = this.jobs.get(name);
    if (!entry) return;
    this.jobs.delete(name);
    if (entry.job.parent !== null) unindex(this.childrenOf, entry.job.parent, name);
    const after = entry.job.spec.after;
    if (after !== undefined) for (const dep of after) unindex(this.dependentsOf, dep.job, name);
    for (const task of entry.tasks) {
      const slot = this.slot(task.id)!;
      this.slots.delete(task.id);
      if (slot.liveSince >= 0) this.unload(slot);
    }
    if (this.lastSlot?.entry === entry) this.lastSlot = null;
  }

  /** Apply the items of a lifecycle decision taken at `now` (lifecycle/reconcile.ts). */
  run(items: readonly Item[], now: number): void {
    if (items.length === 0) return;
    this.now = now;
    reconcile(this, items);
  }

  /** The one applier of lifecycle changes to the simulator's records. */
  apply(c: Change): void {
    switch (c.kind) {
      case 'job':
        if (c.patch.state !== undefined) assertJobTransition(c.job.name, c.job.state, c.patch.state);
        writeJobPatch(c.job, c.patch);
        return;
      case 'task':
        this.patchTask(c.task, c.patch);
        return;
      case 'attempt-start': {
        const slot = this.slot(c.attempt.task)!;
        const latest = slot.latest;
        if (latest !== null) (slot.earlier ??= [])[latest.attempt] = latest;
        slot.latest = c.attempt;
        return;
      }
      case 'attempt':
        writeAttemptPatch(c.attempt, c.patch);
        return;
      case 'release': {
        const entry = this.jobs.get(c.job.job.name)!;
        entry.waiting = false;
        return;
      }
      case 'worker':
        this.workers.set(c.worker.id, c.worker);
        return;
      case 'hint': {
        if (c.expiresAt === null) this.stored.get(c.worker)?.delete(c.key);
        else inner(this.stored, c.worker).set(c.key, c.expiresAt);
        this.hintsChanged = true;
        return;
      }
      case 'stop':
        this.stops.push(c.order);
        return;
      case 'requeue':
      case 'endpoints-dropped':
        return; // see the header
    }
  }

  private patchTask(task: Task, patch: TaskPatch): void {
    const from = task.state;
    const to = patch.state;
    if (to === undefined || to === from) {
      writeTaskPatch(task, patch);
      return;
    }
    assertTaskTransition(task.id, from, to);
    const slot = this.slot(task.id)!;
    const entry = slot.entry;
    writeTaskPatch(task, patch);
    count(entry.counts, from, -1);
    count(entry.counts, to, 1);
    const wasLive = isActiveTaskState(from);
    if (isActiveTaskState(to)) {
      if (wasLive) return;
      slot.liveSince = this.liveSeq++;
      this.load(entry, slot.latest!.workerId, 1);
    } else if (wasLive) {
      this.unload(slot);
    }
  }

  /** The task's live attempt is over (its task left ASSIGNED/RUNNING, or its job was removed). */
  private unload(slot: Slot): void {
    slot.liveSince = -1;
    this.load(slot.entry, slot.latest!.workerId, -1);
  }

  /** The job's keys (JobSpec.uses) count one more (or one less) live attempt on `worker`. */
  private load(entry: Entry, worker: string, by: 1 | -1): void {
    const uses = entry.job.spec.uses;
    if (!uses?.length) return;
    const counts = inner(this.loading, worker);
    for (const key of uses) {
      const n = (counts.get(key) ?? 0) + by;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    }
    this.hintsChanged = true;
  }

  // ---- hints ----

  /** True when `key` is warm on `worker` at `now` (lifecycle/cache-hints.ts isWarm). */
  isWarm(worker: string, key: string, now: number): boolean {
    return isWarm(this.stored.get(worker)?.get(key), (this.loading.get(worker)?.get(key) ?? 0) > 0, now);
  }

  /**
   * The hints in force at `now` (Snapshot.cacheHints); rebuilt only when a hint or a live attempt
   * changed, or the clock moved.
   */
  hintsAt(now: number): HintsInForce {
    if (!this.hintsChanged && now === this.hintViewAt) return this.hintView;
    this.hintView = hintsInForce(this.stored, loadingKeys(this.loading), now, this.hintTtl);
    this.hintViewAt = now;
    this.hintsChanged = false;
    return this.hintView;
  }
}

type Counted = ReadonlyMap<string, ReadonlyMap<string, number>>;

function* loadingKeys(loading: Counted): Generator<readonly [string, Iterable<string>]> {
  for (const [worker, keys] of loading) yield [worker, keys.keys()];
}

/** A tally's count of `state` moved by `by`: the common states by name, the others by key. */
function count(counts: TaskCounts, state: TaskState, by: 1 | -1): void {
  if (state === 'PENDING') counts.PENDING += by;
  else if (state === 'ASSIGNED') counts.ASSIGNED += by;
  else if (state === 'RUNNING') counts.RUNNING += by;
  else if (state === 'SUCCEEDED') counts.SUCCEEDED += by;
  else counts[state] += by;
}

function index(map: Map<string, Set<string>>, key: string, name: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(name);
}

function unindex(map: Map<string, Set<string>>, key: string, name: string): void {
  const set = map.get(key);
  set?.delete(name);
  if (set?.size === 0) map.delete(key);
}

function inner<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Map()));
  return inner;
}

/** A simulated worker as the cluster's model worker (READY: the pool keeps what the elastic coordinator disables). */
export const modelWorker = (w: SimWorker): Worker => ({ ...w, state: 'READY' });

/** What a workload job's spec has of its own none of: no command, no environment (shared, never changed). */
const NO_COMMAND: string[] = [];
const NO_ENV: Record<string, string> = {};

/**
 * A workload job as the cluster's model job, with its tasks (PENDING; times in seconds): what the
 * lifecycle and the scheduler-job conversion read. It has no parent in the cascade (a workload
 * child outlives a parent that does not wait, docs/simulate.md); `seq` is the job's submission
 * sequence, its tasks take the next ones (seq + 1 + index).
 */
export function modelJob(
  spec: SimJob,
  depth: number,
  rootSubmittedAt: number,
  now: number,
  seq: number,
): { job: Job; tasks: Task[] } {
  const job: Job = {
    name: spec.name,
    run: 0,
    depth,
    parent: null,
    submittedAt: now,
    rootSubmittedAt,
    seq,
    state: 'PENDING',
    reason: null,
    startedAt: null,
    finishedAt: null,
    failedTasks: 0,
    spec: {
      name: spec.name,
      user: spec.user,
      command: NO_COMMAND,
      env: NO_ENV,
      cwd: null,
      image: null,
      replicas: spec.replicas,
      resources: spec.resources,
      constraints: spec.constraints,
      coschedule: spec.coschedule,
      maxRetries: 0,
      maxTaskFailures: 0,
      maxPreemptions: DEFAULT_MAX_PREEMPTIONS,
      timeoutMs: spec.timeLimit,
      schedulingTimeoutMs: null,
      ...(spec.category ? { category: spec.category } : {}),
      ...(spec.uses ? { uses: spec.uses } : {}),
      ...(spec.band ? { band: spec.band } : {}),
      ...(spec.mergeKey ? { mergeKey: spec.mergeKey } : {}),
      ...(spec.queue ? { queue: spec.queue } : {}),
    },
  };
  const tasks = new Array<Task>(spec.replicas);
  for (let i = 0; i < spec.replicas; i++) {
    tasks[i] = {
      id: taskName(spec.name, i),
      job: spec.name,
      index: i,
      state: 'PENDING',
      attempt: 0,
      submittedAt: now,
      seq: seq + 1 + i,
      failures: 0,
      preemptions: 0,
      workerId: null,
      exitCode: null,
      reason: null,
      startedAt: null,
      finishedAt: null,
      eligibleAt: null,
    };
  }
  return { job, tasks };
}
