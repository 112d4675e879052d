/**
 * ScoredSelector: the generic chooser of scoring.ts. One per pass; `select` per task, `placed`
 * after every placement. It scores every feasible candidate of a task by the profile's list
 * (narrowed first where a scorer narrows), so a profile's choice is exactly what scoring.ts
 * says, whatever its scorers are.
 *
 * Where the pass gives a task shape (queue/first-fit.ts: a worker that stops fitting the shape
 * never fits it again in the pass, and `placed` follows every placement), the shape's feasible
 * workers are kept in a list (ShapeLive) that drops the workers a placement filled, instead of
 * asking every candidate again per task: the same pool, in the same order. A scorer that
 * `prefer`s some candidates (accelerators.ts) gets a second list per shape, for those.
 */
import type { PlacementDecision } from '../../../model/types.js';
import type { PlacementView } from './filters.js';
import {
  EMPTY_PLACEMENT_MEMORY,
  type PassScorer,
  type PassSelector,
  type PlacementProfile,
  type ScoringPass,
  type TaskPool,
} from './scoring.js';
import type { PlacementMemory, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';

/** The feasible workers of one task shape in this pass, in snapshot order (see the header). */
class ShapeLive {
  readonly list: Int32Array;
  count = 0;
  private readonly member: Uint8Array;
  private dirty = false;

  constructor(
    candidates: ArrayLike<number>,
    private readonly fits: (w: number) => boolean,
    workers: number,
  ) {
    this.list = new Int32Array(candidates.length);
    this.member = new Uint8Array(workers);
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (!fits(w)) continue;
      this.list[this.count++] = w;
      this.member[w] = 1;
    }
  }

  /** A task was placed on `w`: drop it if the shape no longer fits there. */
  touched(w: number): void {
    if (this.member[w] === 1 && !this.fits(w)) {
      this.member[w] = 0;
      this.dirty = true;
    }
  }

  /** The list without the workers dropped since the last call. */
  live(): void {
    if (!this.dirty) return;
    const list = this.list,
      member = this.member;
    let k = 0;
    for (let i = 0; i < this.count; i++) if (member[list[i]!] === 1) list[k++] = list[i]!;
    this.count = k;
    this.dirty = false;
  }
}

/** TaskPool as the selector fills it. */
interface Pool {
  candidates: ArrayLike<number>;
  feasible: Int32Array;
  count: number;
}

export class ScoredSelector implements PassSelector {
  decision: PlacementDecision | undefined;
  readonly perJob: boolean;
  readonly memory?: () => PlacementMemory;
  private readonly scorers: PassScorer[];
  private readonly weights: Float64Array;
  private readonly ties: PassScorer[];
  /** Scorers then tie-breakers: those told about each task and each placement. */
  private readonly all: PassScorer[];
  private readonly narrowing: PassScorer[];
  /** The first scorer that prefers some candidates (PassScorer.prefer), or null. */
  private readonly preferring: PassScorer | null;
  /** The first scorer that groups workers into classes (PassScorer.classOf), or null. */
  private readonly classing: PassScorer | null;
  private readonly pool: Pool;
  private readonly buf: Int32Array;
  private readonly shapes = new Map<string, ShapeLive>();
  /** The same per shape, over its preferred candidates. */
  private readonly preferredShapes = new Map<string, ShapeLive>();
  private readonly shapeList: ShapeLive[] = [];
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
    this.narrowing = this.all.filter((s) => s.narrow !== undefined);
    this.preferring = this.all.find((s) => s.prefer !== undefined) ?? null;
    this.classing = this.all.find((s) => s.classOf !== undefined) ?? null;
    this.buf = new Int32Array(snapshot.workers.length);
    this.pool = { candidates: [], feasible: this.buf, count: 0 };
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
    shape?: string,
  ): number {
    this.decision = undefined;
    let narrowed = candidates;
    for (let s = 0; s < this.narrowing.length; s++)
      narrowed = this.narrowing[s]!.narrow!(job, task, narrowed) ?? narrowed;
    const pool = this.pool;
    pool.candidates = narrowed;
    let filled = false;
    if (narrowed === candidates && this.preferring !== null) {
      const preferred = this.preferring.prefer!(job, task, candidates);
      if (preferred !== null) {
        pool.candidates = preferred;
        this.fill(preferred, feasible, shape, this.preferredShapes);
        filled = pool.count > 0;
        if (!filled) pool.candidates = candidates;
      }
    }
    if (!filled) this.fill(narrowed, feasible, narrowed === candidates ? shape : undefined, this.shapes);
    const all = this.all;
    for (let s = 0; s < all.length; s++) all[s]!.prepare?.(job, task, pool);
    const count = pool.count,
      feasibleList = pool.feasible;
    if (count === 0) return -1;
    this.job = job;
    this.task = task;
    let best = -1,
      bestScore = -Infinity,
      second = -1,
      secondScore = -Infinity,
      n = 0;
    for (let i = 0; i < count; i++) {
      const w = feasibleList[i]!;
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
    if (best >= 0 && this.classing !== null) {
      // The runner-up is the best worker of another class (PassScorer.classOf).
      const classOf = this.classing,
        mine = classOf.classOf!(best);
      second = -1;
      secondScore = -Infinity;
      for (let i = 0; i < count; i++) {
        const w = feasibleList[i]!;
        if (classOf.classOf!(w) === mine) continue;
        const s = this.total(job, task, w);
        if (s === -Infinity) continue;
        if (second < 0 || this.before(s, w, secondScore, second)) {
          second = w;
          secondScore = s;
        }
      }
    }
    if (best >= 0) this.record(job, n, best, bestScore, second, secondScore);
    return best;
  }

  /** The feasible workers of `list` into the pool (kept per `shape` where the pass gives one). */
  private fill(
    list: ArrayLike<number>,
    feasible: (w: number) => boolean,
    shape: string | undefined,
    shapes: Map<string, ShapeLive>,
  ): void {
    const pool = this.pool;
    if (shape !== undefined) {
      let live = shapes.get(shape);
      if (!live) {
        live = new ShapeLive(list, feasible, this.snapshot.workers.length);
        shapes.set(shape, live);
        this.shapeList.push(live);
      }
      live.live();
      pool.feasible = live.list;
      pool.count = live.count;
      return;
    }
    const buf = this.buf;
    let count = 0;
    for (let i = 0; i < list.length; i++) {
      const w = list[i]!;
      if (feasible(w)) buf[count++] = w;
    }
    pool.feasible = buf;
    pool.count = count;
  }

  /** Σ weight × score in list order, or −Infinity as soon as a scorer rules `w` out. */
  private total(job: SchedulerJob, task: SchedulerTask, w: number): number {
    const scorers = this.scorers,
      weights = this.weights;
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
      const x = ties[t]!.score(this.job!, this.task!, a),
        y = ties[t]!.score(this.job!, this.task!, b);
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
    const shapes = this.shapeList;
    for (let i = 0; i < shapes.length; i++) shapes[i]!.touched(w);
  }

  reasonFor(job: string): string | null {
    for (const s of this.all) {
      const reason = s.reasonFor?.(job) ?? null;
      if (reason !== null) return reason;
    }
    return null;
  }
}
