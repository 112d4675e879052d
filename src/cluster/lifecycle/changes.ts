/**
 * The lifecycle's vocabulary: what it reads (LifecycleView), what it decides (Change: one typed
 * effect on the state) and what it defers (Step: a decision to take when reached, reading the state
 * as the changes before it left it). The live store (cluster/state) and the simulator (src/sim)
 * each implement the view over their own records and apply every change the same way; neither
 * decides anything itself.
 *
 * Guarantees of a decision (every function of this folder that returns Items):
 * - It is pure: it reads only the view it is given and `now`, changes nothing, and returns the
 *   changes in the order they must be applied (reconcile.ts applies them).
 * - Objects in a change (a job, task or attempt) are the view's own: the applier patches them.
 * - A patch holds exactly the fields that change: appliers apply it as given (its `reason`, even
 *   null, is what the history records).
 */
import type { AttemptState, FailureState } from '../../model/states.js';
import type { RequeueReason } from '../../model/requeue.js';
import type { Attempt, Job, Task, Worker } from '../../model/types.js';
import type { JobEnd } from './cascade.js';
import type { HintChange, StoredHints } from './cache-hints.js';
import type { TaskCounts } from './transitions.js';

/** An attempt the controller must stop in the runtime; the lifecycle already recorded its end. */
export interface StopOrder {
  task: string;
  attempt: number;
  workerId: string;
  reason: string;
  /** Between its SIGTERM and SIGKILL (a preemption's `preemption.grace`); absent: the config's `stop-grace`. */
  graceMs?: number;
  /**
   * Written to the attempt's notice file (`$IRIS_NOTICE_FILE`) before its SIGTERM: a preemption's
   * `preempted by /JOB (BAND)`; absent: no notice.
   */
  notice?: string;
}

/** A job as the lifecycle reads it: the job, its tasks by index, the tally of their states. */
export interface JobRecord {
  readonly job: Job;
  readonly tasks: readonly Task[];
  readonly counts: Readonly<TaskCounts>;
  /** Waiting on its dependencies: its PENDING tasks are in no queue. */
  readonly waiting: boolean;
}

/** The results of a job's tasks (their latest attempts): task index -> key -> value. */
export type TaskResults = ReadonlyMap<number, Readonly<Record<string, string>>>;

/** The state the lifecycle decides from: read-only lookups (the store's model, the simulator's records). */
export interface LifecycleView {
  job(name: string): JobRecord | undefined;
  task(id: string): Task | undefined;
  attempt(task: string, n: number): Attempt | undefined;
  /** The live attempt of a task (ASSIGNED or RUNNING), if any. */
  liveAttempt(task: string): Attempt | undefined;
  /** Every live attempt, in the order they became live. */
  liveAttempts(): Iterable<Attempt>;
  /** Names of the jobs whose parent is `job`, in the order they were added. */
  children(job: string): Iterable<string>;
  /** Names of the jobs that depend on `job` (`spec.after`), in the order they were added. */
  dependents(job: string): Iterable<string>;
  worker(id: string): Worker | undefined;
  /** The stored cache hints of a worker (lifecycle/cache-hints.ts). */
  hints(worker: string): StoredHints | undefined;
  /** How long a cache hint lasts after its attempt ended (config `placement.cache-ttl`). */
  readonly hintTtl: number;
  /** The results of a job's tasks, for a pipeline stage's references (release.ts). */
  resultsOf(job: Job): TaskResults;
}

export type JobPatch = Partial<
  Pick<Job, 'state' | 'reason' | 'startedAt' | 'finishedAt' | 'failedTasks' | 'cause' | 'spec'>
>;
export type TaskPatch = Partial<
  Pick<
    Task,
    | 'state'
    | 'attempt'
    | 'workerId'
    | 'startedAt'
    | 'finishedAt'
    | 'reason'
    | 'exitCode'
    | 'failures'
    | 'preemptions'
    | 'eligibleAt'
  >
>;
export type AttemptPatch = Partial<Pick<Attempt, 'state' | 'reason' | 'exitCode' | 'finishedAt' | 'pid'>>;

/*
 * A patch written onto its record, field by field (what Object.assign does, without its generic
 * walk: the appliers' hot path). A field absent from the patch (undefined) is left as it is.
 */

export function writeJobPatch(job: Job, p: JobPatch): void {
  if (p.state !== undefined) job.state = p.state;
  if (p.reason !== undefined) job.reason = p.reason;
  if (p.startedAt !== undefined) job.startedAt = p.startedAt;
  if (p.finishedAt !== undefined) job.finishedAt = p.finishedAt;
  if (p.failedTasks !== undefined) job.failedTasks = p.failedTasks;
  if (p.cause !== undefined) job.cause = p.cause;
  if (p.spec !== undefined) job.spec = p.spec;
}

export function writeTaskPatch(task: Task, p: TaskPatch): void {
  if (p.state !== undefined) task.state = p.state;
  if (p.attempt !== undefined) task.attempt = p.attempt;
  if (p.workerId !== undefined) task.workerId = p.workerId;
  if (p.startedAt !== undefined) task.startedAt = p.startedAt;
  if (p.finishedAt !== undefined) task.finishedAt = p.finishedAt;
  if (p.reason !== undefined) task.reason = p.reason;
  if (p.exitCode !== undefined) task.exitCode = p.exitCode;
  if (p.failures !== undefined) task.failures = p.failures;
  if (p.preemptions !== undefined) task.preemptions = p.preemptions;
  if (p.eligibleAt !== undefined) task.eligibleAt = p.eligibleAt;
}

export function writeAttemptPatch(a: Attempt, p: AttemptPatch): void {
  if (p.state !== undefined) a.state = p.state;
  if (p.reason !== undefined) a.reason = p.reason;
  if (p.exitCode !== undefined) a.exitCode = p.exitCode;
  if (p.finishedAt !== undefined) a.finishedAt = p.finishedAt;
  if (p.pid !== undefined) a.pid = p.pid;
}

/** One effect on the state, applied in the order given. */
export type Change =
  | { readonly kind: 'job'; readonly job: Job; readonly patch: JobPatch }
  | { readonly kind: 'task'; readonly task: Task; readonly patch: TaskPatch }
  /** A new attempt (live from now on). */
  | { readonly kind: 'attempt-start'; readonly attempt: Attempt }
  | { readonly kind: 'attempt'; readonly attempt: Attempt; readonly patch: AttemptPatch }
  /** A requeue event (model/requeue.ts) of attempt `attempt` of `task`, in run `run` of `job`. */
  | {
      readonly kind: 'requeue';
      readonly task: string;
      readonly attempt: number;
      readonly job: string;
      readonly reason: RequeueReason;
      readonly detail: string;
      readonly run: number | null;
    }
  /** The job's dependencies are met: its PENDING tasks join the queue. */
  | { readonly kind: 'release'; readonly job: JobRecord }
  /** The endpoints the task registered go (its attempt ended). */
  | { readonly kind: 'endpoints-dropped'; readonly task: string }
  /** Stop a live attempt in the runtime (its end is recorded by the changes around it). */
  | { readonly kind: 'stop'; readonly order: StopOrder }
  | { readonly kind: 'worker'; readonly worker: Worker }
  | HintChange;

/** How a task that will never run again ends when it is stopped for good. */
export type KillState = 'KILLED' | 'COSCHED_FAILED' | 'UNSCHEDULABLE' | 'CANCELLED';

/**
 * A decision taken when reached (reconcile.ts), from the state as the items before it left it (kinds apart from a
 * Change's).
 */
export type Step =
  /** Derive the job's state from its tasks again; `finalReason` explains a final state. */
  | {
      readonly kind: 'settle';
      readonly job: JobRecord;
      readonly finalReason: string | null;
      /** The final reason when, by then, every task was cancelled one by one. */
      readonly allCancelled?: string;
      /** How the task that failed for good, and asked for this settle, failed (the job's deciding failure). */
      readonly failure?: FailureState;
    }
  /** End a job, its subtree and what waits on it (the cascade, cascade.ts). */
  | { readonly kind: 'end-job'; readonly end: JobEnd<JobRecord> }
  /** End a task for good, stopping its live attempt (nothing when it has ended already). */
  | { readonly kind: 'kill-task'; readonly task: Task; readonly state: KillState; readonly reason: string }
  /** Stop a gang member that is still live and requeue it with the gang (attempts.ts). */
  | {
      readonly kind: 'restart-member';
      readonly task: Task;
      readonly trigger: Task;
      readonly what: 'failed' | 'was preempted';
      readonly eligibleAt: number | null;
    }
  /**
   * A merged batch's lead attempt ended as `state` (attempts.ts mergedEnd): its member `task` follows, if its
   * attempt of that batch is still live.
   */
  | {
      readonly kind: 'merged-end';
      readonly task: string;
      readonly lead: string;
      readonly state: AttemptState;
      readonly reason: string | null;
      readonly exitCode: number | null;
      /** A failed lead's failure, which its members take too (absent: FAILED). */
      readonly failure?: FailureState;
    }
  /** Preempt an attempt of a worker being drained, unless it already ended with its gang (workers.ts). */
  | { readonly kind: 'drain-attempt'; readonly attempt: Attempt; readonly reason: string }
  /** An attempt on a worker that left the cluster ended: the worker is gone if nothing runs there now (workers.ts). */
  | { readonly kind: 'left-worker-idle'; readonly worker: string };

/** What a decision returns: changes to apply and steps to take, in order. */
export type Item = Change | Step;

/** The items one decision returns (the reconciler runs them in order). */
export type Decision = readonly Item[];

/** What takes a deferred step of kind `K` when its turn comes (reconcile.ts dispatches on the kind). */
export type StepDecider<K extends Step['kind']> = (
  view: LifecycleView,
  step: Extract<Step, { kind: K }>,
  now: number,
) => Decision;

export const NO_ITEMS: Decision = [];

/** The applier: where changes go (the store's model, the simulator's records). */
export interface Applier {
  apply(change: Change): void;
}
