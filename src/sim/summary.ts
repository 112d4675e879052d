/**
 * What a simulation reports per job and overall. A job's wait is its first task's start minus
 * its submit; its bounded slowdown (threshold 10 s) is computed over submit to its last task's
 * end, so staggered replicas count in full; utilization is busy CPU time over all CPU during
 * the makespan; total cost is Σ task run time (s) × its worker's cost per hour / 3600 (loads
 * included, waits for a subtree not); the fleet cost is what the workers cost while enabled over
 * the makespan (Σ cost per hour × makespan, less the elastic coordinator's disabled time); the reuse-hit rate is task
 * starts on a worker warm for every
 * model the job uses over task starts of jobs that use models.
 */
import { boundedSlowdown } from './metrics.js';
import { bandSummaries } from './bands.js';
import type { SimJobResult, SimSummary } from './results.js';
import type { SimJob } from './workload.js';
import type { JobState } from '../model/states.js';

const BSLD_THRESHOLD = 10;

/** A finished job as the engine tracked it. */
export interface FinishedJob {
  spec: SimJob;
  submit: number;
  start: number;
  end: number;
  workers: ReadonlySet<string>;
  timeLimited: boolean;
  /** Its final state (the lifecycle's). */
  state: JobState;
  preemptions: number;
  lostCpuSeconds: number;
}

export function jobResult(job: FinishedJob): SimJobResult {
  const run = Math.min(job.spec.run, job.spec.timeLimit);
  const result: SimJobResult = {
    name: job.spec.name,
    user: job.spec.user,
    submit: job.submit,
    start: job.start,
    end: job.end,
    wait: job.start - job.submit,
    run,
    procs: job.spec.procs,
    tasks: job.spec.replicas,
    workers: [...job.workers].sort(),
    timeLimited: job.timeLimited,
    state: job.state,
    // Response time over run time, so staggered replicas count from submit to the last end.
    boundedSlowdown: boundedSlowdown(job.end - job.submit - run, run, BSLD_THRESHOLD),
  };
  if (job.spec.index !== undefined) result.index = job.spec.index;
  if (job.spec.band !== undefined) result.band = job.spec.band;
  if (job.preemptions > 0) {
    result.preemptions = job.preemptions;
    result.lostCpuSeconds = job.lostCpuSeconds;
  }
  return result;
}

export interface RunTotals {
  /** Time of the first and last event batch. */
  start: number;
  end: number;
  skipped: number;
  unfinished: number;
  deadlocked: number;
  /** CPU seconds the finished tasks used. */
  busyCpuSeconds: number;
  /** CPU millis of all workers together. */
  totalCpu: number;
  timeLimited: number;
  /** Σ run time × cost per hour / 3600 of the tasks whose run ended. */
  cost: number;
  reuseStarts: number;
  reuseHits: number;
  disabledWorkerHours: number | null;
  /** Σ cost per hour of every worker, and what the elastic coordinator's disabled time would have cost. */
  fleetCostPerHour: number;
  disabledCost: number;
  passes: number;
  batches: number;
  /** With preemption: its totals (SimSummary.preemption). */
  preemption?: { tasks: number; lostCpuSeconds: number };
  /** With merge keys: SimSummary.merging. */
  merging?: { batches: number; mergedTasks: number; modelLoads: number };
}

export function summarize(results: readonly SimJobResult[], totals: RunTotals): SimSummary {
  const { start, end } = totals;
  const n = results.length;
  let waitSum = 0;
  let bsldSum = 0;
  let lastEnd = start;
  for (const r of results) {
    waitSum += r.wait;
    bsldSum += r.boundedSlowdown;
    if (r.end > lastEnd) lastEnd = r.end;
  }
  const makespan = Math.max(0, Math.max(end, lastEnd) - start);
  const summary: SimSummary = {
    jobs: n,
    skipped: totals.skipped,
    unfinished: totals.unfinished,
    deadlocked: totals.deadlocked,
    avgWait: n > 0 ? waitSum / n : 0,
    avgBoundedSlowdown: n > 0 ? bsldSum / n : 0,
    utilization:
      makespan > 0 && totals.totalCpu > 0 ? totals.busyCpuSeconds / ((totals.totalCpu / 1000) * makespan) : 0,
    makespan,
    start,
    end: start + makespan,
    timeLimited: totals.timeLimited,
    totalCost: totals.cost,
    reuseStarts: totals.reuseStarts,
    reuseHits: totals.reuseHits,
    reuseHitRate: totals.reuseStarts > 0 ? totals.reuseHits / totals.reuseStarts : null,
    disabledWorkerHours: totals.disabledWorkerHours,
    fleetCost: (totals.fleetCostPerHour * makespan) / 3600 - totals.disabledCost,
    passes: totals.passes,
    batches: totals.batches,
  };
  if (totals.preemption) summary.preemption = totals.preemption;
  if (totals.merging) summary.merging = totals.merging;
  const bands = bandSummaries(results, totals.preemption !== undefined);
  if (bands) summary.bands = bands;
  return summary;
}
