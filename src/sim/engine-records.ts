/**
 * The simulation engine's bookkeeping records (engine.ts): a running task, an active job, and the
 * two kinds of timed events. Internal to the simulator.
 */
import type { JobRecord } from '../cluster/lifecycle/changes.js';
import type { RunningAllocation, SchedulerJob } from '../cluster/scheduler/types.js';
import type { RuntimeEstimate } from '../cluster/scheduler/planner/index.js';
import type { SimJob } from './workload.js';

/** A running task: what the planner sees (Snapshot.running) and the device indices it holds. */
export interface Held {
  allocation: RunningAllocation;
  deviceIndices: number[];
  /** Seconds the run takes: min(run + load, time limit). */
  duration: number;
  /** Its run (with the load) outlasts the time limit: it is stopped at `duration` and ends TIMEOUT. */
  timedOut: boolean;
  /** The number of its attempt (the lifecycle's, state.ts). */
  attempt: number;
  /** When it started (virtual seconds). */
  start: number;
  /** With predictions: its predicted duration (its end is corrected once outlived); null: its limit. */
  estimate: RuntimeEstimate | null;
}

export interface ActiveJob {
  spec: SimJob;
  sched: SchedulerJob;
  /** With predictions: the planned duration fixed at submit (planner/prediction.ts); null: its limit. */
  estimate: RuntimeEstimate | null;
  /** Its job and tasks in the simulator's state (state.ts): their states are the lifecycle's. */
  record: JobRecord;
  submit: number;
  start: number | null;
  end: number;
  workers: Set<string>;
  timeLimited: boolean;
  parent: ActiveJob | null;
  /** Jobs of the subtree (arrived or not) that have not ended. */
  openDescendants: number;
  /** Tasks whose run is over, waiting for the subtree (SimJob.wait). */
  waiting: string[];
  /** Tasks of it stopped by preemption, and the CPU-seconds they ran for nothing. */
  preemptions: number;
  lostCpuSeconds: number;
}

export interface Arrival {
  time: number;
  seq: number;
  spec: SimJob;
  parent: ActiveJob | null;
}

export interface Completion {
  time: number;
  seq: number;
  task: string;
  /** The attempt whose run ends (a completion of an attempt stopped since is stale). */
  attempt: number;
}
