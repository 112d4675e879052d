/**
 * Scoring: the one extension point for choosing among feasible workers (docs/architecture.md,
 * "Adding a scorer"), modelled on the score plugins of the Kubernetes scheduling framework. A
 * `PlacementProfile` is a placement mode resolved: a named list of weighted scorers plus tie-breakers
 * (registry.ts holds the built-in modes; the cluster config and the simulator pick one by name).
 * The live cluster, the simulator and the tests all hand a PlacementProfile to the same entry points
 * (`schedule`, `QueueScheduler`), and a pass turns it into its chooser in one place
 * (registry.ts, `passSelector`).
 *
 * For each task the pass knows its candidate workers (the indexed filters passed, candidates.ts)
 * and which of them are feasible now (every filter ok, room free; under a queue policy also for
 * the job's duration). Then, in the generic chooser (ScoredSelector):
 * 1. every scorer's `prepare` sees the task's pool once (normalisation over the feasible workers,
 *    the worker a binding allows);
 * 2. each feasible worker gets total = Σ weight × score over the list, summed in list order; a
 *    score of −Infinity rules the worker out for this task (it is not counted in the pool);
 * 3. the highest total wins; equal totals go to the tie-breakers in order (higher score first),
 *    then to the earlier worker in snapshot order, so the choice is deterministic;
 * 4. `placed` tells every scorer where the task went, so later tasks of the pass see it.
 *
 * Scorers are pure: they read the snapshot, the pass's view, the placement's settings (λ,
 * jitter) and what they were told by `placed`; no clock, randomness or I/O. A scorer that keeps
 * memory from pass to pass (the baselines) gives it out through `memory` (Plan.placementMemory).
 * What a placement records per placed task is the mode's `record`: `scored` (score, runner-up,
 * reuse hit), `pool` (the pool only, score 0), or `none`.
 *
 * Nothing is allocated per candidate: the pool buffer and the scorers' per-worker arrays are
 * made once per pass. Fast paths (registry.ts) take over only where the list is exactly one that
 * a dedicated chooser implements (first-fit: the FreePool; adaptive: ranked orders), and
 * test/cluster/scheduler/placement/scoring.test.ts checks they choose and record what this
 * chooser does.
 */
import type { PlacementDecision } from '../../../model/types.js';
import type { PlacementView } from './filters.js';
import type { PlacementOptions } from './modes.js';
import type { PlacementMemory, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';

/** The memory of a first pass: no bindings, no round-robin cursor. */
export const EMPTY_PLACEMENT_MEMORY: PlacementMemory = Object.freeze({
  roots: new Map(),
  types: new Map(),
  cursor: null,
});

/** What a scorer sees for one pass (the framework's cycle state). */
export interface ScoringPass {
  readonly snapshot: Snapshot;
  /** The workers and the free capacity left so far in this pass. */
  readonly view: PlacementView;
  /** The placement being run: its settings (λ per category, jitter) are the scorers' too. */
  readonly placement: PlacementProfile;
}

/** One task's workers, as `prepare` sees them (one object per pass, refilled per task). */
export interface TaskPool {
  /** The job's candidate workers (every indexed filter passed), in snapshot order. */
  candidates: ArrayLike<number>;
  /** The feasible ones among them, in snapshot order: `feasible[0]` … `feasible[count - 1]`. */
  readonly feasible: Int32Array;
  count: number;
}

/** One pass's instance of a scorer. */
export interface PassScorer {
  /** Once per task, before its workers are scored (also when none is feasible). */
  prepare?(job: SchedulerJob, task: SchedulerTask, pool: TaskPool): void;
  /** Higher is better; −Infinity: not this worker for this task. Only feasible workers are scored. */
  score(job: SchedulerJob, task: SchedulerTask, w: number): number;
  /** A task of `job` was placed on worker `w` in this pass (by this placement or not). */
  placed?(job: SchedulerJob, w: number): void;
  /** True when placing `job` on `w` reuses what the worker holds (PlacementDecision.reuseHit). */
  reuseHit?(job: SchedulerJob, w: number): boolean;
  /** The scorer's own reason why `job` (a name) could not be placed in this pass, or null. */
  reasonFor?(job: string): string | null;
  /** The memory for the next pass: `given` with this scorer's part updated. */
  memory?(given: PlacementMemory): PlacementMemory;
  /**
   * True when a task it rules out says nothing about other jobs of the same task shape (a
   * binding to one worker): the plain pass then gives up on that job only, not on the shape.
   */
  readonly perJob?: boolean;
}

/** A scorer: a name, and what it knows for one pass. */
export interface WorkerScorer {
  readonly name: string;
  begin(pass: ScoringPass): PassScorer;
}

export interface WeightedScorer {
  readonly scorer: WorkerScorer;
  readonly weight: number;
}

/** What each placement records (PlacementDecision): scored, the pool only (score 0), or nothing. */
export type DecisionRecord = 'scored' | 'pool' | 'none';

/** A placement mode resolved: the settings it came from, its name and its weighted scorers. */
export interface PlacementProfile extends PlacementOptions {
  /** The name placements record (`adaptive`, `adaptive+min-satisfying`, `static-worker`, …). */
  readonly name: string;
  readonly scorers: readonly WeightedScorer[];
  /** Asked in order when totals are equal (higher first); worker order comes last. */
  readonly tieBreakers: readonly WorkerScorer[];
  readonly record: DecisionRecord;
}

/** One pass's chooser of a worker per task (the first-fit fast path has none). */
export interface PassSelector {
  /**
   * The chosen worker among `candidates` (snapshot order) for which `feasible` holds, or -1.
   * `shape` (optional): a key of the task shape, where what stops fitting never fits again in the pass (adaptive.ts).
   */
  select(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
    shape?: string,
  ): number;
  /** Why the last `select` chose as it did, where the placement records it. */
  readonly decision: PlacementDecision | undefined;
  /** A task of `job` was placed on worker `w` this pass. */
  placed(job: SchedulerJob, w: number): void;
  /** A failed `select` says nothing about other jobs of the same task shape (PassScorer.perJob). */
  readonly perJob?: boolean;
  /** The placement's own reason why `job` (a name) could not be placed in this pass, or null: explain.ts gives one. */
  reasonFor?(job: string): string | null;
  /** The memory for the next pass (Plan.placementMemory); absent: the placement keeps none. */
  memory?(): PlacementMemory;
}

/** The generic chooser: every feasible worker scored by the placement's list (see the header). */
export class ScoredSelector implements PassSelector {
  decision: PlacementDecision | undefined;
  readonly perJob: boolean;
  readonly memory?: () => PlacementMemory;
  private readonly scorers: PassScorer[];
  private readonly weights: Float64Array;
  private readonly ties: PassScorer[];
  /** Scorers then tie-breakers: those told about each task and each placement. */
  private readonly all: PassScorer[];
  private readonly pool: TaskPool;
  private job: SchedulerJob | undefined;
  private task: SchedulerTask | undefined;

  constructor(
    private readonly snapshot: Snapshot,
    view: PlacementView,
    private readonly placement: PlacementProfile,
  ) {
    const pass: ScoringPass = { snapshot, view, placement };
    this.scorers = placement.scorers.map((s) => s.scorer.begin(pass));
    this.weights = Float64Array.from(placement.scorers, (s) => s.weight);
    this.ties = placement.tieBreakers.map((s) => s.begin(pass));
    this.all = [...this.scorers, ...this.ties];
    this.pool = { candidates: [], feasible: new Int32Array(snapshot.workers.length), count: 0 };
    this.perJob = this.all.some((s) => s.perJob === true);
    const keeping = this.all.filter((s) => s.memory !== undefined);
    if (keeping.length > 0) {
      this.memory = () => {
        let memory = snapshot.placementMemory ?? EMPTY_PLACEMENT_MEMORY;
        for (const s of keeping) memory = s.memory!(memory);
        return memory;
      };
    }
  }

  select(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
  ): number {
    this.decision = undefined;
    const pool = this.pool;
    const buf = pool.feasible;
    let count = 0;
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (feasible(w)) buf[count++] = w;
    }
    pool.candidates = candidates;
    pool.count = count;
    const all = this.all;
    for (let s = 0; s < all.length; s++) all[s]!.prepare?.(job, task, pool);
    if (count === 0) return -1;
    this.job = job;
    this.task = task;
    let best = -1, bestScore = -Infinity, second = -1, secondScore = -Infinity, n = 0;
    for (let i = 0; i < count; i++) {
      const w = buf[i]!;
      const s = this.total(job, task, w);
      if (s === -Infinity) continue;
      n++;
      if (best < 0 || this.before(s, w, bestScore, best)) {
        second = best;
        secondScore = bestScore;
        best = w;
        bestScore = s;
      } else if (second < 0 || this.before(s, w, secondScore, second)) {
        second = w;
        secondScore = s;
      }
    }
    if (best >= 0) this.record(job, n, best, bestScore, second, secondScore);
    return best;
  }

  /** Σ weight × score in list order, or −Infinity as soon as a scorer rules `w` out. */
  private total(job: SchedulerJob, task: SchedulerTask, w: number): number {
    const scorers = this.scorers, weights = this.weights;
    let total = 0;
    for (let s = 0; s < scorers.length; s++) {
      const x = scorers[s]!.score(job, task, w);
      if (x === -Infinity) return -Infinity;
      total += weights[s]! * x;
    }
    return total;
  }

  /** True when `a` (total sa) goes before `b` (total sb): higher total, then the tie-breakers, then worker order. */
  private before(sa: number, a: number, sb: number, b: number): boolean {
    if (sa !== sb) return sa > sb;
    const ties = this.ties;
    for (let t = 0; t < ties.length; t++) {
      const x = ties[t]!.score(this.job!, this.task!, a), y = ties[t]!.score(this.job!, this.task!, b);
      if (x !== y) return x > y;
    }
    return a < b;
  }

  private record(
    job: SchedulerJob,
    pool: number,
    best: number,
    bestScore: number,
    second: number,
    secondScore: number,
  ): void {
    const p = this.placement;
    if (p.record === 'none') return;
    const lambda = p.lambda[job.category ?? 'other'];
    if (p.record === 'pool') {
      this.decision = { mode: p.name, pool, lambda, score: 0, runnerUp: null, reuseHit: false };
      return;
    }
    const runnerUp = second < 0 ? null : { workerId: this.snapshot.workers[second]!.id, score: secondScore };
    let reuseHit = false;
    for (const s of this.scorers) reuseHit ||= s.reuseHit?.(job, best) === true;
    this.decision = { mode: p.name, pool, lambda, score: bestScore, runnerUp, reuseHit };
  }

  placed(job: SchedulerJob, w: number): void {
    const all = this.all;
    for (let s = 0; s < all.length; s++) all[s]!.placed?.(job, w);
  }

  reasonFor(job: string): string | null {
    for (const s of this.all) {
      const reason = s.reasonFor?.(job) ?? null;
      if (reason !== null) return reason;
    }
    return null;
  }
}
