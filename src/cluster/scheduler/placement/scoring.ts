/**
 * Scoring: the one extension point for choosing among feasible workers (docs/architecture.md,
 * "Adding a scorer"), modelled on the score plugins of the Kubernetes scheduling framework. A
 * `PlacementProfile` is a placement mode resolved: a named list of weighted scorers plus
 * tie-breakers (registry.ts holds the built-in modes; the cluster config and the simulator pick
 * one by name). The live cluster, the simulator and the tests all hand a profile to the same
 * entry points (`schedule`, `QueueScheduler`), and a pass turns it into its chooser in one place
 * (registry.ts, `passSelector`).
 *
 * For each task the pass knows its candidate workers (the indexed filters passed, candidates.ts)
 * and which of them are feasible now (every filter ok, room free; under a queue policy also for
 * the job's duration). Then, in the generic chooser (scored.ts, ScoredSelector):
 * 1. a scorer may `narrow` the candidates first (a binding to one worker), so only those are
 *    checked and scored; where none narrowed, a scorer may `prefer` some of them (the workers
 *    without accelerators for a job that asks for none, accelerators.ts): when any preferred
 *    candidate is feasible the pool is the feasible preferred ones alone, else every candidate;
 * 2. every scorer's `prepare` sees the task's pool once (normalisation over the feasible workers);
 * 3. each feasible worker gets total = Σ weight × score over the list, summed in list order; a
 *    score of −Infinity rules the worker out for this task (it is not counted in the pool);
 * 4. the highest total wins; equal totals go to the tie-breakers in order (higher score first),
 *    then to the earlier worker in snapshot order, so the choice is deterministic; the recorded
 *    runner-up is the next worker in that order, or, where a scorer groups workers into classes
 *    (`classOf`, adaptive's rotation), the best worker of another class;
 * 5. `placed` tells every scorer where the task went, so later tasks of the pass see it.
 *
 * Scorers are pure: they read the snapshot, the pass's view, the placement's settings (λ,
 * jitter) and what they were told by `placed`; no clock, randomness or I/O. A scorer that keeps
 * memory from pass to pass (the baselines) gives it out through `memory` (Plan.placementMemory).
 * What a placement records per placed task is the mode's `record`: `scored` (score, runner-up,
 * reuse hit), `pool` (the pool only, score 0), or `none`.
 *
 * Nothing is allocated per candidate: the pool buffers and the scorers' per-worker arrays are
 * made once per pass (or once per task shape). Fast paths (registry.ts) take over only where the
 * list is exactly one that a dedicated chooser implements (first-fit: the FreePool; adaptive:
 * ranked orders), and test/cluster/scheduler/placement/scoring.test.ts checks they choose and
 * record what the generic chooser does.
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

/** One task's workers, as `prepare` sees them (read only; one object per pass, refilled per task). */
export interface TaskPool {
  /** The job's candidate workers (every indexed filter passed; narrowed, where a scorer did), in snapshot order. */
  readonly candidates: ArrayLike<number>;
  /** The feasible ones among them, in snapshot order: `feasible[0]` … `feasible[count - 1]`. */
  readonly feasible: Int32Array;
  readonly count: number;
}

/** One pass's instance of a scorer. */
export interface PassScorer {
  /**
   * Before feasibility is checked: the only candidates (snapshot order) this task may use, or null
   * for all of them. A binding's one worker, say; every other worker is then neither checked nor
   * scored. The returned array is read before the next call only.
   */
  narrow?(job: SchedulerJob, task: SchedulerTask, candidates: ArrayLike<number>): ArrayLike<number> | null;
  /**
   * Before feasibility is checked, where no scorer narrowed: the candidates (snapshot order) to
   * try first, or null. When any of them is feasible the task's pool is those alone (every score
   * and normalisation is taken over them); otherwise it is every candidate. The returned array
   * must be the same object for the same `candidates` within a pass (the selector keys on it).
   */
  prefer?(job: SchedulerJob, task: SchedulerTask, candidates: ArrayLike<number>): ArrayLike<number> | null;
  /** Once per task, before its workers are scored (also when none is feasible). */
  prepare?(job: SchedulerJob, task: SchedulerTask, pool: TaskPool): void;
  /** Higher is better; −Infinity: not this worker for this task. Only feasible workers are scored. */
  score(job: SchedulerJob, task: SchedulerTask, w: number): number;
  /** A task of `job` was placed on worker `w` in this pass (by this placement or not). */
  placed?(job: SchedulerJob, w: number): void;
  /** True when placing `job` on `w` reuses what the worker holds (PlacementDecision.reuseHit). */
  reuseHit?(job: SchedulerJob, w: number): boolean;
  /**
   * The class of worker `w` (classes.ts): workers of one class are interchangeable to this list
   * but for warmth and tie-breaking. Where a scorer gives classes, the recorded runner-up is the
   * best worker of another class than the chosen one.
   */
  classOf?(w: number): number;
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
   * `shape` (optional): a key of the task shape, where what stops fitting never fits again in the pass (adaptive.ts),
   * and where the pass's view has `capacity`, `feasible(w)` is exactly the free-capacity test of the job's resources
   * on those amounts (filters.ts `covers`; queue/first-fit.ts).
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
  /**
   * True when `select` returns a worker whenever one of the candidates is feasible (it never
   * rules one out): a task it does not place had no feasible worker (queue/pass.ts Plan.settled).
   */
  readonly takesAnyFeasible?: boolean;
  /** The placement's own reason why `job` (a name) could not be placed in this pass, or null: explain.ts gives one. */
  reasonFor?(job: string): string | null;
  /** The memory for the next pass (Plan.placementMemory); absent: the placement keeps none. */
  memory?(): PlacementMemory;
}
