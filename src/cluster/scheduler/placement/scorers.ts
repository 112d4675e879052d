/**
 * The built-in scorers (scoring.ts says what a scorer is; registry.ts puts them into modes):
 *
 * - WORKER_ORDER: −index, the earlier worker in the snapshot first. Alone it is first-fit.
 * - SMALLEST_FIT: −μ (the throughput proxy, adaptive-score.ts), the smallest worker that fits
 *   first, keeping big workers for big jobs: selection `min-satisfying`.
 * - IDLE_LONGEST: the worker dispatched to longest ago first (never dispatched: longest).
 * - ROTATION: adaptive's first tie-breaker, the rotation among identical workers (classes.ts).
 * - The adaptive terms (adaptive-score.ts has the formulas), each with weight 1 in ADAPTIVE_TERMS:
 *   AGE (min(age s, 300)·1e-4, the same for every worker of a task), THROUGHPUT_COST (λ·μ̂ − κ·ĉ,
 *   κ = 1 − λ plus a tie margin, μ and cost normalised over the task's feasible workers, λ of the
 *   job's category) and REUSE (the damped bonus of a worker warm for the job, reuse.ts).
 *   ADAPTIVE_TERMS lists them in the order that makes the sum (age + base) + reuse: the adaptive
 *   chooser (adaptive.ts) adds them so, and a floating-point sum depends on its order.
 *
 * Guarantees: pure (the snapshot, the placement's λ and jitter, and what `placed` said); per-worker
 * numbers are computed once per pass, nothing is allocated per candidate.
 */
import { costPerHourOf } from '../../../model/types.js';
import { ageTerm, baseScore, costShare, reuseBonus, throughput } from './adaptive-score.js';
import { rotationScores, sortByMuCost, WorkerClasses } from './classes.js';
import { idHash, taskSlot } from './jitter.js';
import { PassHints } from './reuse.js';
import type { PassScorer, ScoringPass, TaskPool, WeightedScorer, WorkerScorer } from './scoring.js';
import type { SchedulerJob, SchedulerTask } from '../types.js';

export const WORKER_ORDER: WorkerScorer = Object.freeze({
  name: 'worker-order',
  begin: (): PassScorer => ({ score: (_job: SchedulerJob, _task: SchedulerTask, w: number) => -w }),
});

export const SMALLEST_FIT: WorkerScorer = Object.freeze({
  name: 'smallest-fit',
  begin: ({ snapshot }: ScoringPass): PassScorer => {
    const mu = Float64Array.from(snapshot.workers, throughput);
    return { score: (_job: SchedulerJob, _task: SchedulerTask, w: number) => -mu[w]! };
  },
});

export const IDLE_LONGEST: WorkerScorer = Object.freeze({
  name: 'idle-longest',
  begin: ({ snapshot }: ScoringPass): PassScorer => {
    const idleSince = Float64Array.from(snapshot.workers, (worker) => worker.lastDispatchAt ?? -Infinity);
    return { score: (_job: SchedulerJob, _task: SchedulerTask, w: number) => -idleSince[w]! };
  },
});

export const AGE: WorkerScorer = Object.freeze({
  name: 'age',
  begin: ({ snapshot }: ScoringPass): PassScorer => {
    let age = 0;
    return {
      prepare: (_job: SchedulerJob, task: SchedulerTask) => {
        age = ageTerm(task.submittedAt, snapshot.now);
      },
      score: () => age,
    };
  },
});

/**
 * The rotation among identical workers (classes.ts), a tie-breaker: with placement.jitter > 0,
 * −(how far after the task's slot a worker sits among its class's feasible workers), else 0. It
 * also gives the classes (PassScorer.classOf), so the runner-up recorded is of another class.
 */
export const ROTATION: WorkerScorer = Object.freeze({
  name: 'rotation',
  begin: ({ snapshot, placement }: ScoringPass): PassScorer => {
    const mu = Float64Array.from(snapshot.workers, throughput);
    const cost = Float64Array.from(snapshot.workers, costPerHourOf);
    const classes = new WorkerClasses(sortByMuCost(mu, cost), mu, cost);
    const classOf = (w: number) => classes.classOf[w]!;
    if (!(placement.jitter > 0)) return { score: () => 0, classOf };
    const out = new Float64Array(mu.length),
      scratch = new Int32Array(mu.length);
    return {
      prepare: (_job: SchedulerJob, task: SchedulerTask, pool: TaskPool) =>
        rotationScores(classes, pool.feasible, pool.count, taskSlot(idHash(task.id)), out, scratch),
      score: (_job: SchedulerJob, _task: SchedulerTask, w: number) => out[w]!,
      classOf,
    };
  },
});

/** The smallest value of `values` over the pool's feasible workers and its span (max − min), into `out`. */
function rangeOf(values: Float64Array, pool: TaskPool, out: Float64Array): void {
  let min = Infinity,
    max = -Infinity;
  for (let i = 0; i < pool.count; i++) {
    const x = values[pool.feasible[i]!]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  out[0] = min;
  out[1] = max - min;
}

const costsOf = ({ snapshot }: ScoringPass): Float64Array => Float64Array.from(snapshot.workers, costPerHourOf);

export const THROUGHPUT_COST: WorkerScorer = Object.freeze({
  name: 'throughput-cost',
  begin: (pass: ScoringPass): PassScorer => {
    const mu = Float64Array.from(pass.snapshot.workers, throughput);
    const cost = costsOf(pass);
    const muRange = new Float64Array(2),
      cRange = new Float64Array(2);
    let lambda = 0;
    return {
      prepare: (job: SchedulerJob, _task: SchedulerTask, pool: TaskPool) => {
        rangeOf(mu, pool, muRange);
        rangeOf(cost, pool, cRange);
        lambda = pass.placement.lambda[job.category ?? 'other'];
      },
      score: (_job: SchedulerJob, _task: SchedulerTask, w: number) =>
        baseScore(lambda, pass.placement.jitter, mu[w]!, muRange[0]!, muRange[1]!, cost[w]!, cRange[0]!, cRange[1]!),
    };
  },
});

export const REUSE: WorkerScorer = Object.freeze({
  name: 'reuse',
  begin: (pass: ScoringPass): PassScorer => {
    const hints = new PassHints(pass.snapshot);
    const cost = costsOf(pass);
    const n = cost.length;
    const cRange = new Float64Array(2);
    return {
      prepare: (_job: SchedulerJob, _task: SchedulerTask, pool: TaskPool) => rangeOf(cost, pool, cRange),
      score: (job: SchedulerJob, _task: SchedulerTask, w: number) => {
        const warm = hints.warmth(job, w);
        return warm > 0 ? reuseBonus(warm, costShare(cost[w]!, cRange[0]!, cRange[1]!)) : 0;
      },
      placed: (job: SchedulerJob, w: number) => hints.placed(job, w, n),
      reuseHit: (job: SchedulerJob, w: number) => hints.warmth(job, w) > 0,
    };
  },
});

const one = (scorer: WorkerScorer): WeightedScorer => Object.freeze({ scorer, weight: 1 });

/** Adaptive placement's score, term by term (order: see the header). */
export const ADAPTIVE_TERMS: readonly WeightedScorer[] = Object.freeze([AGE, THROUGHPUT_COST, REUSE].map(one));
