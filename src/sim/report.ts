/**
 * What a simulation run is about (SimRunInfo, CompatInfo) and the JSON document `iris simulate
 * --json` returns for it, for a run through the iris scheduler and for the RLScheduler
 * compatibility mode. Pure data; the text rendering lives in src/ui/simulation.ts.
 */
import type { SimJobResult, SimResult } from './results.js';
import type { CompatResult } from './rlscheduler.js';

export interface SimRunInfo {
  trace: string;
  kind: 'swf' | 'iris';
  policy: string;
  /** Placement mode and selection (src/sim/policy.ts). */
  placement: string;
  selection: string;
  order: string;
  queueDepth: number;
  reservationDepth: number;
  /** SWF processor pool, or null for an iris workload. */
  procs: number | null;
  workers: number;
  window: { start: number; count: number } | null;
  /**
   * Only for a workload with jobs that wait for their subtree (`wait: true`): how many, and
   * whether a waiting task releases its CPU (--no-release: false).
   */
  waitingJobs?: number;
  release?: boolean;
  /** Jobs without a time limit of their own were planned with predicted runtimes (--predict); absent: off. */
  predict?: boolean;
  /** --preemption: its grace and exempt time (seconds); absent: off. */
  preemption?: { grace: number; exempt: number };
  /**
   * --default-time-limit: the limit (s) given to the jobs without one of their own, and how many
   * jobs (children included) that is; absent: those jobs' limit is their run time.
   */
  defaultTimeLimit?: { seconds: number; jobs: number };
}

export interface SimulationJson extends SimRunInfo {
  summary: SimResult['summary'];
  skipped: SimResult['skipped'];
  unfinished: SimResult['unfinished'];
  deadlocked: SimResult['deadlocked'];
  jobs: SimJobResult[];
}

export function simulationJson(info: SimRunInfo, result: SimResult): SimulationJson {
  return {
    ...info,
    summary: result.summary,
    skipped: result.skipped,
    unfinished: result.unfinished,
    deadlocked: result.deadlocked,
    jobs: result.jobs,
  };
}

export interface CompatInfo {
  trace: string;
  procs: number;
  order: string;
  backfill: boolean;
}

export interface CompatJson extends CompatInfo {
  compat: 'rlscheduler';
  mean: number;
  windows: Array<{ start: number; count: number; avgBoundedSlowdown: number }>;
}

/** Per-window values and the mean; per-job rows stay out (10 x 1,024 jobs) . */
export function compatJson(info: CompatInfo, result: CompatResult): CompatJson {
  return {
    compat: 'rlscheduler',
    ...info,
    mean: result.mean,
    windows: result.windows.map((w) => ({ start: w.start, count: w.count, avgBoundedSlowdown: w.avgBoundedSlowdown })),
  };
}
