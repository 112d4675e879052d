/**
 * The simulator's interface types: what it needs from a scheduler (PassScheduler), its options,
 * and what a run produces (per-job results, samples over time, a summary). Times are seconds of
 * virtual time throughout.
 */
import type { Plan, Snapshot } from '../cluster/scheduler/types.js';
import type { Band } from '../model/band.js';
import type { JobState } from '../model/states.js';
import type { OrderName } from './scores.js';
import type { SimElasticSettings } from './elastic.js';
import type { SimPreemptionSettings } from './preemption.js';
import type { SkippedJob } from './workload.js';

/** What the engine needs from a scheduler: the QueueScheduler's pass. */
export interface PassScheduler {
  pass(snapshot: Snapshot, resourcesChanged?: boolean): Plan;
  /**
   * A fresh scheduler making the same plans without reason text (a queue policy with
   * `explain: false`). When given, the engine runs that one, and this one too only when jobs are
   * left in the queue at the end (their reasons are reported); call it before any pass.
   */
  withoutReasons?(): PassScheduler;
}

export interface SimProgress {
  now: number;
  finished: number;
  total: number;
  events: number;
}

export interface SimOptions {
  scheduler: PassScheduler;
  order?: OrderName;
  /** Call onProgress every this many event batches (default 2000). */
  progressEvery?: number;
  onProgress?: (progress: SimProgress) => void;
  /**
   * The scheduler's queue depth, if it has one: a pass that considered fewer jobs than this
   * (placed + given a reason) saw the whole queue, so no second pass is run at that time.
   */
  queueDepth?: number;
  /**
   * A task that waits for its subtree (SimJob.wait) releases its CPU while it waits, as in the
   * live cluster; memory and devices stay held. Default true; false to compare.
   */
  release?: boolean;
  /**
   * Seconds a context-reuse hint stays fresh after a task using the key ended (default 3600, as `placement.cache-ttl`).
   */
  cacheTtl?: number;
  /**
   * Plan jobs without a time limit of their own (SimJob.runsOf) with a runtime predicted from
   * earlier runs (planner/prediction.ts), as the live cluster does. Default false: see
   * docs/simulate.md, "Runtime predictions".
   */
  predict?: boolean;
  /** Run the elastic coordinator with these settings (seconds); absent: off. */
  elastic?: SimElasticSettings;
  /**
   * Carry out the scheduler's preemptions (preemption.ts) with this grace (seconds); the scheduler
   * must be made with preemption on and the same exempt time (policy.ts createScheduler), which the
   * engine wakes at when it ends for a waiting job. Absent: off.
   */
  preemption?: SimPreemptionSettings;
}

export interface SimJobResult {
  name: string;
  index?: number;
  user: string;
  submit: number;
  /** First task start. */
  start: number;
  /** Last task end. */
  end: number;
  wait: number;
  /** Run time of a task as simulated (capped at the time limit). */
  run: number;
  procs: number;
  tasks: number;
  workers: string[];
  /** True when the task was stopped at its time limit. */
  timeLimited: boolean;
  /** Its final state, the lifecycle's (a task stopped by its limit ends TIMEOUT, and so its job). */
  state: JobState;
  boundedSlowdown: number;
  /** Its band, when not the default (interactive). */
  band?: Band;
  /** With preemption, when any: its tasks stopped by preemption, and the CPU-seconds they ran for nothing. */
  preemptions?: number;
  lostCpuSeconds?: number;
}

export interface SimSample {
  time: number;
  /** Jobs with at least one pending task. */
  queued: number;
  runningTasks: number;
  /** Allocated CPU / total CPU of all workers. */
  utilization: number;
}

export interface SimSummary {
  jobs: number;
  skipped: number;
  unfinished: number;
  /** Jobs left in a deadlock when the run stopped: waiting tasks and what they wait for. */
  deadlocked: number;
  avgWait: number;
  avgBoundedSlowdown: number;
  utilization: number;
  makespan: number;
  start: number;
  end: number;
  timeLimited: number;
  /** Σ task run time (s, loads included) × its worker's cost per hour / 3600. */
  totalCost: number;
  /** Task starts of jobs that `use` models, and those on a worker warm for every key. */
  reuseStarts: number;
  reuseHits: number;
  /** reuseHits / reuseStarts; null when no task used a model. */
  reuseHitRate: number | null;
  /** Worker-hours spent disabled by the elastic coordinator; null when it was off. */
  disabledWorkerHours: number | null;
  /**
   * What the workers cost while enabled over the makespan: Σ cost per hour × makespan / 3600, less the disabled time's
   * cost.
   */
  fleetCost: number;
  passes: number;
  batches: number;
  /**
   * Task merging (cluster/scheduler/placement/merge.ts), when some job has a merge key: merged
   * attempts started, the tasks that joined one as members (each a start, and perhaps a model
   * load, saved), and the starts that loaded a model.
   */
  merging?: { batches: number; mergedTasks: number; modelLoads: number };
  /** With preemption: tasks stopped by preemption and the CPU-seconds they ran for nothing. */
  preemption?: { tasks: number; lostCpuSeconds: number };
  /** Per band (highest first), when the run had preemption or jobs of more than one band (bands.ts). */
  bands?: BandSummary[];
}

/** A band's finished jobs: wait (mean, median, 95th percentile, nearest rank) and mean bounded slowdown. */
export interface BandSummary {
  band: Band;
  jobs: number;
  waitMean: number;
  waitMedian: number;
  waitP95: number;
  slowdownMean: number;
  /** Its tasks stopped by preemption, and the CPU-seconds they ran for nothing. */
  preemptions: number;
  lostCpuSeconds: number;
}

export interface SimResult {
  summary: SimSummary;
  jobs: SimJobResult[];
  skipped: SkippedJob[];
  unfinished: SkippedJob[];
  /** The deadlocked jobs with why each cannot go on (empty when none). */
  deadlocked: SkippedJob[];
  samples: SimSample[];
}
