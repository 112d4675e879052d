/**
 * Plain data shared by every layer: what a user submits (JobSpec), and what the store keeps
 * (Job, Task, Attempt, Worker). Times are epoch milliseconds.
 */
import type { Constraint } from './constraints.js';
import type { ResourceSpec, WorkerDevice } from './resources.js';
import type { StageInfo } from './pipeline.js';
import type { AttemptState, JobState, TaskState } from './states.js';
import type { JobCategory } from './workload.js';
import type { Mount } from './mounts.js';
import type { Band } from './band.js';

export interface JobSpec {
  /** Canonical job name (`/train/eval`). */
  name: string;
  user: string;
  command: string[];
  env: Record<string, string>;
  cwd: string | null;
  /** Container image the tasks run in (Docker runtime), or null to run them as local processes. */
  image: string | null;
  /** User a container of this job runs as (`--user-in-container`); absent or null: the config's `container-user`. */
  containerUser?: string | null;
  /**
   * Host paths in this job's containers (`--mount`, the config's `mounts`, the submit directory),
   * each source a real path resolved at submit (src/cluster/admission/workspace.ts); absent or
   * empty: none.
   */
  mounts?: Mount[];
  /**
   * Network of this job's containers (`--network`); absent or null: the config's `network`, else bridge (TPU jobs:
   * host).
   */
  network?: 'bridge' | 'host' | null;
  /**
   * Never run privileged, even on a worker with `privileged: true`: set on a child of an
   * unprivileged container task (src/cluster/admission/isolation.ts); absent: as the worker says.
   */
  unprivileged?: boolean;
  replicas: number;
  resources: ResourceSpec;
  constraints: Constraint[];
  /** Attribute that all tasks must share (gang / co-scheduling group_by), or null. */
  coschedule: string | null;
  maxRetries: number;
  /**
   * First wait before a failed task's retry (`--retry-backoff`), doubled after each failure and
   * capped at retryBackoffMaxMs; absent or null: retry at once.
   */
  retryBackoffMs?: number | null;
  /** The cap of that wait (`--retry-backoff-max`); absent or null: 10 times retryBackoffMs. */
  retryBackoffMaxMs?: number | null;
  maxTaskFailures: number;
  maxPreemptions: number;
  timeoutMs: number | null;
  /**
   * True when no time limit was asked for: `timeoutMs` is the cluster's default, and the planner
   * plans with a predicted runtime (src/cluster/scheduler/planner/prediction.ts). Absent: the limit
   * was given (or the job was stored before predictions): it is planned with as it is.
   */
  defaultTimeLimit?: boolean;
  schedulingTimeoutMs: number | null;
  /** Its named queue (`--queue`, model/queues.ts); absent: the cluster has no named queues. */
  queue?: string;
  /**
   * The task attempt that submitted the job (absent: submitted from outside the cluster). When
   * that task runs again (retry, preemption, restart), the job is ended: docs/architecture.md, "Re-run parents".
   */
  submittedBy?: { task: string; attempt: number };
  /**
   * The OS user who submitted the job for `user` (the owner's `--user`); absent when they are the
   * same. Quotas count the job against `user`.
   */
  submitter?: string;
  /**
   * Jobs this one runs after (`--after JOB[:ok|:any|:failed]`), canonical names; absent or empty:
   * none. src/cluster/lifecycle/dependencies.ts holds the rules (docs/architecture.md, "Dependencies").
   */
  after?: JobDependency[];
  /** The stage this job is of a pipeline (`iris submit -f`, src/model/pipeline.ts); absent: not a stage. */
  stage?: StageInfo;
  /** What the job does, for placement (model/workload.ts); absent: `other`. */
  category?: JobCategory;
  /** Models or data sets its tasks load (`--uses`), for context reuse in placement; absent or empty: none. */
  uses?: string[];
  /**
   * Its priority band (`--priority`, src/model/band.ts): the queue orders band first, and preemption
   * stops only lower bands. Absent (a job stored before bands): `interactive`.
   */
  band?: Band;
  /**
   * Its merge key (`--merge-key`, a stage's `merge`): ready tasks of jobs with the same key, user,
   * image, command and resources may run as one attempt (src/cluster/scheduler/placement/merge.ts).
   * Absent: never merged.
   */
  mergeKey?: string;
  /** The job is the root of a pipeline of these stages (in submit order, with their needs); absent: not a pipeline. */
  pipeline?: { stages: Array<{ name: string; needs: string[] }> };
}

/** When a dependency is met: `ok` its job succeeded, `any` it ended in any way, `failed` it ended without success. */
export type DependencyCondition = 'ok' | 'any' | 'failed';

export interface JobDependency {
  job: string;
  condition: DependencyCondition;
}

/** Why a job ended when another job caused it: a dependency that can never be met (`parent`: that job). */
export interface JobCause {
  kind: 'dependency_failure';
  parent: string;
}

export interface Job {
  name: string;
  /**
   * Run id: a positive integer from the store's persisted counter, unique over every submission
   * of the cluster (children included) and never reused. A name points to its latest run; older
   * runs of the name live in the archive (`NAME@RUN` selects one).
   */
  run: number;
  spec: JobSpec;
  depth: number;
  parent: string | null;
  submittedAt: number;
  /** Submission time of the tree's root, inherited by children (orphans use their own). */
  rootSubmittedAt: number;
  /** Monotonic insertion order, the last tie-breaker of the queue. */
  seq: number;
  state: JobState;
  /** Human reason for the current state: pending reason, failure cause, "parent job ended". */
  reason: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** Number of tasks that failed for good (retries exhausted). */
  failedTasks: number;
  /** Set when another job ended this one (a dependency failure cascade); absent otherwise. */
  cause?: JobCause | null;
}

/**
 * The store holds each task as a compact record whose fields are accessors (cluster/state/task-record.ts):
 * copy one with its `plainTask`/`toJSON`, not by spreading or cloning it.
 */
export interface Task {
  /** `/train/task-0` */
  id: string;
  job: string;
  index: number;
  state: TaskState;
  /** Number of the current (or next) attempt, 0-based. */
  attempt: number;
  /** When the task entered the queue the first time; retries keep it (priority position). */
  submittedAt: number;
  seq: number;
  failures: number;
  preemptions: number;
  workerId: string | null;
  exitCode: number | null;
  reason: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  /**
   * A PENDING task waiting out its retry backoff (`--retry-backoff`) may be placed from this time
   * on; null: at once. Stored, so the wait survives a restart of the cluster.
   */
  eligibleAt: number | null;
}

export interface Attempt {
  task: string;
  attempt: number;
  workerId: string;
  state: AttemptState;
  pid: number | null;
  exitCode: number | null;
  reason: string | null;
  startedAt: number;
  finishedAt: number | null;
  logPath: string;
  /** Device indices on the worker this attempt holds while it is live (empty for none). */
  devices: number[];
  /** The log limit in bytes when the attempt's output passed it (its log was cut there), else null. */
  logCutBytes: number | null;
  /**
   * Measured CPU time (user + system) of everything the attempt ran, in seconds; null until measured or when the
   * runtime cannot tell.
   */
  cpuSeconds: number | null;
  /** Measured peak memory of the attempt (its cgroup, process tree or container), in bytes; null when unknown. */
  peakMemoryBytes: number | null;
  /** How placement chose its worker (adaptive placement); absent or null: not scored. */
  placement?: PlacementDecision | null;
  /**
   * Set on every attempt of a merged batch (docs/architecture.md, "Task merging"): `lead` is the
   * task whose attempt runs the command, `tasks` all the batch's tasks, lead first. A member's
   * attempt (task !== lead) holds no capacity and has no process: it follows the lead's.
   * Absent or null: not merged.
   */
  merged?: MergedBatch | null;
}

/** The tasks one merged attempt serves (Attempt.merged). */
export interface MergedBatch {
  lead: string;
  tasks: string[];
}

/** True for a member of a merged batch other than its lead: no process, no capacity of its own. */
export function isMergedMember(a: Pick<Attempt, 'task' | 'merged'>): boolean {
  return !!a.merged && a.merged.lead !== a.task;
}

/** What adaptive placement decided for one attempt (docs/configuration.md, "Placement"). */
export interface PlacementDecision {
  /**
   * Placement mode and selection that decided (`adaptive`, `adaptive+min-satisfying`, `static-worker`, …); baselines
   * record score 0 and no runner-up.
   */
  mode: string;
  /** Feasible workers the task could go to. */
  pool: number;
  /** The λ of the job's category. */
  lambda: number;
  /** The chosen worker's score. */
  score: number;
  /** The best other worker and its score; null when the pool had one worker. */
  runnerUp: { workerId: string; score: number } | null;
  /** The chosen worker held a fresh cache hint for every key the task uses (false when it uses none). */
  reuseHit: boolean;
}

/**
 * READY takes work; DISABLED takes no new placements but its running tasks go on (elastic
 * coordinator or `iris workers disable`); DRAINING/DRAINED: drained, its tasks were preempted —
 * except a worker that left the cluster (Worker.left), DRAINING while its tasks run on, then gone.
 */
export type WorkerState = 'READY' | 'DISABLED' | 'DRAINING' | 'DRAINED';

/**
 * Who disabled a worker: the user (`iris workers disable`), the elastic coordinator, or the
 * worker's node itself (kubernetes backend: a cordoned or not-Ready Node, docs/kubernetes.md).
 */
export type DisabledBy = 'user' | 'elastic' | 'node';

/**
 * A worker that left the cluster (persisted with the worker): no longer in the configuration
 * (`config`, at a start) or its Kubernetes Node deleted (`node`). It takes no new work; once it
 * runs nothing it is gone from every live view (cluster/state/worker-sync.ts), while the history
 * of what ran there keeps its name. Named again (in the config, a Node) it comes back READY.
 */
export interface WorkerLeft {
  by: 'config' | 'node';
  /** When it left (ms since the epoch). */
  at: number;
}

/** Why and since when a DISABLED worker is disabled (persisted with the worker). */
export interface WorkerDisable {
  by: DisabledBy;
  /** Why, in words: `idle 60s` (elastic); empty for the user. */
  reason: string;
  /** When it was disabled (ms since the epoch). */
  disabledAt: number;
}

/** What an hour of a worker without `cost-per-hour` costs: in cost figures and in placement's ĉ. */
export const UNPRICED_COST_PER_HOUR = 1;

/** A worker's cost per hour: its `cost-per-hour`, else UNPRICED_COST_PER_HOUR. */
export const costPerHourOf = (w: { costPerHour?: number | undefined }): number =>
  w.costPerHour ?? UNPRICED_COST_PER_HOUR;

/**
 * The one cost rule: only a READY worker costs (its `cost-per-hour`, default 1); a disabled,
 * draining or drained worker costs nothing (cost figures, metrics, the simulator's totals).
 */
export function enabledCostPerHour(workers: Iterable<Pick<Worker, 'state' | 'costPerHour'>>): number {
  let total = 0;
  for (const w of workers) if (w.state === 'READY') total += costPerHourOf(w);
  return total;
}

/** The text of a disable: `elastic: idle 1m` or `by user` (placement reasons, `iris workers`). */
export function disableText(d: WorkerDisable): string {
  if (d.by === 'node') return d.reason;
  return d.by === 'user' ? (d.reason ? `by user: ${d.reason}` : 'by user') : `elastic: ${d.reason}`;
}

/** A worker's declared draw (config `power-watts: {idle, busy}`), in watts; busy >= idle (energy.ts). */
export interface PowerWatts {
  idle: number;
  busy: number;
}

export interface WorkerSpec {
  id: string;
  cpuMillis: number;
  memoryBytes: number;
  device: WorkerDevice;
  /** Free-form attributes plus the well-known `device-type` and `device-variant`. */
  attributes: Record<string, string>;
  /**
   * Host paths of this worker's accelerator instances, index = device index (TPU chips:
   * `/dev/accel0`, `/dev/vfio/0`, or stand-ins a local topology declares). Absent or empty when
   * none are known; GPUs are reached through the engine's device request, not paths.
   */
  devicePaths?: string[];
  /** Name other tasks of a TPU slice use to reach this worker (TPU_WORKER_HOSTNAMES); default "localhost". */
  hostname?: string;
  /** Containers on this worker may run privileged (config opt-in, off by default). */
  privileged?: boolean;
  /** What an hour of this worker costs (config `cost-per-hour`, any unit); absent: 1. */
  costPerHour?: number;
  /** What this worker draws (config `power-watts`, energy.ts); absent: nothing counted. */
  powerWatts?: PowerWatts;
}

export interface Worker extends WorkerSpec {
  state: WorkerState;
  /** Set exactly while state is DISABLED. */
  disabled?: WorkerDisable | null;
  /** Set once it left the cluster (see WorkerLeft); absent while it is part of it. */
  left?: WorkerLeft;
}

/** Whether `w` is part of the cluster: not left, or left but still running tasks (DRAINING). */
export const isPresent = (w: Pick<Worker, 'state' | 'left'>): boolean => !w.left || w.state === 'DRAINING';

export interface Endpoint {
  name: string;
  address: string;
  task: string;
  attempt: number;
  job: string;
  registeredAt: number;
}

export interface Quota {
  maxRunningCpuMillis: number | null;
  maxRunningMemoryBytes: number | null;
  maxRunningAccelerators: number | null;
  maxPendingTasks: number | null;
  /**
   * The user's weight in fair sharing (docs/priorities.md): their dominant share is divided by it,
   * so a weight of 2 lets them hold twice the share of a weight-1 user before going behind. Default 1.
   */
  weight: number;
  /**
   * True: the running limits are a wall (work waits at the quota, Slurm's GrpTRES). False (the
   * default): they are a share, and running past them is borrowing (docs/priorities.md).
   */
  hard: boolean;
}
