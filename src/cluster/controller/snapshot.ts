/**
 * Builds the scheduler's Snapshot from the store: pending tasks, the jobs they belong to,
 * every worker's free capacity (capacity minus what active attempts hold, device indices
 * included: they are stored on each attempt), per-user usage. Reads only the store and the set
 * of released attempts it is given. A pending task waiting out its retry backoff (`eligibleAt` after
 * `now`) is left out of `pending` (nextEligible() says when the first one comes back), but still
 * counts among its user's pending tasks. The tasks of a job waiting on its dependencies are in no
 * queue (store.queuedTasks()): a pass never walks them, nor counts them in `usage` (pending quotas
 * are checked at submit, on every pending task).
 *
 * Release (docs/architecture.md, "Waiting"): an attempt in `released` (WaitRegistry.released(),
 * a task blocked in a wait on its own subtree) holds no CPU here — not in its worker's free CPU,
 * not in the running allocations the queue policies and the planner see, not in its user's
 * usage for quotas. Its memory and devices stay held. When its wait ends it is no longer in the
 * set and its CPU counts again at once: a worker's free CPU may then be negative
 * (oversubscribed), and no task fits there until running work ends.
 *
 * Held (docs/architecture.md, "Stopping"): an attempt the store has already ended (cancelled,
 * preempted, drained, stopped with the cluster) whose process or container is not gone yet is
 * given in `held` (AttemptSupervisor.held()). It keeps holding all it held — CPU, memory,
 * devices, its user's usage — until the runtime reports it gone; the planner sees it as ending
 * now.
 *
 * Stickiness (docs/pipelines.md, "Stickiness"): a stage whose spec sticks to a parent stage
 * (`spec.stage.stickTo`, model/stickiness.ts) gets `sticky` on its scheduler job — the worker task-0
 * of that parent last ran on (the attempt that succeeded) — only when `stickiness` is on, the job
 * is no gang, and that worker is READY with the total capacity for one of its tasks. Otherwise it
 * gets none and is placed like any job (the fallback when the worker is gone or drained).
 *
 * Planned durations (planner/prediction.ts): a job under the default time limit carries the
 * runtime predicted from its name's last successful runs (store.runtimes); a running attempt ends,
 * for the planner, at its predicted end (corrected once outlived) or its limit.
 *
 * Context reuse (state/cache-hints.ts): `cacheHints` is filled only when some job in `jobs` uses
 * keys (`spec.uses`); a pass over jobs that use none builds no hints and pays nothing for them.
 */
import type { ClusterStore } from '../state/store.js';
import { costPerHourOf, disableText, isMergedMember, type Job, type Quota, type Worker } from '../../model/types.js';
import type { ResourceSpec } from '../../model/resources.js';
import { acceleratorsOf } from '../scheduler/index.js';
import type {
  RuntimeEstimate,
  RunningAllocation,
  SchedulerJob,
  SchedulerTask,
  Snapshot,
  UserUsage,
  WorkerView,
} from '../scheduler/types.js';
import { schedulerJob } from '../lifecycle/scheduler-job.js';
import { runtimeEstimate } from '../scheduler/planner/index.js';
import { plannedEnd } from '../scheduler/planner/index.js';
import { covers } from '../scheduler/placement/filters.js';
import { attemptKey } from '../state/keys.js';
import { bandOf } from '../../model/band.js';
import type { OrderedQueue } from './ordered-queue.js';

/** Attempt keys (state/keys.ts attemptKey) whose CPU is released; none by default. */
export type ReleasedAttempts = ReadonlySet<string>;

const NONE: ReleasedAttempts = new Set();

/** An attempt ended in the store whose process is not gone yet: it still holds what it held. */
export interface HeldAttempt {
  job: string;
  task: string;
  attempt: number;
  workerId: string;
  resources: ResourceSpec;
  devices: readonly number[];
  user: string;
}

function emptyUsage(): UserUsage {
  return { cpuMillis: 0, memoryBytes: 0, accelerators: 0, pendingTasks: 0 };
}

export interface WorkerUse {
  /** CPU held by active attempts, released ones left out (may exceed the capacity: oversubscribed). */
  cpuMillis: number;
  /** CPU of active attempts that released it while they wait. */
  cpuReleasedMillis: number;
  memoryBytes: number;
  devices: Set<number>;
  tasks: string[];
}

function addUse(
  use: Map<string, WorkerUse>,
  workerId: string,
  res: ResourceSpec,
  devices: readonly number[],
  task: string,
  released: boolean,
): void {
  let entry = use.get(workerId);
  if (!entry) {
    entry = { cpuMillis: 0, cpuReleasedMillis: 0, memoryBytes: 0, devices: new Set(), tasks: [] };
    use.set(workerId, entry);
  }
  if (released) entry.cpuReleasedMillis += res.cpuMillis;
  else entry.cpuMillis += res.cpuMillis;
  entry.memoryBytes += res.memoryBytes;
  for (const index of devices) entry.devices.add(index);
  entry.tasks.push(task);
}

/** What each worker's active and held attempts hold right now (released CPU apart). */
export function workerUse(
  store: ClusterStore,
  released: ReleasedAttempts = NONE,
  held: readonly HeldAttempt[] = [],
): Map<string, WorkerUse> {
  const use = new Map<string, WorkerUse>();
  for (const attempt of store.activeAttempts()) {
    // A merged batch's member holds nothing: its lead's attempt holds the batch's one task's share.
    if (isMergedMember(attempt)) continue;
    const task = store.task(attempt.task);
    const job = task && store.job(task.job);
    if (!job) continue;
    addUse(
      use,
      attempt.workerId,
      job.spec.resources,
      attempt.devices,
      attempt.task,
      released.has(attemptKey(attempt.task, attempt.attempt)),
    );
  }
  for (const h of held) addUse(use, h.workerId, h.resources, h.devices, h.task, false);
  return use;
}

function addUsage(usage: Map<string, UserUsage>, user: string, res: ResourceSpec, cpuMillis: number): void {
  const entry = usage.get(user) ?? emptyUsage();
  entry.cpuMillis += cpuMillis;
  entry.memoryBytes += res.memoryBytes;
  entry.accelerators += acceleratorsOf(res);
  usage.set(user, entry);
}

/** The scheduler's view of `worker`; one that left the cluster (still running tasks) is WorkerView.removed. */
export function workerView(worker: Worker, use: WorkerUse | undefined): WorkerView {
  const devices: number[] = [];
  for (let i = 0; i < worker.device.count; i++) if (!use?.devices.has(i)) devices.push(i);
  return {
    id: worker.id,
    device: worker.device,
    attributes: worker.attributes,
    capacity: { cpuMillis: worker.cpuMillis, memoryBytes: worker.memoryBytes },
    free: {
      cpuMillis: worker.cpuMillis - (use?.cpuMillis ?? 0),
      memoryBytes: worker.memoryBytes - (use?.memoryBytes ?? 0),
      devices,
    },
    schedulable: worker.state === 'READY',
    disabled:
      worker.state === 'DISABLED' ? disableText(worker.disabled ?? { by: 'user', reason: '', disabledAt: 0 }) : null,
    costPerHour: costPerHourOf(worker),
    ...(worker.left ? { removed: true } : {}),
  };
}

/** The earliest time after `now` at which a pending task's retry backoff ends, or null when none waits. */
export function nextEligible(store: ClusterStore, now: number): number | null {
  let next: number | null = null;
  // forEach, not for…of: the set's iterator allocates a result per task until the loop is
  // optimized, 100,000 per call with a large queue (docs/benchmarks.md, "Memory").
  store.queuedTasks().forEach((task) => {
    const at = task.eligibleAt;
    if (at !== null && at > now && (next === null || at < next)) next = at;
  });
  return next;
}

/**
 * The earliest time after `now` at which a running task's predicted end runs out (planner/prediction.ts
 * plannedEnd: from then on it is planned to end later), or null when no running task is planned with a
 * prediction. The pass loop wakes then, so the reservations behind a prediction that proved too short
 * move without waiting for another event. (An end at the time limit needs no wake: the limit stops the
 * task, and its exit requests a pass.)
 */
export function nextPredictedEnd(store: ClusterStore, now: number): number | null {
  let next: number | null = null;
  if (store.runtimes.size === 0) return next; // no history: nothing is predicted
  for (const attempt of store.activeAttempts()) {
    // A merged batch's member holds nothing: its lead's attempt holds the batch's one task's share.
    if (isMergedMember(attempt)) continue;
    const task = store.task(attempt.task);
    const job = task && store.job(task.job);
    if (!job) continue;
    const estimate = runtimeEstimate(job.spec, store.runtimes);
    if (estimate.source !== 'predicted') continue;
    const limit = job.spec.timeoutMs;
    const end = plannedEnd(attempt.startedAt, estimate, limit, now);
    const stop = typeof limit === 'number' && limit > 0 ? attempt.startedAt + limit : Infinity;
    if (end > now && end < stop && (next === null || end < next)) next = end;
  }
  return next;
}

/** Where a sticky stage must run (see the header), or null. */
export function stickyPlacement(store: ClusterStore, job: Job): SchedulerJob['sticky'] {
  const stickTo = job.spec.stage?.stickTo;
  if (!stickTo || job.spec.coschedule !== null || job.parent === null) return null;
  const parent = `${job.parent}/${stickTo}`; // a sibling stage, as lifecycle.ts releaseStage finds it
  const task0 = store.tasksOf(parent).find((t) => t.index === 0);
  if (task0?.state !== 'SUCCEEDED' || task0.workerId === null) return null;
  const worker = store.worker(task0.workerId);
  if (worker?.state !== 'READY') return null;
  if (!covers(worker.cpuMillis, worker.memoryBytes, worker.device.count, job.spec.resources)) return null;
  return { workerId: worker.id, parent };
}

/**
 * The scheduler's view of a stored job, made once per job and estimate: a pending job is in every
 * pass's snapshot until it starts, and the placement keys (placement/fit.ts) are kept per view,
 * so a view made anew each pass is keyed anew each pass too.
 */
function keptSchedulerJob(job: Job, estimate: RuntimeEstimate): SchedulerJob {
  const kept = schedulerJobs.get(job);
  if (
    kept &&
    kept.spec === job.spec &&
    kept.estimate.source === estimate.source &&
    kept.estimate.duration === estimate.duration
  )
    return kept.view;
  const view = schedulerJob(job, estimate);
  schedulerJobs.set(job, { spec: job.spec, estimate, view });
  return view;
}

/**
 * What a view reads of a job is fixed at its submission, except its spec, which a change may
 * replace (a band, a released stage: lifecycle/changes.ts writeJobPatch), never edit in place.
 */
const schedulerJobs = new WeakMap<Job, { spec: Job['spec']; estimate: RuntimeEstimate; view: SchedulerJob }>();

export interface SnapshotOptions {
  /** Config `placement.stickiness` (default true): place sticky stages where their parent ran. */
  stickiness?: boolean;
  /**
   * The queue kept in order (ordered-queue.ts): the snapshot is `pendingOrdered`, its jobs' views
   * are made when first read, and users' pending tasks are not counted. Only without quotas (fair
   * share reorders the queue each pass), named queues or a baseline placement mode (they read
   * every job): the pass loop decides.
   */
  ordered?: OrderedQueue;
}

export function buildSnapshot(
  store: ClusterStore,
  quotas: ReadonlyMap<string, Quota>,
  now: number,
  released: ReleasedAttempts = NONE,
  held: readonly HeldAttempt[] = [],
  options: SnapshotOptions = {},
): Snapshot {
  const stickiness = options.stickiness ?? true;
  const { jobs, pending, usage, usesKeys, leastAsked } = options.ordered
    ? orderedQueue(store, options.ordered, now, stickiness)
    : wholeQueue(store, now, stickiness);
  // One walk over the active attempts gives the planner's running allocations, per-user usage
  // and what each worker holds.
  const running: RunningAllocation[] = [];
  const use = new Map<string, WorkerUse>();
  for (const attempt of store.activeAttempts()) {
    // A merged batch's member holds nothing: its lead's attempt holds the batch's one task's share.
    if (isMergedMember(attempt)) continue;
    const task = store.task(attempt.task);
    const job = task && store.job(task.job);
    if (!job) continue;
    const limit = job.spec.timeoutMs;
    const isReleased = released.has(attemptKey(attempt.task, attempt.attempt));
    addUse(use, attempt.workerId, job.spec.resources, attempt.devices, attempt.task, isReleased);
    const cpuMillis = isReleased ? 0 : job.spec.resources.cpuMillis;
    running.push({
      task: attempt.task,
      job: job.name,
      workerId: attempt.workerId,
      cpuMillis,
      memoryBytes: job.spec.resources.memoryBytes,
      devices: attempt.devices.length,
      // Its predicted end, corrected when outlived (planner/prediction.ts), else its limit; an attempt past its
      // limit is being stopped: planned as ending now, not in the past.
      endsAt: plannedEnd(attempt.startedAt, runtimeEstimate(job.spec, store.runtimes), limit, now),
      startedAt: attempt.startedAt,
      user: job.spec.user,
      band: bandOf(job.spec),
      gang: job.spec.coschedule !== null,
    });
    addUsage(usage, job.spec.user, job.spec.resources, cpuMillis);
  }
  for (const h of held) {
    addUse(use, h.workerId, h.resources, h.devices, h.task, false);
    running.push({
      task: h.task,
      job: h.job,
      workerId: h.workerId,
      cpuMillis: h.resources.cpuMillis,
      memoryBytes: h.resources.memoryBytes,
      devices: h.devices.length,
      endsAt: now,
      user: h.user,
      stopping: true,
    });
    addUsage(usage, h.user, h.resources, h.resources.cpuMillis);
  }
  const workers = store.workers().map((worker) => workerView(worker, use.get(worker.id)));
  const snapshot: Snapshot = { now, jobs, pending, workers, usage, quotas, running };
  if (options.ordered) snapshot.pendingOrdered = true;
  if (leastAsked) snapshot.leastAsked = leastAsked;
  if (usesKeys) {
    const hints = store.cacheHints(now);
    if (usesKeys === true || hints.size > 0) snapshot.cacheHints = hints;
  }
  return snapshot;
}

/** The queue part of a snapshot: the jobs, their pending tasks, per-user usage so far. */
interface QueuePart {
  jobs: Map<string, SchedulerJob>;
  pending: SchedulerTask[];
  usage: Map<string, UserUsage>;
  /** true: some job uses cache keys; 'maybe': not known (the hints are built when any exist). */
  usesKeys: boolean | 'maybe';
  leastAsked?: Snapshot['leastAsked'];
}

/** The scheduler's view of a pending job now (sticky when it must run where its parent stage ran). */
function pendingView(store: ClusterStore, job: Job, stickiness: boolean): SchedulerJob {
  const sticky = stickiness ? stickyPlacement(store, job) : null;
  const sched = keptSchedulerJob(job, runtimeEstimate(job.spec, store.runtimes));
  return sticky ? { ...sched, sticky } : sched;
}

/** Every queued task and its job, each user's pending tasks counted (quotas and shares read them). */
function wholeQueue(store: ClusterStore, now: number, stickiness: boolean): QueuePart {
  const jobs = new Map<string, SchedulerJob>();
  const usage = new Map<string, UserUsage>();
  // The store's own task objects, not copies: a pass over 100,000 pending tasks would otherwise
  // allocate 100,000 short-lived objects that outlive the young generation (docs/benchmarks.md,
  // "Memory"). The scheduler only reads them (SchedulerTask is a read-only view of a Task).
  // Sized once (no growth copies); cut to the tasks taken at the end.
  const queued = store.queuedTasks();
  const pending = new Array<SchedulerTask>(queued.size);
  let taken = 0;
  let usesKeys = false;
  // forEach, not for…of (see nextEligible).
  queued.forEach((task) => {
    const job = store.job(task.job);
    if (!job) return;
    const user = job.spec.user;
    const entry = usage.get(user) ?? emptyUsage();
    entry.pendingTasks++;
    usage.set(user, entry);
    // Waiting out its retry backoff: still pending (and counted), but not the scheduler's yet.
    if (task.eligibleAt !== null && task.eligibleAt > now) return;
    if (!jobs.has(job.name)) {
      jobs.set(job.name, pendingView(store, job, stickiness));
      if (job.spec.uses?.length) usesKeys = true;
    }
    pending[taken++] = task;
  });
  pending.length = taken;
  return { jobs, pending, usage, usesKeys };
}

/**
 * The queue in order (ordered-queue.ts), read lazily: the tasks eligible now, and a map that makes
 * a job's view when a pass first asks for it; users' pending tasks are not counted (no quotas).
 */
function orderedQueue(store: ClusterStore, ordered: OrderedQueue, now: number, stickiness: boolean): QueuePart {
  ordered.tasks();
  const pending: SchedulerTask[] = ordered.eligible(now);
  // A view only for a job with a task in `pending`: queued, and not waiting out a backoff.
  const queued = store.queuedTasks();
  const jobs = new LazyJobs((name) => {
    const job = store.job(name);
    const inPending = job && store.liveTasksOf(name).some((t) => queued.has(t) && !ordered.waits(t));
    return inPending ? pendingView(store, job, stickiness) : undefined;
  });
  return { jobs, pending, usage: new Map(), usesKeys: 'maybe', leastAsked: ordered.leastAsked() };
}

/** A map of views made on first `get` (or `has`); iterating it gives only those made so far. */
class LazyJobs extends Map<string, SchedulerJob> {
  constructor(private readonly make: (name: string) => SchedulerJob | undefined) {
    super();
  }

  override get(name: string): SchedulerJob | undefined {
    let view = super.get(name);
    if (view === undefined) {
      view = this.make(name);
      if (view !== undefined) super.set(name, view);
    }
    return view;
  }

  override has(name: string): boolean {
    return this.get(name) !== undefined;
  }
}
