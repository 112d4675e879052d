/**
 * Adaptive placement (docs/architecture.md, "Placement"; issue 15 §2, issue 36), pure: which
 * feasible worker a task goes to, by a convex score of throughput against cost. For task t of job
 * j and each feasible candidate w (every filter ok, room free now):
 *
 *   s(w)  = age(t) + λ·μ̂ − κ·ĉ + reuse(w)
 *
 * with the terms of adaptive-score.ts (μ̂, ĉ normalised over THIS task's candidates; reuse only
 * where w is warm for the job, reuse.ts) and λ the job category's (modes.ts). The age term is the
 * same for every worker of one task; it is kept so the recorded score compares across tasks.
 * Stickiness ranks above reuse: the sticky filter has already cut the candidates to the sticky worker.
 *
 * The score depends on a worker's μ and price, and on its warmth where it is warm, only; so the
 * workers with equal μ and cost form a class (classes.ts) and within a class the workers of one
 * warmth tie. Equal scores go, in order, to: the rotation (placement.jitter > 0: the first tied
 * worker of the class at or after the task's slot, classes.ts — identical workers share tasks
 * evenly), the worker idle longest (lastDispatchAt; never dispatched = longest), with selection
 * min-satisfying the smaller μ, then the earlier worker in snapshot order. The recorded runner-up
 * is the best worker of another class.
 *
 * With placement.keep-accelerators (accelerators.ts), a job that asks for no accelerator is first
 * scored over its candidates without accelerators alone; only when none of them is feasible over
 * all of them.
 *
 * Normalisation is relative to the candidates, so adding or removing one worker (or one filling
 * up within a pass) can change which of two others wins (test/cluster/scheduler/placement).
 * Cost. Where the pass gives a task shape (queue/first-fit.ts), a task scores classes, not
 * workers: the shape's classes ranked by base (ranking.ts) from the top until no later one can
 * win, plus its classes with workers warm for the job (warm-classes.ts), one score each; the
 * chosen worker of a class is found in O(log n). After a placement only the rankings holding the
 * worker hear of it (members.ts, a direct fit test each); warm lists are told nothing and settle
 * warmth when asked (warm-classes.ts). Without a shape (gangs, queue/allocate.ts) every
 * feasible worker is scored. adaptive-reference.test.ts checks every choice and decision of a pass
 * against a plain scoring of every feasible worker; classes.test.ts counts the scores per task.
 */
import { costPerHourOf, type PlacementDecision } from '../../../model/types.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { KEEP_ACCELERATORS, PlainTier } from './accelerators.js';
import type { FreeAmounts } from './filters.js';
import { devicesNeeded } from './fit.js';
import { ageTerm, baseScore, costShare, REUSE_BONUS, reuseBonus, throughput } from './adaptive-score.js';
import { NO_LEVEL, rotationScores, sortByMuCost, WorkerClasses } from './classes.js';
import { idHash, taskSlot } from './jitter.js';
import { RankingMembers } from './members.js';
import { PassHints } from './reuse.js';
import { ShapeRanking } from './ranking.js';
import { SMALLEST_FIT } from './scorers.js';
import type { PassSelector, PlacementProfile } from './scoring.js';
import type { WarmClasses } from './warm-classes.js';

/** How many best-ranked classes a shape's order holds at first (ranking.ts); grows ×4 when a task needs more. */
const RANKED_WINDOW = 16;

/** Scores evaluated by adaptive selectors since the process started (classes.test.ts counts work with it). */
export const scoreCount = { value: 0 };

/**
 * One pass's adaptive chooser (registry.ts picks it for the adaptive modes' exact scorer lists).
 * Built once per pass; `select` per task; `placed` after each placement it made (for the reuse
 * damping and the decision of later tasks).
 */
export class AdaptiveSelector implements PassSelector {
  /** The best feasible worker is always chosen: none is ruled out. */
  readonly takesAnyFeasible = true;
  private readonly mu: Float64Array;
  private readonly cost: Float64Array;
  private readonly idleSince: Float64Array;
  private readonly buf: Int32Array;
  private readonly scratch: Int32Array;
  /** Rotation score per worker (the plain scan). */
  private readonly rot: Float64Array;
  /** Per feasible worker, its place among its class's feasible workers (the plain scan). */
  private readonly idx: Int32Array;
  /** Task shape -> its ranked classes (select with a shape). */
  private readonly rankings = new Map<string, ShapeRanking>();
  /** The same over the shape's candidates without accelerators (the plain tier, accelerators.ts). */
  private readonly plainRankings = new Map<string, ShapeRanking>();
  /** The plain tier of each candidate list; null: placement.keep-accelerators is off. */
  private readonly plainTier: PlainTier | null;
  /** Per worker, the rankings it still fits (members.ts). */
  private readonly members: RankingMembers;
  /** The task whose rotation slot is `taskSlot` (a task may be tried in two tiers). */
  private slotTask: SchedulerTask | undefined;
  private taskSlot = 0;
  /** Worker ids by index (the decision's runner-up), read off the snapshot on first use. */
  private ids: string[] | null = null;
  /** The pass's classes (classes.ts), computed on first use. */
  private classes: WorkerClasses | null = null;
  /** placement.jitter > 0: the rotation breaks ties within a class. */
  private readonly rotate: boolean;
  /** ranking.marks[c] === stamp: class c was scored for the current task. */
  private stamp = 0;
  private best = -1;
  private bestScore = -Infinity;
  private bestRot = 0;
  private second = -1;
  private secondScore = -Infinity;
  private secondRot = 0;
  private readonly hints: PassHints;
  private readonly anyHints: boolean;
  private readonly minSatisfying: boolean;
  private readonly modeName: string;
  /** What the last `select` decided (adaptive only). */
  decision: PlacementDecision | undefined;

  /**
   * `placement`: adaptive's scorer list (registry.ts); its tie-breakers say whether selection is
   * min-satisfying. `capacity`: the pass's free amounts, where `feasible` of a select with a shape
   * is exactly the free-capacity test on them (queue/first-fit.ts): `placed` then tests the fit
   * of each ranking holding the worker directly (else through the ranking's `feasible`).
   */
  constructor(
    private readonly snapshot: Snapshot,
    private readonly options: PlacementProfile,
    capacity: FreeAmounts | null = null,
  ) {
    const workers = snapshot.workers;
    const n = workers.length;
    this.mu = new Float64Array(n);
    this.cost = new Float64Array(n);
    this.idleSince = new Float64Array(n);
    this.buf = new Int32Array(n);
    this.scratch = new Int32Array(n);
    this.rot = new Float64Array(n);
    this.idx = new Int32Array(n);
    this.members = new RankingMembers(n, capacity);
    for (let w = 0; w < n; w++) {
      const worker = workers[w]!;
      this.mu[w] = throughput(worker);
      this.cost[w] = costPerHourOf(worker);
      this.idleSince[w] = worker.lastDispatchAt ?? -Infinity;
    }
    this.rotate = options.jitter > 0;
    this.hints = new PassHints(snapshot);
    this.anyHints = this.hints.any;
    this.minSatisfying = options.tieBreakers.includes(SMALLEST_FIT);
    this.plainTier = options.scorers.some((s) => s.scorer === KEEP_ACCELERATORS) ? new PlainTier(workers) : null;
    this.modeName = options.name;
  }

  /** λ of the job's category. */
  lambdaOf(job: SchedulerJob): number {
    return this.options.lambda[job.category ?? 'other'];
  }

  /** 0 when `w` is not warm for `job`, else 1 + the tasks already using its keys there (reuse.ts). */
  warmth(job: SchedulerJob, w: number): number {
    return this.hints.warmth(job, w);
  }

  /**
   * The class order: μ, cost, then (without the rotation, where the idle-longest worker wins a
   * tie) the idle time, then worker order.
   */
  private classesOf(): WorkerClasses {
    return (this.classes ??= new WorkerClasses(
      sortByMuCost(this.mu, this.cost, this.rotate ? undefined : this.idleSince),
      this.mu,
      this.cost,
    ));
  }

  /** True when `a` (score sa, rotation ra) goes before `b` (sb, rb): the header's order of ties. */
  private before(sa: number, ra: number, a: number, sb: number, rb: number, b: number): boolean {
    if (sa !== sb) return sa > sb;
    if (ra !== rb) return ra > rb;
    const ia = this.idleSince[a]!,
      ib = this.idleSince[b]!;
    if (ia !== ib) return ia < ib;
    if (this.minSatisfying && this.mu[a] !== this.mu[b]) return this.mu[a]! < this.mu[b]!;
    return a < b;
  }

  /**
   * The chosen worker index among `candidates` (snapshot order) for which `feasible` holds, or
   * -1: the highest score. `shape`: where the caller knows that a worker that fails `feasible`
   * fails it for the rest of the pass (free capacity only shrinks) and calls `placed` after every
   * placement, a key of the task shape: the selector then keeps the shape's classes ranked
   * (ranking.ts) and scores only the top ones that can still win — same choice, far fewer scores.
   */
  select(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
    shape?: string,
  ): number {
    // Keep accelerators for accelerator work (accelerators.ts): the plain tier first. A shape's
    // tasks come in runs (a job's in a row): its plain tier and rankings are kept from the last one.
    if (shape === undefined || shape !== this.lastShape || candidates !== this.lastCandidates) {
      this.lastShape = shape;
      this.lastCandidates = candidates;
      this.lastPlain = this.plainTier?.of(job, candidates) ?? null;
      this.lastPlainRanking = this.lastRanking = undefined;
    }
    const plain = this.lastPlain;
    if (plain !== null) {
      const w = this.selectIn(job, task, plain, feasible, shape, this.plainRankings);
      if (w >= 0) return w;
    }
    return this.selectIn(job, task, candidates, feasible, shape, this.rankings);
  }

  /** The last select's shape and candidates, their plain tier and rankings (see `select`). */
  private lastShape: string | undefined;
  private lastCandidates: ArrayLike<number> | undefined;
  private lastPlain: Int32Array | null = null;
  private lastPlainRanking: ShapeRanking | undefined;
  private lastRanking: ShapeRanking | undefined;

  /** `select` over `candidates` alone (`rankings`: the shape rankings kept for such lists). */
  private selectIn(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
    shape: string | undefined,
    rankings: Map<string, ShapeRanking>,
  ): number {
    this.decision = undefined;
    if (shape !== undefined) {
      const plainTier = rankings === this.plainRankings;
      let ranking = plainTier ? this.lastPlainRanking : this.lastRanking;
      if (ranking === undefined) ranking = rankings.get(shape);
      if (!ranking) {
        ranking = new ShapeRanking(
          candidates,
          feasible,
          this.mu,
          this.cost,
          () => this.classesOf(),
          2 * this.options.jitter, // the cost weight's tie margin (adaptive-score.ts costWeight)
        );
        rankings.set(shape, ranking);
        const res = job.resources;
        this.members.add(ranking, res.cpuMillis, res.memoryBytes, devicesNeeded(res));
      }
      if (plainTier) this.lastPlainRanking = ranking;
      else this.lastRanking = ranking;
      return this.selectRanked(job, task, ranking);
    }
    return this.selectPlain(job, task, candidates, feasible);
  }

  /** The rule over every feasible worker (no shape): score each, then the best of another class. */
  private selectPlain(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
  ): number {
    const buf = this.buf;
    const mu = this.mu,
      cost = this.cost;
    let count = 0;
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
    const classes = this.classesOf();
    const classOf = classes.classOf,
      rankOf = classes.rankOf;
    // The rotation (classes.ts rotationScores) numbered in the same walk: idx[w] is w's place among
    // its class's feasible workers, size[c] their number, where the candidates come in class order.
    const rotate = this.rotate,
      size = classes.perClass(),
      last = classes.lastRank(),
      idx = this.idx;
    let ordered = true;
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (!feasible(w)) continue;
      buf[count++] = w;
      const m = mu[w]!,
        c = cost[w]!;
      if (m < muMin) muMin = m;
      if (m > muMax) muMax = m;
      if (c < cMin) cMin = c;
      if (c > cMax) cMax = c;
      if (rotate) {
        const k = classOf[w]!;
        if (size[k]! > 0 && rankOf[w]! < last[k]!) ordered = false;
        idx[w] = size[k]!++;
        last[k] = rankOf[w]!;
      }
    }
    if (count === 0) return -1; // nothing counted: the per-class scratch is still zero
    const slot = rotate ? this.slotOf(task) : 0;
    if (rotate && !ordered) {
      for (let i = 0; i < count; i++) size[classOf[buf[i]!]!] = 0;
      rotationScores(classes, buf, count, slot, this.rot, this.scratch);
    }
    this.rotSize = rotate && ordered ? size : null;
    this.rotSlot = slot;
    const winner = this.scorePlain(job, task, count, muMin, muMax, cMin, cMax);
    if (rotate && ordered) for (let i = 0; i < count; i++) size[classOf[buf[i]!]!] = 0; // zero between calls
    return winner;
  }

  /** selectPlain's scoring of the `count` feasible workers in `buf`, ranges given. */
  private scorePlain(
    job: SchedulerJob,
    task: SchedulerTask,
    count: number,
    muMin: number,
    muMax: number,
    cMin: number,
    cMax: number,
  ): number {
    const buf = this.buf;
    const mu = this.mu,
      cost = this.cost;
    const lambda = this.lambdaOf(job);
    const muSpan = muMax - muMin,
      cSpan = cMax - cMin;
    const age = ageTerm(task.submittedAt, this.snapshot.now);
    const usesKeys = this.anyHints && job.uses !== undefined && job.uses.length > 0;
    const classOf = this.classesOf().classOf;
    // One walk: the best, and the best of a class other than the best's (when the best moves to
    // another class, the old best is that; within its class, the runner-up stays).
    let best = -1,
      bestScore = -Infinity,
      second = -1,
      secondScore = -Infinity;
    for (let i = 0; i < count; i++) {
      const w = buf[i]!;
      let s = age + baseScore(lambda, this.options.jitter, mu[w]!, muMin, muSpan, cost[w]!, cMin, cSpan);
      if (usesKeys) {
        const warm = this.warmth(job, w);
        if (warm > 0) s += reuseBonus(warm, costShare(cost[w]!, cMin, cSpan));
      }
      scoreCount.value++;
      // The rotation matters only between equal scores: computed only then.
      const tie = s === bestScore;
      if (best < 0 || this.before(s, tie ? this.rotOf(w) : 0, w, bestScore, tie ? this.rotOf(best) : 0, best)) {
        if (best >= 0 && classOf[best] !== classOf[w]) {
          second = best;
          secondScore = bestScore;
        }
        best = w;
        bestScore = s;
      } else if (
        classOf[w] !== classOf[best] &&
        (second < 0 ||
          (s === secondScore
            ? this.before(s, this.rotOf(w), w, secondScore, this.rotOf(second), second)
            : s > secondScore))
      ) {
        second = w;
        secondScore = s;
      }
    }
    const winner = best;
    this.decision = {
      mode: this.modeName,
      pool: count,
      lambda,
      score: bestScore,
      runnerUp: second < 0 ? null : { workerId: this.idOf(second), score: secondScore },
      reuseHit: usesKeys && this.warmth(job, winner) > 0,
    };
    return winner;
  }

  /** The task's rotation slot (jitter.ts), hashed once per task. */
  private slotOf(task: SchedulerTask): number {
    if (task !== this.slotTask) {
      this.slotTask = task;
      this.taskSlot = taskSlot(idHash(task.id));
    }
    return this.taskSlot;
  }

  /** Worker w's id. */
  private idOf(w: number): string {
    if (this.ids === null) this.ids = this.snapshot.workers.map((x) => x.id);
    return this.ids[w]!;
  }

  /** Where the plain scan numbered the class order itself: the feasible workers per class (else null). */
  private rotSize: Int32Array | null = null;
  private rotSlot = 0;

  /** The plain scan's rotation score of feasible worker w (classes.ts rotationScores). */
  private rotOf(w: number): number {
    if (!this.rotate) return 0;
    const size = this.rotSize;
    if (size === null) return this.rot[w]!;
    const m = size[this.classes!.classOf[w]!]!;
    return -((this.idx[w]! - (this.rotSlot % m) + m) % m);
  }

  /**
   * `select` with a shape's ranking: walks the ranked classes from the top, scoring each class
   * once (its warm workers of least warmth where the job gets a reuse bonus there, else all its
   * workers) and stopping at the first class whose score cannot reach the runner-up's (later
   * bases are lower); then the classes with workers warm for the job that might still win with
   * their bonus. Ties are resolved by `before` as in the plain scan, so the result is its result.
   */
  private selectRanked(job: SchedulerJob, task: SchedulerTask, ranking: ShapeRanking): number {
    if (ranking.stale) ranking.rebuild();
    if (ranking.count === 0) return -1;
    const lambda = this.lambdaOf(job);
    const age = ageTerm(task.submittedAt, this.snapshot.now);
    const slot = this.rotate ? this.slotOf(task) : 0;
    const usesHints = this.anyHints && job.uses !== undefined && job.uses.length > 0;
    const warm = usesHints ? this.warmClasses(job, ranking) : null;
    const marks = ranking.marks;
    const stamp = ++this.stamp;
    this.best = this.second = -1;
    this.bestScore = this.secondScore = -Infinity;
    let m = RANKED_WINDOW;
    for (;;) {
      const order = ranking.order(lambda, m);
      const classes = order.classes,
        base = order.base;
      let settled = order.complete;
      for (let i = order.head; i < classes.length; i++) {
        const c = classes[i]!;
        if (ranking.alive(c) === 0) {
          if (i === order.head) order.head++;
          continue;
        }
        const s = age + base[i]!;
        if (this.second >= 0 && s < this.secondScore) {
          settled = true;
          break;
        }
        if (marks[c] === stamp) continue;
        marks[c] = stamp;
        this.scoreClass(ranking, warm, c, s, slot);
      }
      if (ranking.drops - order.dropsSeen > 32) ranking.prune(order); // later tasks need not step over them again
      if (settled) break;
      // The window ran out before the bound was met: take a larger one (rebuilt from the live classes now).
      m = order.size * 4;
    }
    if (warm) this.scanWarm(ranking, warm, lambda, age, slot, marks, stamp);
    const best = this.best;
    this.decision = {
      mode: this.modeName,
      pool: ranking.count,
      lambda,
      score: this.bestScore,
      runnerUp: this.second < 0 ? null : { workerId: this.idOf(this.second), score: this.secondScore },
      reuseHit: usesHints && this.warmth(job, best) > 0,
    };
    return best;
  }

  /**
   * Scores class c of `ranking` (score without reuse `s`): where some of its workers are warm for
   * the job and get a positive bonus, the least warm of them tie at the top, else all its workers
   * do; the rotation picks among them.
   */
  private scoreClass(ranking: ShapeRanking, warm: WarmClasses | null, c: number, s: number, slot: number): void {
    scoreCount.value++;
    const n = ranking.alive(c);
    const r = this.rotate ? slot % n : 0;
    const p = ranking.memberAt(c, r);
    if (warm) {
      const level = warm.least(c);
      if (level !== NO_LEVEL) {
        const bonus = reuseBonus(level, ranking.costShare(c));
        if (bonus > 0) {
          const w = warm.pick(c, p, level);
          const rot = this.rotate ? -((ranking.rankOf(w) - r + n) % n) : 0;
          this.consider(w, s + bonus, rot);
          return;
        }
      }
    }
    this.consider(ranking.list[p]!, s, 0);
  }

  /**
   * The classes with workers warm for the job that the walk did not reach: per μ group, cost
   * ascending (so base descending), each group left at the first class that cannot reach the
   * runner-up even with the full bonus.
   */
  private scanWarm(
    ranking: ShapeRanking,
    warm: WarmClasses,
    lambda: number,
    age: number,
    slot: number,
    marks: Int32Array,
    stamp: number,
  ): void {
    const list = warm.list,
      grouped = ranking.grouped;
    for (let g = 0; g < warm.head.length; g++) {
      // A group's classes come base descending: where even its head's base with the full bonus
      // cannot reach the runner-up, none can (checked before the head is settled; the same answer).
      if (grouped && this.second >= 0 && warm.head[g]! < warm.end[g]!) {
        const top = age + ranking.base(list[warm.head[g]!]!, lambda);
        if (top + REUSE_BONUS < this.secondScore) continue;
      }
      while (warm.head[g]! < warm.end[g]! && warm.leastAt(warm.head[g]!) === NO_LEVEL) warm.head[g]!++;
      for (let i = warm.head[g]!; i < warm.end[g]!; i++) {
        const c = list[i]!;
        if (ranking.alive(c) === 0) continue;
        const s = age + ranking.base(c, lambda);
        if (this.second >= 0 && s + REUSE_BONUS < this.secondScore) {
          if (grouped) break;
          continue;
        }
        if (marks[c] === stamp) continue;
        marks[c] = stamp;
        this.scoreClass(ranking, warm, c, s, slot);
      }
    }
  }

  private warmJob: SchedulerJob | undefined;
  private warmRanking: ShapeRanking | undefined;
  private warmLast: WarmClasses | null = null;

  /** The shape's workers warm for the job's keys, by class (built once per pass per set of keys). */
  private warmClasses(job: SchedulerJob, ranking: ShapeRanking): WarmClasses | null {
    if (job === this.warmJob && ranking === this.warmRanking) return this.warmLast; // a job's tasks come in a row
    this.warmJob = job;
    this.warmRanking = ranking;
    const uses = job.uses!;
    const keys = this.hints.keysOf(job);
    if (keys === null) return (this.warmLast = null);
    for (let i = 0; i < keys.length; i++) if (keys[i]! < 0) return (this.warmLast = null);
    const id = uses.length === 1 ? uses[0]! : uses.join('\u0000');
    const built = ranking.warmFor(id);
    if (built !== undefined) return (this.warmLast = built);
    return (this.warmLast = ranking.warmOf(id, this.hints.holdersOf(uses[0]!), (w) => this.hints.warmthOf(keys, w)));
  }

  /** Keep `w` (score s, rotation r) if it beats the best or the runner-up so far (ties by `before`). */
  private consider(w: number, s: number, r: number): void {
    if (this.best < 0 || this.before(s, r, w, this.bestScore, this.bestRot, this.best)) {
      this.second = this.best;
      this.secondScore = this.bestScore;
      this.secondRot = this.bestRot;
      this.best = w;
      this.bestScore = s;
      this.bestRot = r;
    } else if (this.second < 0 || this.before(s, r, w, this.secondScore, this.secondRot, this.second)) {
      this.second = w;
      this.secondScore = s;
      this.secondRot = r;
    }
  }

  /** A task of `job` was placed on `w` (by this selector's choice or not). */
  placed(job: SchedulerJob, w: number): void {
    // The reuse damping counts it; warm lists read warmth when asked (warm-classes.ts). Only the
    // rankings that still hold w can change: those it no longer fits drop it (members.ts).
    if (this.anyHints) this.hints.placed(job, w, this.mu.length);
    this.members.placed(w);
  }
}
