/**
 * The scheduler's input and output. `schedule(snapshot) -> Plan` is pure: it reads only the
 * snapshot (time included) and never touches clocks, randomness, timers, fs or processes.
 */
import type { Constraint } from '../../model/constraints.js';
import type { ResourceSpec, WorkerDevice } from '../../model/resources.js';
import type { PlacementDecision, Quota } from '../../model/types.js';
import type { JobCategory } from '../../model/workload.js';
import type { Band } from '../../model/band.js';

/** Where a planned duration came from (planner/prediction.ts). */
export type EstimateSource = 'predicted' | 'limit';

/** The duration the planner plans one task of a job with, and why (planner/prediction.ts). */
export interface RuntimeEstimate {
  /** The planned duration of one task; Infinity: no limit and no prediction. */
  duration: number;
  source: EstimateSource;
  /** Runs the prediction is the mean of (1 or 2); 0 when source is `limit`. */
  runs: number;
}

export interface SchedulerJob {
  name: string;
  depth: number;
  rootSubmittedAt: number;
  seq: number;
  user: string;
  resources: ResourceSpec;
  constraints: readonly Constraint[];
  coschedule: string | null;
  replicas: number;
  /** The job's time limit (its planned duration); null/undefined: the queue's default. */
  timeLimitMs?: number | null;
  /**
   * The duration the planner plans with instead of the time limit: a runtime predicted from
   * past runs (planner/prediction.ts). Absent/null: the time limit.
   */
  predictedMs?: number | null;
  /**
   * A sticky stage (model/stickiness.ts) whose parent's worker is READY: its tasks may only go on
   * `workerId`, where stage job `parent` ran. Absent/null: no stickiness (the snapshot leaves it out
   * when stickiness is off, the parent's worker is gone or draining, or the job is a gang).
   */
  sticky?: { readonly workerId: string; readonly parent: string } | null;
  /** What the job does (model/workload.ts), for placement scores; absent: `other`. */
  category?: JobCategory;
  /** Models or data sets its tasks load, for context reuse; absent: none. */
  uses?: readonly string[];
  /** Its priority band (model/band.ts): the first key of queue order. Absent: interactive. */
  band?: Band;
  /**
   * Its merge group (placement/merge.ts mergeGroup): tasks of jobs with equal groups may run as one
   * attempt. Absent/null: never merged.
   */
  merge?: string | null;
  /** Its named queue (queue/queue-set.ts); absent: the cluster's only queue. */
  queue?: string;
}

export interface SchedulerTask {
  id: string;
  job: string;
  index: number;
  submittedAt: number;
  seq: number;
}

export interface FreeCapacity {
  cpuMillis: number;
  memoryBytes: number;
  /** Free device instance indices (GPU ids or TPU chip ids) on this worker. */
  devices: readonly number[];
}

export interface WorkerView {
  id: string;
  device: WorkerDevice;
  attributes: Readonly<Record<string, string>>;
  capacity: { cpuMillis: number; memoryBytes: number };
  free: FreeCapacity;
  /** False while disabled, draining or drained: receives no placements. */
  schedulable: boolean;
  /**
   * Set while the worker is disabled (elastic coordinator or user), e.g. `elastic: idle 1m` or
   * `by user`: it takes no placements now but may be enabled again, so submit-time feasibility
   * counts it as present (placement/feasibility.ts).
   */
  disabled?: string | null;
  /**
   * True for a worker that left the cluster (no longer in the configuration, or its node deleted)
   * while tasks still run there; once they ended it is in no snapshot at all. Reasons name it as
   * such, and leave out a gang group of only such workers (placement/explain.ts).
   */
  removed?: boolean;
  /** What an hour of this worker costs (config `cost-per-hour`); absent: 1. */
  costPerHour?: number;
  /**
   * When this worker last received a placement (snapshot clock); absent or null: never. Adaptive ties go to the longest
   * idle.
   */
  lastDispatchAt?: number | null;
}

/**
 * A context-reuse hint (issue 15 §2): worker holds model or data set `key` (a task that `uses` it
 * ran there) until `expiresAt` (snapshot clock); `loading`: a task using it runs there now.
 */
export interface CacheHint {
  key: string;
  expiresAt: number;
  loading: boolean;
}

export interface UserUsage {
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
  pendingTasks: number;
}

/** One running task's hold on a worker, until its time limit runs out (queue policies plan with it). */
export interface RunningAllocation {
  task: string;
  job: string;
  workerId: string;
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
  /**
   * When the task is planned to end, on the snapshot's clock: startedAt + its time limit, or its
   * predicted end (planner/prediction.ts plannedEnd); Infinity when unlimited.
   */
  endsAt: number;
  /** When the attempt started (snapshot clock): preemption's exempt time and "least work lost". Absent: unknown. */
  startedAt?: number;
  /** Its user (quotas: which running tasks are borrowed, queue/shares.ts). Absent: unknown. */
  user?: string;
  /** Its job's own band (a borrowed task counts as batch: preemption/plan.ts). Absent: interactive. */
  band?: Band;
  /** Set for a gang member: the gang is its job, stopped whole or not at all. */
  gang?: boolean;
  /** The attempt has ended and its process is being stopped: it holds capacity, but is no victim. */
  stopping?: boolean;
  /**
   * When the hold begins, if later than now: another queue's reservation on a shared worker
   * (queue/queue-set.ts). Such a hold is also `stopping` (no victim) and has no user. Absent: now.
   */
  startsAt?: number;
}

/**
 * What a baseline placement mode (placement/baselines.ts) keeps between passes. The scheduler
 * stays pure: it reads this from the snapshot and returns the next one in the plan; whoever
 * drives it (QueueScheduler, for the controller and the simulator) carries it from pass to pass.
 */
export interface PlacementMemory {
  /** static-worker: root job name (first path component, `/train`) -> the worker it is bound to. */
  readonly roots: ReadonlyMap<string, string>;
  /**
   * fixed-pipeline: task type (placement/baselines.ts typeOf: `/demo/train`, `/train-3` -> `train`) -> the worker it is
   * bound to.
   */
  readonly types: ReadonlyMap<string, string>;
  /** round-robin: the worker that took the last task (the next search starts after it); null: from the first. */
  readonly cursor: string | null;
}

export interface Snapshot {
  now: number;
  /** Baseline placement modes' state from the last pass; absent: none yet. */
  placementMemory?: PlacementMemory;
  /** Worker id -> key -> its context-reuse hint; absent: no hints (no reuse preference). */
  cacheHints?: ReadonlyMap<string, ReadonlyMap<string, CacheHint>>;
  jobs: ReadonlyMap<string, SchedulerJob>;
  /** Tasks in PENDING state, in any order; the scheduler orders them. */
  pending: readonly SchedulerTask[];
  workers: readonly WorkerView[];
  usage: ReadonlyMap<string, UserUsage>;
  quotas: ReadonlyMap<string, Quota>;
  /**
   * Running tasks with their planned ends (queue policies other than first-fit). Absent: what
   * each worker holds (capacity minus free) is taken to be held with no known end.
   */
  running?: readonly RunningAllocation[];
  /**
   * Capacity held for preemptors while their victims stop (preemption/claims.ts): each claimant is
   * placed first on its claimed workers; every other job plans without that capacity. Absent: none.
   */
  claims?: readonly Claim[];
  /**
   * True when `pending` is already in queue order (orderTasks) with each job's tasks adjacent,
   * e.g. a simulator keeping its own queue, or the live cluster's (controller/ordered-queue.ts).
   * QueueScheduler then reads only as far into it as one pass needs and gives reasons only to the
   * jobs it considered.
   */
  pendingOrdered?: boolean;
  /**
   * At most what any pending task asks of each resource (a lower bound over the queue, kept by its
   * holder: the live cluster's ordered queue, controller/ordered-queue.ts). A walk that needs the
   * least the rest of an ordered queue asks (queue/job-queue.ts leastAhead) takes it instead of
   * reading the rest. Absent: the rest is read.
   */
  leastAsked?: { cpuMillis: number; memoryBytes: number; devices: number };
  /**
   * Reservations other named queues hold on shared workers (queue/queue-set.ts), already entered in
   * `running` as future holds: job -> its reserved start and queue, for the reason of a job that
   * would delay one. Absent: none.
   */
  otherReservations?: ReadonlyMap<string, { start: number; queue: string }>;
}

export interface Placement {
  task: string;
  job: string;
  workerId: string;
  deviceIndices: number[];
  /** Why this worker (adaptive placement); absent where placement did not score (first-fit, gangs). */
  decision?: PlacementDecision;
  /**
   * Pending tasks that run merged with this one (placement/merge.ts), in queue order: one attempt
   * on this worker with this task's resources serves them all. Absent: not merged.
   */
  merged?: string[];
}

export interface Plan {
  placements: Placement[];
  /**
   * Human reason per job that still has pending tasks after this pass. Queue policies leave out
   * jobs they skipped because they were blocked before: those keep the reason given then.
   */
  reasons: Map<string, string>;
  /** Job name -> reserved start time (snapshot clock), from queue policies that reserve. */
  reservations?: Map<string, number>;
  /** Under a baseline placement mode: the memory to give the next pass (Snapshot.placementMemory). */
  placementMemory?: PlacementMemory;
  /**
   * True when a next pass at the same instant, with no resource change and no new job, would
   * start nothing (queue/pass.ts): the simulator runs no such pass. Absent: it might.
   */
  settled?: boolean;
  /** Blocked jobs that stop lower-band work to start (preemption/plan.ts), when preemption is on. */
  preemptions?: Preemption[];
  /**
   * When a running task's exempt time next ends that a blocked job could then preempt
   * (preemption/plan.ts nextExemptEnd): the driver runs a pass then. Absent: none.
   */
  nextExemptEnd?: number;
}

/** The filters of the one placement chain (placement/filters.ts), in chain order. */
export type FilterName =
  | 'schedulable'
  | 'device-type'
  | 'device-variant'
  | 'gpu-memory'
  | 'constraints'
  | 'gang-attribute'
  | 'total-capacity'
  | 'sticky'
  | 'gang-taken'
  | 'free-capacity';

/**
 * Why one filter turned one worker down, as data. `message` is rendered on demand by
 * placement/reason.ts, the one place reason texts are written; `numbers` are what the job needs
 * and what the worker has of the item in question (cpu millis, bytes, device instances).
 */
export interface FilterReason {
  readonly filter: FilterName;
  readonly message: string;
  readonly numbers?: { readonly need: number; readonly has: number };
}

/** Filter verdict: ok, not now (stays pending), or never on this cluster (refused at submit). */
export type Verdict =
  | { readonly kind: 'ok' }
  | { readonly kind: 'not_now'; readonly reasons: readonly FilterReason[] }
  | { readonly kind: 'never'; readonly reasons: readonly FilterReason[] };

/** An amount of one worker's capacity: cpu, memory and device instances. */
export interface CapacityAmount {
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
}

/** Capacity a preemptor holds on a worker while its victims stop (preemption/claims.ts). */
export interface Claim {
  job: string;
  workerId: string;
  /** What one of its tasks takes there. */
  amount: CapacityAmount;
}

/** One preemptor's decision (preemption/plan.ts): stop `victims` so `job`'s tasks go on `workers`. */
export interface Preemption {
  job: string;
  band: Band;
  /** Task ids, sorted. */
  victims: string[];
  /** The worker of each of its tasks once the victims are gone (what the driver claims). */
  workers: string[];
  /** What one of its tasks takes (each claim's amount). */
  need: CapacityAmount;
}
