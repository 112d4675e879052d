/**
 * The simulation engine's bookkeeping records (engine.ts): a running task, an active job, and the
 * two kinds of timed events, and the scheduler's view of a submitted job. Internal to the simulator.
 */
import type { RunningAllocation, SchedulerJob } from '../cluster/scheduler/types.js';
import type { SimJob } from './workload.js';

/** A running task: what the planner sees (Snapshot.running) and the device indices it holds. */
export interface Held {
  allocation: RunningAllocation;
  deviceIndices: number[];
  /** Seconds the run takes: min(run + load, time limit). */
  duration: number;
}

export interface ActiveJob {
  spec: SimJob;
  sched: SchedulerJob;
  submit: number;
  start: number | null;
  end: number;
  pendingTasks: number;
  unfinishedTasks: number;
  workers: Set<string>;
  timeLimited: boolean;
  parent: ActiveJob | null;
  /** Jobs of the subtree (arrived or not) that have not ended. */
  openDescendants: number;
  /** Tasks whose run is over, waiting for the subtree (SimJob.wait). */
  waiting: string[];
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
}

/**
 * The scheduler's view of a submitted job: as the live cluster's (depth, root submit time or
 * ordering score, submission sequence), with times in seconds (opaque numbers to the planner).
 */
export function schedulerJobOf(spec: SimJob, depth: number, rootKey: number, seq: number): SchedulerJob & { timeLimitMs: number } {
  return {
    name: spec.name,
    depth,
    rootSubmittedAt: rootKey,
    seq,
    user: spec.user,
    resources: spec.resources,
    constraints: spec.constraints,
    coschedule: spec.coschedule,
    replicas: spec.replicas,
    timeLimitMs: spec.timeLimit,
    ...(spec.category ? { category: spec.category } : {}),
    ...(spec.uses ? { uses: spec.uses } : {}),
  };
}
