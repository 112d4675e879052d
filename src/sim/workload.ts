/**
 * The simulator's input: declared workers and a list of root jobs, each with a submit time, an
 * actual run time and a time limit (all in SECONDS of virtual time). Children of a job are
 * submitted at their parent's start plus `after`. Both input formats (SWF traces and the iris
 * workload file) are turned into this shape; the engine never sees the file format. Jobs may
 * name a category and the models they `use` (load times in `models`), and root jobs may `need`
 * earlier root jobs (pipelines).
 */
import type { Band } from '../model/band.js';
import type { QueuesConfig } from '../config/schema/queues.js';
import type { Constraint } from '../model/constraints.js';
import type { ResourceSpec, WorkerDevice } from '../model/resources.js';
import type { JobCategory } from '../model/workload.js';

export interface SimWorker {
  id: string;
  cpuMillis: number;
  memoryBytes: number;
  device: WorkerDevice;
  attributes: Record<string, string>;
  /** What an hour of this worker costs (`cost-per-hour`); absent: 1. */
  costPerHour?: number;
}

export interface SimJob {
  /** Canonical job name (`/train`, `/train/eval`); SWF jobs are `/job-<id>`. */
  name: string;
  /** Roots: absolute submit time (s). Children: seconds after the parent's start. */
  submit: number;
  /** Actual run time of each task (s). A task is stopped at its time limit if longer. */
  run: number;
  /** Time limit (s): what stops a task, and what the planner uses as its duration unless predicted. */
  timeLimit: number;
  /**
   * The time limit was not given (SWF field 9 is -1; a workload job without `time-limit`): with
   * runtime predictions on (SimOptions.predict) the planner plans with the mean of the last two
   * runs that share this key (planner/prediction.ts). SWF: user (field 12) and executable
   * (field 14); workload files: the declared name and user. Absent: the limit was given.
   */
  runsOf?: string;
  replicas: number;
  resources: ResourceSpec;
  constraints: Constraint[];
  coschedule: string | null;
  user: string;
  /** Processors reported per job (SWF procs; for iris jobs cpu cores x replicas). */
  procs: number;
  /** Position in the source trace (SWF 0-based index), when there is one. */
  index?: number;
  /** Jobs submitted `submit` seconds after this job starts. */
  children: SimJob[];
  /** Each task, after its run, waits until every job of its subtree has ended (absent: false). */
  wait?: boolean;
  /** What the job does, for placement scores (absent: other). */
  category?: JobCategory;
  /** Models or data sets its tasks load (keys of SimWorkload.models); absent: none. */
  uses?: string[];
  /** Its merge key (`--merge-key`, cluster/scheduler/placement/merge.ts); absent: never merged. */
  mergeKey?: string;
  /** Its priority band (model/band.ts); absent: interactive. */
  band?: Band;
  /** Its named queue (the workload's `queues:`); absent: the default queue, or none. */
  queue?: string;
  /**
   * Root jobs only: jobs (canonical names, declared earlier) that must end before this one is
   * submitted — a pipeline stage that `needs` others. It arrives at max(submit, last need's end).
   */
  needs?: string[];
}

export interface SkippedJob {
  name: string;
  reason: string;
}

export interface SimWorkload {
  source: string;
  kind: 'swf' | 'iris';
  workers: SimWorker[];
  /** Root jobs sorted by submit time (stable). */
  jobs: SimJob[];
  /** Jobs dropped while loading (e.g. wider than the processor pool). */
  skipped: SkippedJob[];
  /** The processor pool size for SWF workloads; null for iris workloads. */
  procs: number | null;
  /** Load time (s) of each model or data set jobs `use`; paid by a task starting where the key is not warm. */
  models?: Record<string, number>;
  /** Named queues (`queues:` and `default-queue:`, as in the cluster config); absent: one queue. */
  queues?: QueuesConfig;
}

/** Memory of the single SWF pool worker: large enough never to constrain anything. */
export const POOL_MEMORY_BYTES = 2 ** 50;
export const POOL_WORKER_ID = 'pool';

/** One worker standing for a pool of `procs` processors (1 processor = 1000 cpu millis). */
export function poolWorker(procs: number): SimWorker {
  return {
    id: POOL_WORKER_ID,
    cpuMillis: procs * 1000,
    memoryBytes: POOL_MEMORY_BYTES,
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: { 'device-type': 'cpu' },
  };
}

/**
 * The live cluster's default time limit (config `time-limit:`, 24 h unless set) on a replayed
 * workload: every job without a limit of its own (SimJob.runsOf set: SWF field 9 is -1, a
 * workload-file job without `time-limit`), children included, gets `seconds` as its limit instead
 * of the reader's fallback (its run time). Jobs that gave a limit keep it. A task still runs its
 * actual run time; the limit stops it only when shorter. Returns new jobs; the input is unchanged.
 */
export function withDefaultTimeLimit(jobs: readonly SimJob[], seconds: number): SimJob[] {
  return jobs.map((job) => ({
    ...job,
    ...(job.runsOf !== undefined ? { timeLimit: seconds } : {}),
    children: withDefaultTimeLimit(job.children, seconds),
  }));
}

/** Number of jobs in a workload, children included (only those `which` accepts, when given). */
export function countJobs(jobs: readonly SimJob[], which?: (job: SimJob) => boolean): number {
  let n = 0;
  const stack = [...jobs];
  while (stack.length > 0) {
    const job = stack.pop()!;
    if (!which || which(job)) n++;
    for (const child of job.children) stack.push(child);
  }
  return n;
}
