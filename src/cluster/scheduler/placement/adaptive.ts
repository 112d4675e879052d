/**
 * Adaptive placement (docs/architecture.md, "Placement"; issue 15 §2), pure: which feasible
 * worker a task goes to, by a convex score of throughput against cost. For task t of job j and
 * each feasible candidate w (every filter ok, room free now):
 *
 *   s(w)  = λ·μ̂ − κ·ĉ + age(t) + jitter(t, w) + reuse(w)
 *
 * with the terms of adaptive-score.ts (μ̂, ĉ normalised over THIS task's candidates; reuse only
 * where w is warm for the job, reuse.ts) and λ the job category's (modes.ts). The age term is the
 * same for every worker of one task; it is kept so the recorded score compares across tasks.
 * jitter(t, w) ∈ [−j, +j] hashes the task and worker ids (jitter.ts; the worker halves once per
 * pass, so a candidate costs a few integer operations): the same input always gives the same
 * choice, and identical workers rotate across tasks. Stickiness ranks above reuse: the sticky
 * filter has already cut the candidates to the sticky worker.
 *
 * With placement.keep-accelerators (accelerators.ts), a job that asks for no accelerator is first
 * scored over its candidates without accelerators alone; only when none of them is feasible over
 * all of them.
 *
 * Equal scores: the worker idle longest (lastDispatchAt; never dispatched = longest), then, with
 * selection min-satisfying, the smaller μ, then the earlier worker in snapshot order.
 *
 * Normalisation is relative to the candidates, so adding or removing one worker (or one filling
 * up within a pass) can change which of two others wins (test/cluster/scheduler/placement).
 * Cost: two passes over the candidates per task, per-worker numbers precomputed once per pass in
 * typed arrays, nothing allocated per candidate. Where the pass gives a task shape
 * (queue/first-fit.ts), a task instead scores the shape's live warm workers that could still win
 * (scoreWarmSegments) and then the top of the shape's ranked order (ranking.ts) until no later
 * worker can win. What remains per task is the workers whose base lies within 2·jitter of the
 * winner's; each is hashed, but most are settled by the hash alone (the tie scan's comment;
 * docs/benchmarks.md, "Adaptive placement"). adaptive-reference.test.ts checks every choice and
 * decision of a pass against a plain scoring of every feasible worker.
 */
import { costPerHourOf, type PlacementDecision } from '../../../model/types.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { KEEP_ACCELERATORS, PlainTier } from './accelerators.js';
import { ageTerm, baseScore, costShare, REUSE_BONUS, reuseBonus, throughput } from './adaptive-score.js';
import { idHash, jitterFrom, jitterMixed, jitterOfHash, pairHash } from './jitter.js';
import { PassHints } from './reuse.js';
import type { WarmSegments, WorkerList } from './ranked-order.js';
import { ShapeRanking, sortByMuCost } from './ranking.js';
import { SMALLEST_FIT } from './scorers.js';
import type { PassSelector, PlacementProfile } from './scoring.js';

/** How many best-ranked workers a shape's order holds at first (ranking.ts); grows ×4 when a task needs more. */
const RANKED_WINDOW = 64;

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
  private readonly workerHash: Int32Array;
  /** workerHash[w]·0x9e3779b1 (mod 2^32): the worker's half of the jitter, precomputed. */
  private readonly workerMix: Int32Array;
  private readonly buf: Int32Array;
  /** Task shape -> its ranked feasible workers (select with a shape). */
  private readonly rankings = new Map<string, ShapeRanking>();
  /** The same over the shape's candidates without accelerators (the plain tier, accelerators.ts). */
  private readonly plainRankings = new Map<string, ShapeRanking>();
  /** The plain tier of each candidate list; null: placement.keep-accelerators is off. */
  private readonly plainTier: PlainTier | null;
  /** The same rankings, for the loop in `placed`. */
  private readonly rankingList: ShapeRanking[] = [];
  /** Workers sorted by μ, cost, index (ranking.ts groups), computed on first use. */
  private byMuCost: Int32Array | null = null;
  /** marks[w] === stamp: w was scored as warm for the current task. */
  private readonly marks: Int32Array;
  private stamp = 0;
  private best = -1;
  private bestScore = -Infinity;
  private second = -1;
  private secondScore = -Infinity;
  private readonly hints: PassHints;
  private readonly anyHints: boolean;
  private readonly minSatisfying: boolean;
  private readonly modeName: string;
  /** What the last `select` decided (adaptive only). */
  decision: PlacementDecision | undefined;

  /** `placement`: adaptive's scorer list (registry.ts); its tie-breakers say whether selection is min-satisfying. */
  constructor(
    private readonly snapshot: Snapshot,
    private readonly options: PlacementProfile,
  ) {
    const workers = snapshot.workers;
    const n = workers.length;
    this.mu = new Float64Array(n);
    this.cost = new Float64Array(n);
    this.idleSince = new Float64Array(n);
    this.workerHash = new Int32Array(n);
    this.workerMix = new Int32Array(n);
    this.buf = new Int32Array(n);
    this.marks = new Int32Array(n);
    for (let w = 0; w < n; w++) {
      const worker = workers[w]!;
      this.mu[w] = throughput(worker);
      this.cost[w] = costPerHourOf(worker);
      this.idleSince[w] = worker.lastDispatchAt ?? -Infinity;
      this.workerHash[w] = idHash(worker.id);
      this.workerMix[w] = Math.imul(this.workerHash[w]!, 0x9e3779b1);
    }
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

  /** True when `a` (score sa) goes before `b` (score sb) on equal or better score. */
  private before(sa: number, a: number, sb: number, b: number): boolean {
    if (sa !== sb) return sa > sb;
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
   * placement, a key of the task shape: the selector then keeps the shape's feasible workers
   * ranked (ranking.ts) and scans only the top window that can still win — same choice, far
   * fewer workers scored.
   */
  select(
    job: SchedulerJob,
    task: SchedulerTask,
    candidates: ArrayLike<number>,
    feasible: (w: number) => boolean,
    shape?: string,
  ): number {
    // Keep accelerators for accelerator work (accelerators.ts): the plain tier first.
    const plain = this.plainTier?.of(job, candidates) ?? null;
    if (plain !== null) {
      const w = this.selectIn(job, task, plain, feasible, shape, this.plainRankings);
      if (w >= 0) return w;
    }
    return this.selectIn(job, task, candidates, feasible, shape, this.rankings);
  }

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
      let ranking = rankings.get(shape);
      if (!ranking) {
        ranking = new ShapeRanking(
          candidates,
          feasible,
          this.mu,
          this.cost,
          () => this.sortedByMuCost(),
          this.workerMix,
          2 * this.options.jitter, // the cost weight's tie margin (adaptive-score.ts costWeight)
        );
        rankings.set(shape, ranking);
        this.rankingList.push(ranking);
      }
      return this.selectRanked(job, task, ranking);
    }
    const buf = this.buf;
    const mu = this.mu,
      cost = this.cost;
    let count = 0;
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
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
    }
    if (count === 0) return -1;
    const lambda = this.lambdaOf(job);
    const muSpan = muMax - muMin,
      cSpan = cMax - cMin;
    const age = ageTerm(task.submittedAt, this.snapshot.now);
    const j = this.options.jitter;
    const h = idHash(task.id);
    const workerHash = this.workerHash;
    const workers = this.snapshot.workers;
    const usesKeys = this.anyHints && job.uses !== undefined && job.uses.length > 0;
    let best = -1,
      bestScore = -Infinity,
      second = -1,
      secondScore = -Infinity;
    for (let i = 0; i < count; i++) {
      const w = buf[i]!;
      let s = baseScore(lambda, this.options.jitter, mu[w]!, muMin, muSpan, cost[w]!, cMin, cSpan);
      s += age + jitterFrom(h, workerHash[w]!, j); // = base + (age + jitter), as in selectRanked
      if (usesKeys) {
        const warm = this.warmth(job, w);
        if (warm > 0) s += reuseBonus(warm, costShare(cost[w]!, cMin, cSpan));
      }
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
    this.decision = {
      mode: this.modeName,
      pool: count,
      lambda,
      score: bestScore,
      runnerUp: second < 0 ? null : { workerId: workers[second]!.id, score: secondScore },
      reuseHit: usesKeys && this.warmth(job, best) > 0,
    };
    return best;
  }

  /**
   * `select` with a shape's ranking: scores warm workers (hint lists per key) and then walks the
   * ranked order from the top, stopping at the first worker whose base + age + j is below the
   * runner-up's score (no later one can reach it: later bases are lower and jitter is at most j).
   * Equal scores are resolved by `before` as in the full scan, so the result is the full scan's.
   */
  private selectRanked(job: SchedulerJob, task: SchedulerTask, ranking: ShapeRanking): number {
    if (ranking.stale) ranking.rebuild();
    if (ranking.count === 0) return -1;
    const lambda = this.lambdaOf(job);
    const age = ageTerm(task.submittedAt, this.snapshot.now);
    const j = this.options.jitter;
    const h = idHash(task.id);
    const usesHints = this.anyHints && job.uses !== undefined && job.uses.length > 0;
    // Warm workers hold a hint for every key the job uses, so for the first among others.
    const segments = usesHints ? ranking.segmentsOf(job.uses![0]!, this.hints.holdersOf(job.uses![0]!)) : null;
    const warmList = usesHints && !segments ? this.warmCandidates(ranking, job.uses![0]!) : null;
    const marks = this.marks;
    const stamp = ++this.stamp;
    let m = RANKED_WINDOW;
    for (;;) {
      this.best = this.second = -1;
      this.bestScore = this.secondScore = -Infinity;
      const order = ranking.order(lambda, m);
      // A warm worker that cannot beat the runner-up even with the full bonus is skipped; scored
      // below as cold, it scores lower still, so skipping it changes nothing.
      if (segments) this.scoreWarmSegments(job, ranking, segments, lambda, age, h, stamp);
      if (warmList) {
        const ws = warmList.ws;
        let k = 0;
        for (let i = 0; i < warmList.n; i++) {
          const w = ws[i]!;
          if (!ranking.isAlive(w)) continue;
          ws[k++] = w;
          const b = ranking.base(w, lambda);
          if (this.second >= 0 && b + (age + j) + REUSE_BONUS < this.secondScore) continue;
          const warm = this.warmth(job, w);
          if (warm === 0) continue;
          marks[w] = stamp;
          this.consider(w, b + (age + jitterMixed(h, this.workerMix[w]!, j)) + reuseBonus(warm, ranking.costShare(w)));
        }
        warmList.n = k;
      }
      while (order.head < order.workers.length && !ranking.isAlive(order.workers[order.head]!)) order.head++;
      // The hot loop (every worker within 2·jitter of the winner): locals and arrays read in
      // order only. A score below the runner-up's changes nothing, so whether the worker still
      // fits or was scored as warm is asked only of the rare better one.
      // Most pairs are settled by their hash alone: the score never falls as the pair hash u
      // grows (jitter.ts, jitterOfHash) or as the base grows, the bases come in descending order
      // and the runner-up's score only rises, so once a pair with hash u scored below the
      // runner-up, every later pair with a hash <= u does too (`uBelow`), and its score need not
      // be computed. Exact: it skips only what the score comparison would skip.
      const workers = order.workers,
        base = order.base,
        tags = order.tags,
        dead = ranking.dead;
      const reach = age + j;
      let settled = order.complete;
      let secondScore = this.secondScore,
        hasSecond = this.second >= 0;
      let uBelow = -1;
      for (let i = order.head; i < workers.length; i++) {
        const b = base[i]!;
        if (hasSecond && b + reach < secondScore) {
          settled = true;
          break;
        }
        const u = pairHash(h, tags[i]!);
        if (u <= uBelow) continue;
        const s = b + (age + (j === 0 ? 0 : jitterOfHash(u, j)));
        if (s < secondScore) {
          // (placementOptions allows no negative jitter; a negative one would reverse the order)
          if (j >= 0) uBelow = u;
          continue;
        }
        const w = workers[i]!;
        if (dead[w] !== 0 || marks[w] === stamp) continue; // no longer fits / scored above as warm
        this.consider(w, s);
        secondScore = this.secondScore;
        hasSecond = true;
      }
      if (ranking.drops - order.dropsSeen > 32) ranking.prune(order); // later tasks need not step over them again
      if (settled) break;
      // The window ran out before the bound was met: take a larger one (rebuilt from the feasible workers now).
      m = order.size * 4;
    }
    const best = this.best;
    this.decision = {
      mode: this.modeName,
      pool: ranking.count,
      lambda,
      score: this.bestScore,
      runnerUp: this.second < 0 ? null : { workerId: this.snapshot.workers[this.second]!.id, score: this.secondScore },
      reuseHit: usesHints && marks[best] === stamp,
    };
    return best;
  }

  /** Keep `w` (score s) if it beats the best or the runner-up so far (ties by `before`). */
  private consider(w: number, s: number): void {
    if (this.best < 0 || this.before(s, w, this.bestScore, this.best)) {
      this.second = this.best;
      this.secondScore = this.bestScore;
      this.best = w;
      this.bestScore = s;
    } else if (this.second < 0 || this.before(s, w, this.secondScore, this.second)) {
      this.second = w;
      this.secondScore = s;
    }
  }

  /**
   * Scores the warm workers of `seg` (ranking.ts, WarmSegments) as the flat warm list is scored,
   * but the segments go best first (by the base of their first live worker) and a segment is left
   * at the first worker that cannot beat the runner-up even with the full bonus: later ones in it
   * have no higher base, and once a whole segment is out of reach so are the rest. Exact: it
   * skips only workers the flat scan would skip.
   */
  private scoreWarmSegments(
    job: SchedulerJob,
    ranking: ShapeRanking,
    seg: WarmSegments,
    lambda: number,
    age: number,
    h: number,
    stamp: number,
  ): void {
    const { ws, end, head, top, byTop } = seg;
    const j = this.options.jitter;
    const cost = this.cost,
      mix = this.workerMix;
    let live = 0;
    for (let g = 0; g < end.length; g++) {
      let i = head[g]!;
      while (i < end[g]! && !ranking.isAlive(ws[i]!)) i++;
      head[g] = i;
      if (i === end[g]) continue;
      top[g] = ranking.base(ws[i]!, lambda);
      // Insertion by top base, best first (few segments: one per hardware type).
      let k = live++;
      while (k > 0 && top[byTop[k - 1]!]! < top[g]!) {
        byTop[k] = byTop[k - 1]!;
        k--;
      }
      byTop[k] = g;
    }
    for (let x = 0; x < live; x++) {
      const g = byTop[x]!;
      if (this.second >= 0 && top[g]! + (age + j) + REUSE_BONUS < this.secondScore) return;
      // Within a segment the base changes only with the cost, and as in the tie scan a pair hash
      // at or below one that could not beat the runner-up even with the full bonus cannot either.
      let i = head[g]!,
        gone = 0,
        uBelow = -1,
        lastCost = NaN,
        b = 0;
      for (; i < end[g]!; i++) {
        const w = ws[i]!;
        if (!ranking.isAlive(w)) {
          gone++;
          continue;
        }
        if (cost[w] !== lastCost) {
          lastCost = cost[w]!;
          b = ranking.base(w, lambda);
        }
        if (this.second >= 0 && b + (age + j) + REUSE_BONUS < this.secondScore) break;
        const u = pairHash(h, mix[w]!);
        if (u <= uBelow) continue;
        const jit = j === 0 ? 0 : jitterOfHash(u, j); // = jitterMixed(h, mix[w], j)
        if (this.second >= 0 && b + (age + jit) + REUSE_BONUS < this.secondScore) {
          if (j >= 0) uBelow = u;
          continue;
        }
        const warm = this.warmth(job, w);
        if (warm === 0) continue;
        this.marks[w] = stamp;
        this.consider(w, b + (age + jit) + reuseBonus(warm, ranking.costShare(w)));
      }
      if (gone > 0) {
        // Drop the workers that no longer fit from the part scanned, keeping the order: shift the
        // live ones towards the part not scanned and move the segment's head after the gap.
        let p = i;
        for (let r = i - 1; r >= head[g]!; r--) if (ranking.isAlive(ws[r]!)) ws[--p] = ws[r]!;
        head[g] = p;
      }
    }
  }

  /** The shape's live workers with a fresh or loading hint for `key` (compacted as they drop). */
  private warmCandidates(ranking: ShapeRanking, key: string): WorkerList {
    return ranking.list(key, this.hints.holdersOf(key));
  }

  private sortedByMuCost(): Int32Array {
    return (this.byMuCost ??= sortByMuCost(this.mu, this.cost));
  }

  /** A task of `job` was placed on `w` (by this selector's choice or not). */
  placed(job: SchedulerJob, w: number): void {
    const rankings = this.rankingList;
    for (let i = 0; i < rankings.length; i++) rankings[i]!.touched(w);
    this.hints.placed(job, w, this.mu.length);
  }
}
