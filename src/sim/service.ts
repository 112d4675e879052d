/**
 * `iris simulate` as one call: reads the trace, builds the scheduler for the chosen policy,
 * replays the workload on the virtual clock and, when asked, writes the plot. Returns what the
 * run was (info) and its results; rendering is the caller's (src/ui/simulation.ts, report.ts).
 * Errors a user can fix are IrisError (unknown policy, a trace without a machine size, …).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalid } from '../model/errors.js';
import { simulate } from './engine.js';
import { loadWorkload, traceKind, type TraceWindow } from './load.js';
import { renderPlot } from './plot.js';
import {
  DEFAULT_PLACEMENT,
  DEFAULT_SELECTION,
  createScheduler,
  parsePlacementMode,
  parsePolicy,
  parseSelection,
} from './policy.js';
import type { CompatInfo, SimRunInfo } from './report.js';
import type { SimProgress, SimResult } from './results.js';
import { simulateRlscheduler, type CompatResult } from './rlscheduler.js';
import type { OrderName } from './scores.js';
import { readSwf } from './swf.js';
import { DEFAULT_SIM_ELASTIC } from './elastic.js';
import { countJobs } from './workload.js';
import type { SimPreemptionSettings } from './preemption.js';

export interface SimulationOptions {
  /** SWF trace (*.swf) or iris workload file (*.yaml, *.yml, *.json). */
  trace: string;
  /** Processors of the SWF machine (default: the trace's MaxProcs header). */
  procs?: number;
  order: OrderName;
  window?: TraceWindow;
  /** Queue policy name (fcfs, easy, conservative, hybrid); not used by the compatibility mode. */
  policy: string;
  queueDepth: number;
  reservationDepth: number;
  /** Write queue length and utilization over time to this SVG file. */
  plot?: string;
  /** Reproduce a published setup instead of running the iris scheduler. */
  compat?: 'rlscheduler';
  /** A task waiting for its subtree releases its CPU (default true); false to compare. */
  release?: boolean;
  /** With compat: backfill behind the blocked head. */
  backfill?: boolean;
  /** Placement mode and selection (policy.ts; default first-fit, first-fit). */
  placement?: string;
  selection?: string;
  /** Seconds a context-reuse hint stays fresh (default 3600). */
  cacheTtl?: number;
  /**
   * Plan jobs without a limit of their own with predicted runtimes. Default: true with
   * `defaultTimeLimit` (the live cluster predicts for jobs under its default limit), else false
   * (their limit is their run time, an exact estimate): docs/simulate.md, "Runtime predictions".
   */
  predict?: boolean;
  /**
   * Seconds: the time limit of every job without one of its own, as the live cluster's default
   * (config `time-limit:`); absent: its run time (the readers' rule). Jobs with a limit keep it.
   */
  defaultTimeLimit?: number;
  /** Run the elastic coordinator with its default settings (config `elastic: {enabled: true}`). */
  elastic?: boolean;
  /** Carry out preemptions with this grace and exempt time (seconds); absent: off. */
  preemption?: SimPreemptionSettings;
  onProgress?: (progress: SimProgress) => void;
  /** Call onProgress every this many event batches (default 1000). */
  progressEvery?: number;
}

export type SimulationOutcome =
  | { mode: 'rlscheduler'; info: CompatInfo; result: CompatResult }
  | { mode: 'iris'; info: SimRunInfo; result: SimResult; plot: string | null };

export async function runSimulation(options: SimulationOptions): Promise<SimulationOutcome> {
  const { trace, order, window } = options;
  if (options.compat === 'rlscheduler') {
    if (traceKind(trace) !== 'swf') throw invalid('--compat rlscheduler needs an SWF trace (*.swf)');
    const swf = await readSwf(trace);
    const procs = options.procs ?? swf.maxProcs;
    if (procs === null)
      throw invalid(`${trace} has no MaxProcs (or MaxNodes) header`, 'give the machine size with --procs N');
    const backfill = options.backfill ?? false;
    const result = simulateRlscheduler(swf.jobs, { procs, order, backfill, windows: window ? [window] : undefined });
    return { mode: 'rlscheduler', info: { trace, procs, order, backfill }, result };
  }

  const policy = parsePolicy(options.policy);
  const placement = {
    mode: parsePlacementMode(options.placement ?? DEFAULT_PLACEMENT),
    selection: parseSelection(options.selection ?? DEFAULT_SELECTION),
  };
  const workload = await loadWorkload(trace, {
    procs: options.procs,
    window,
    ...(options.defaultTimeLimit !== undefined ? { defaultTimeLimit: options.defaultTimeLimit } : {}),
  });
  const scheduler = createScheduler({
    policy,
    queueDepth: options.queueDepth,
    reservationDepth: options.reservationDepth,
    placement,
    ...(options.preemption ? { preemption: { exempt: options.preemption.exempt } } : {}),
    ...(workload.queues ? { queues: workload.queues } : {}),
  });
  const release = options.release ?? true;
  const predict = options.predict ?? options.defaultTimeLimit !== undefined;
  const result = simulate(workload, {
    scheduler,
    order,
    release,
    ...(predict ? { predict: true } : {}),
    cacheTtl: options.cacheTtl,
    ...(options.elastic ? { elastic: DEFAULT_SIM_ELASTIC } : {}),
    ...(options.preemption ? { preemption: options.preemption } : {}),
    queueDepth: options.queueDepth,
    onProgress: options.onProgress,
    progressEvery: options.progressEvery ?? 1000,
  });
  const info: SimRunInfo = {
    trace,
    kind: workload.kind,
    policy,
    placement: placement.mode,
    selection: placement.selection,
    order,
    queueDepth: options.queueDepth,
    reservationDepth: options.reservationDepth,
    procs: workload.procs,
    workers: workload.workers.length,
    window: window ?? null,
  };
  const waitingJobs = countJobs(workload.jobs, (job) => job.wait === true);
  if (waitingJobs > 0) Object.assign(info, { waitingJobs, release });
  if (predict) info.predict = true;
  if (options.preemption) info.preemption = options.preemption;
  if (options.defaultTimeLimit !== undefined)
    info.defaultTimeLimit = {
      seconds: options.defaultTimeLimit,
      jobs: countJobs(workload.jobs, (job) => job.runsOf !== undefined),
    };
  if (options.plot) {
    const title =
      `${path.basename(trace)}: ${policy}, order ${order}` +
      `${workload.procs !== null ? `, ${workload.procs} procs` : ''}`;
    try {
      await writeFile(options.plot, renderPlot(result.samples, { title }));
    } catch (err) {
      throw invalid(`cannot write the plot to ${options.plot}: ${(err as Error).message}`);
    }
  }
  return { mode: 'iris', info, result, plot: options.plot ?? null };
}
