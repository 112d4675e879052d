/**
 * Scorers: which of the feasible workers a task goes to (docs/architecture.md, "Placement": placement decides
 * which workers). Feasible means every filter of the chain (filters.ts) says ok. Among those,
 * placement takes the worker with the highest total `Σ weight × score` over an ordered list of
 * scorers; equal totals go to the earlier worker in snapshot order, so the result is
 * deterministic.
 *
 * The default scorer list is WORKER_ORDER (earlier worker scores higher): plain first-fit. While
 * the list is exactly [WORKER_ORDER], placement takes the fast path that gives the same answer
 * without scoring anyone: FreePool.findFirst over the job's candidates plus a per-shape cursor
 * (first-fit.ts, queue/allocate.ts). Any other list scans the job's candidates and scores each
 * feasible one (O(candidates) per task).
 *
 * Adding a scorer (e.g. a throughput/cost score, container/context reuse, stickiness to the worker a
 * task ran on before): write a `WorkerScorer` whose `score` reads only the job, the view and,
 * if needed, data it was built with (keep it pure: no clock, randomness or I/O); put it in the
 * list before WORKER_ORDER with a weight large enough that its differences outweigh worker
 * order (WORKER_ORDER scores -index, so differences of at least 1 × weight > worker count do);
 * pass the list to `schedule(snapshot, scorers)` or `new QueueScheduler(options, scorers)`.
 * Gangs are not scored per worker: a gang's group is the first that fits (gang.ts); a group
 * scorer would plug in at GangPlacer.choose.
 *
 * Placement modes (modes.ts) plug in at the same seam: a `Placer` is either a scorer list or
 * PlacementOptions. `passSelector` turns it into one pass's chooser: null for the first-fit
 * fast path (the list [WORKER_ORDER], or mode first-fit with selection first-fit), the
 * AdaptiveSelector (adaptive.ts) for mode adaptive and for selection min-satisfying, whose
 * scores need the whole feasible pool of a task (normalisation) rather than one worker at a time.
 */
import type { PlacementDecision } from '../../../model/types.js';
import { AdaptiveSelector } from './adaptive.js';
import type { PlacementView } from './filters.js';
import { isPlainFirstFit, type PlacementOptions } from './modes.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';

export interface WorkerScorer {
  readonly name: string;
  readonly weight: number;
  /** Higher is better. Called only for workers every filter accepted, during one pass. */
  score(job: SchedulerJob, view: PlacementView, w: number): number;
}

/** First in worker order: the earlier a worker in the snapshot, the higher its score. */
export const WORKER_ORDER: WorkerScorer = Object.freeze({
  name: 'worker-order',
  weight: 1,
  score: (_job: SchedulerJob, _view: PlacementView, w: number) => -w,
});

export const DEFAULT_SCORERS: readonly WorkerScorer[] = Object.freeze([WORKER_ORDER]);

/** True when placement may take the first-fit fast path (the list is exactly [WORKER_ORDER]). */
export function isFirstFit(scorers: readonly WorkerScorer[]): boolean {
  return scorers.length === 1 && scorers[0] === WORKER_ORDER;
}

/**
 * The best worker among `candidates` (worker indices in snapshot order) for which `feasible`
 * holds, by total weighted score; ties to the earlier candidate. -1 when none is feasible.
 */
export function bestWorker(
  job: SchedulerJob,
  view: PlacementView,
  candidates: ArrayLike<number>,
  feasible: (w: number) => boolean,
  scorers: readonly WorkerScorer[],
): number {
  let best = -1;
  let bestScore = -Infinity;
  for (let i = 0; i < candidates.length; i++) {
    const w = candidates[i]!;
    if (!feasible(w)) continue;
    let total = 0;
    for (let s = 0; s < scorers.length; s++) total += scorers[s]!.weight * scorers[s]!.score(job, view, w);
    if (best < 0 || total > bestScore) {
      best = w;
      bestScore = total;
    }
  }
  return best;
}

/** How placement picks among feasible workers: a scorer list, or a placement mode (modes.ts). */
export type Placer = readonly WorkerScorer[] | PlacementOptions;

/** One pass's chooser of a worker per task (scored placement; the first-fit fast path has none). */
export interface PassSelector {
  /**
   * The chosen worker among `candidates` (snapshot order) for which `feasible` holds, or -1.
   * `shape` (optional): a key of the task shape, where what stops fitting never fits again in the pass (adaptive.ts).
   */
  select(job: SchedulerJob, task: SchedulerTask, candidates: ArrayLike<number>, feasible: (w: number) => boolean, shape?: string): number;
  /** Why the last `select` chose as it did, where the mode records it (adaptive). */
  readonly decision: PlacementDecision | undefined;
  /** A task of `job` was placed on worker `w` this pass. */
  placed(job: SchedulerJob, w: number): void;
}

function isScorerList(placer: Placer): placer is readonly WorkerScorer[] {
  return Array.isArray(placer);
}

/** True when placement may take the first-fit fast path for this placer. */
export function isFastPath(placer: Placer): boolean {
  return isScorerList(placer) ? isFirstFit(placer) : isPlainFirstFit(placer);
}

/** One pass's selector for `placer`, or null for the first-fit fast path. */
export function passSelector(placer: Placer, snapshot: Snapshot, view: PlacementView): PassSelector | null {
  if (isFastPath(placer)) return null;
  if (!isScorerList(placer)) return new AdaptiveSelector(snapshot, placer);
  const scorers = placer;
  return {
    decision: undefined,
    select: (job, _task, candidates, feasible) => bestWorker(job, view, candidates, feasible, scorers),
    placed: () => {},
  };
}
