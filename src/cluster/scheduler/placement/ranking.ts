/**
 * One task shape's feasible workers during one pass, kept as ranked classes for adaptive
 * placement (adaptive.ts; classes.ts says what a class is), so a task scores a few classes at the
 * top instead of every candidate.
 *
 * Guarantees, valid only where a worker that stops fitting the shape never fits it again in the
 * pass (free capacity only shrinks, as in the plain pass, queue/first-fit.ts):
 * - `count` is exactly the number of feasible workers and `alive(c)` that of class c, provided
 *   after every placement on w (the only thing that changes a worker's free capacity in a pass)
 *   `touched(w)` is called, or, for a member known to have fitted until then, `stillFits(w)` or,
 *   where the caller tested the fit itself (adaptive.ts), `drop(w)` when it no longer fits;
 * - the normalisation ranges (min/max of μ and cost) are those of the feasible workers: when the
 *   last class holding an extreme value empties, the ranking is `stale` and `rebuild` recomputes
 *   them; orders per category are then rebuilt lazily;
 * - `order(λ, m)` lists at least the best min(m, classes with a feasible worker) classes by base
 *   score λ·μ̂ − κ·ĉ descending (a prefix of the full order; equal bases in any order), each base
 *   computed exactly as `base(c, λ)`; classes that empty are skipped (`alive`) and dropped by `prune`;
 * - `memberAt(c, k)` is where the k-th feasible worker of class c (class order) sits in `list` (O(log n));
 * - `warmOf` lists, per class, the shape's workers warm for one set of keys with their warmth,
 *   and finds the least warmth and where it sits (warm-classes.ts; it reads the warmth and
 *   `aliveAt` when asked, so placements need not tell it anything).
 * Memory: three arrays of the candidates' size (positions, and per position class and liveness)
 * and the worker-sized `posOf`; per class a few numbers.
 *
 * How orders are built. Real fleets have few hardware types, so the classes usually hold few
 * distinct μ values. Then (at most MAX_GROUPS values) the classes are kept in one group per μ,
 * by cost ascending: within a group the base falls as cost rises whatever the ranges are, so a
 * range change re-sorts nothing — `rebuild` reads the ranges off the groups' ends and `order`
 * merges the groups' heads (O(m × groups)). With more distinct μ values the ranking falls back to
 * a linear pass over the live classes: ranges by one scan, orders by selecting the m-th best base
 * (nthLargest, O(classes) expected) and sorting only the classes at or above it.
 */
import { LiveIndex, type WorkerClasses } from './classes.js';
import type { RankedOrder } from './ranked-order.js';
import { WarmClasses } from './warm-classes.js';

/** The most distinct μ values for which orders are merged from per-μ groups (see the header). */
export const MAX_GROUPS = 32;

/** Classes of one μ value, by cost ascending; [head, tail] holds every live one. */
interface Group {
  readonly mu: number;
  readonly first: number;
  readonly last: number;
  head: number;
  tail: number;
  alive: number;
}

export class ShapeRanking {
  /** The feasible workers in class order; class c holds [start[c], start[c + 1]). */
  readonly list: Int32Array;
  /** posOf[w] + 1: w's position in `list` (0: not in the shape). */
  private readonly posOf: Int32Array;
  private readonly live: LiveIndex;
  /** deadAt[p] = 1: the member at position p was feasible and no longer fits. */
  private readonly deadAt: Uint8Array;
  count = 0;
  /** The shape's classes: bounds in `list`, μ, cost, feasible workers left. */
  private readonly start: Int32Array;
  private readonly mu: Float64Array;
  private readonly cost: Float64Array;
  private readonly aliveIn: Int32Array;
  /** classAt[p]: the shape class of the member at position p. */
  private readonly classAt: Int32Array;
  readonly classes: number;
  /** Scratch for the selector: marks[c] === its stamp when class c was scored for the current task. */
  readonly marks: Int32Array;
  private aliveClasses: Int32Array;
  private readonly groups: Group[] | null;
  private readonly groupOf: Int32Array | null;
  muMin = 0;
  muMax = 0;
  cMin = 0;
  cMax = 0;
  private atMuMin = 0;
  private atMuMax = 0;
  private atCMin = 0;
  private atCMax = 0;
  stale = true;
  /** How many classes emptied so far (orders compare it with their `dropsSeen` to prune). */
  drops = 0;
  private readonly orders = new Map<number, RankedOrder>();
  private readonly warm = new Map<string, WarmClasses>();

  /** `classes`: the pass's classes (their order gives the class order). */
  constructor(
    candidates: ArrayLike<number>,
    private readonly feasible: (w: number) => boolean,
    workerMu: Float64Array,
    workerCost: Float64Array,
    classes: () => WorkerClasses,
    /** The cost weight's tie margin beyond 1 − λ, 2·j (adaptive-score.ts costWeight). */
    private readonly costTie: number,
  ) {
    const n = workerMu.length;
    this.posOf = new Int32Array(n);
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (this.posOf[w] === 0 && feasible(w)) {
        this.posOf[w] = 1;
        this.count++;
      }
    }
    const all = classes();
    const order = all.order,
      classOf = all.classOf;
    this.list = new Int32Array(this.count);
    this.deadAt = new Uint8Array(this.count);
    this.classAt = new Int32Array(this.count);
    const starts: number[] = [];
    let k = 0;
    for (let i = 0; i < order.length; i++) {
      const w = order[i]!;
      if (this.posOf[w] === 0) continue;
      if (k === 0 || classOf[w] !== classOf[this.list[k - 1]!]) starts.push(k);
      this.classAt[k] = starts.length - 1;
      this.list[k++] = w;
      this.posOf[w] = k;
    }
    this.classes = starts.length;
    starts.push(k);
    this.start = Int32Array.from(starts);
    this.marks = new Int32Array(this.classes);
    this.mu = new Float64Array(this.classes);
    this.cost = new Float64Array(this.classes);
    this.aliveIn = new Int32Array(this.classes);
    this.aliveClasses = new Int32Array(this.classes);
    const values = new Set<number>();
    for (let c = 0; c < this.classes; c++) {
      const w = this.list[this.start[c]!]!;
      this.mu[c] = workerMu[w]!;
      this.cost[c] = workerCost[w]!;
      this.aliveIn[c] = this.start[c + 1]! - this.start[c]!;
      this.aliveClasses[c] = c;
      if (values.size <= MAX_GROUPS) values.add(this.mu[c]!);
    }
    this.live = new LiveIndex(this.count);
    if (values.size > MAX_GROUPS || this.count === 0) {
      this.groups = null;
      this.groupOf = null;
      return;
    }
    // The class order is μ then cost: each μ is a run of classes, cost ascending.
    this.groups = [];
    this.groupOf = new Int32Array(this.classes);
    for (let c = 0; c < this.classes; ) {
      let e = c;
      while (e < this.classes && this.mu[e] === this.mu[c]) this.groupOf[e++] = this.groups.length;
      this.groups.push({ mu: this.mu[c]!, first: c, last: e - 1, head: c, tail: e - 1, alive: e - c });
      c = e;
    }
  }

  /** True when the classes are kept in per-μ groups (orders merged from them; see the header). */
  get grouped(): boolean {
    return this.groups !== null;
  }

  isAlive(w: number): boolean {
    const p = this.posOf[w]!;
    return p !== 0 && this.deadAt[p - 1] === 0;
  }

  /** The member at position `p` of `list` still fits. */
  aliveAt(p: number): boolean {
    return this.deadAt[p] === 0;
  }

  /** Feasible workers left in class c. */
  alive(c: number): number {
    return this.aliveIn[c]!;
  }

  /** The class of member w. */
  classOf(w: number): number {
    return this.classAt[this.posOf[w]! - 1]!;
  }

  /** The class of the member at position `p` of `list`. */
  classAtPos(p: number): number {
    return this.classAt[p]!;
  }

  /** The position in `list` of the k-th (0-based) feasible worker of class c, in class order; k below alive(c). */
  memberAt(c: number, k: number): number {
    return this.live.select(this.live.before(this.start[c]!) + k);
  }

  /** The rank of live member w among its class's feasible workers. */
  rankOf(w: number): number {
    const p = this.posOf[w]! - 1;
    return this.live.before(p) - this.live.before(this.start[this.classAt[p]!]!);
  }

  /** A task was placed on `w`: drop it if it no longer fits the shape. */
  touched(w: number): void {
    if (this.isAlive(w)) this.stillFits(w);
  }

  /**
   * A task was placed on `w`, a feasible member until now: true when it still fits the shape,
   * else it is dropped (for the rest of the pass) and false. The selector keeps, per worker, the
   * rankings it still fits, so it calls this without `isAlive`'s two lookups.
   */
  stillFits(w: number): boolean {
    if (this.feasible(w)) return true;
    this.drop(w);
    return false;
  }

  /** Member `w`, feasible until now, no longer fits the shape: it leaves for the rest of the pass. */
  drop(w: number): void {
    const pos = this.posOf[w]! - 1;
    this.deadAt[pos] = 1;
    this.count--;
    this.live.kill(pos);
    const c = this.classAt[pos]!;
    if (--this.aliveIn[c]! > 0) return;
    this.drops++;
    if (this.groupOf) this.groups![this.groupOf[c]!]!.alive--;
    const m = this.mu[c]!,
      x = this.cost[c]!;
    if (m === this.muMin && --this.atMuMin === 0) this.stale = true;
    if (m === this.muMax && --this.atMuMax === 0) this.stale = true;
    if (x === this.cMin && --this.atCMin === 0) this.stale = true;
    if (x === this.cMax && --this.atCMax === 0) this.stale = true;
  }

  /** Recompute the ranges (and how many classes hold each extreme); orders are rebuilt on demand. */
  rebuild(): void {
    if (this.groups) this.rangesFromGroups(this.groups);
    else this.rangesByScan();
    this.orders.clear();
    this.lastOrder = null;
    this.stale = false;
  }

  private rangesByScan(): void {
    let k = 0;
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
    const classes = this.aliveClasses;
    for (let i = 0; i < classes.length; i++) {
      const c = classes[i]!;
      if (this.aliveIn[c] === 0) continue;
      classes[k++] = c;
      const m = this.mu[c]!,
        x = this.cost[c]!;
      if (m < muMin) muMin = m;
      if (m > muMax) muMax = m;
      if (x < cMin) cMin = x;
      if (x > cMax) cMax = x;
    }
    this.aliveClasses = classes.subarray(0, k);
    this.setRanges(muMin, muMax, cMin, cMax);
    let a = 0,
      b = 0,
      c = 0,
      d = 0;
    for (let i = 0; i < k; i++) {
      const x = this.aliveClasses[i]!;
      if (this.mu[x] === muMin) a++;
      if (this.mu[x] === muMax) b++;
      if (this.cost[x] === cMin) c++;
      if (this.cost[x] === cMax) d++;
    }
    this.setCounts(a, b, c, d);
  }

  private rangesFromGroups(groups: Group[]): void {
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
    const cost = this.cost,
      alive = this.aliveIn;
    for (const g of groups) {
      if (g.alive === 0) continue;
      while (alive[g.head] === 0) g.head++;
      while (alive[g.tail] === 0) g.tail--;
      if (g.mu < muMin) muMin = g.mu;
      if (g.mu > muMax) muMax = g.mu;
      if (cost[g.head]! < cMin) cMin = cost[g.head]!;
      if (cost[g.tail]! > cMax) cMax = cost[g.tail]!;
    }
    this.setRanges(muMin, muMax, cMin, cMax);
    let a = 0,
      b = 0,
      c = 0,
      d = 0;
    for (const g of groups) {
      if (g.alive === 0) continue;
      if (g.mu === muMin) a += g.alive;
      if (g.mu === muMax) b += g.alive;
      // Within a group costs ascend (one class per cost): the extremes sit at its ends.
      if (cost[g.head] === cMin) c++;
      if (cost[g.tail] === cMax) d++;
    }
    this.setCounts(a, b, c, d);
  }

  private setRanges(muMin: number, muMax: number, cMin: number, cMax: number): void {
    this.muMin = muMin;
    this.muMax = muMax;
    this.cMin = cMin;
    this.cMax = cMax;
  }

  private setCounts(a: number, b: number, c: number, d: number): void {
    this.atMuMin = a;
    this.atMuMax = b;
    this.atCMin = c;
    this.atCMax = d;
  }

  /**
   * The base score of class `c` under λ and the current ranges: adaptive-score.ts `baseScore`,
   * written out here because this is the hot path; scoring.test.ts and adaptive-reference.test.ts
   * hold the two to the same results.
   */
  base(c: number, lambda: number): number {
    const muSpan = this.muMax - this.muMin,
      cSpan = this.cMax - this.cMin;
    return (
      (muSpan > 0 ? lambda * ((this.mu[c]! - this.muMin) / muSpan) : 0) -
      (cSpan > 0 ? (1 - lambda + this.costTie) * ((this.cost[c]! - this.cMin) / cSpan) : 0)
    );
  }

  /** ĉ of class `c`: its cost min–max normalised over the current ranges (0 when all are equal). */
  costShare(c: number): number {
    const cSpan = this.cMax - this.cMin;
    return cSpan > 0 ? (this.cost[c]! - this.cMin) / cSpan : 0;
  }

  /**
   * The (at least) min(m, live classes) classes with the best base score under `lambda`, best
   * first; every live class when `complete`. Built once per λ and size per rebuild.
   */
  order(lambda: number, m: number): RankedOrder {
    const last = this.lastOrder;
    if (last !== null && lambda === this.lastLambda && last.size >= m) return last; // a job's tasks come in a row
    const cached = this.orders.get(lambda);
    if (cached && cached.size >= m) return this.keep(lambda, cached);
    const order = this.groups ? this.mergeGroups(this.groups, lambda, m) : this.selectTop(lambda, m);
    this.orders.set(lambda, order);
    return this.keep(lambda, order);
  }

  /** The order last returned, and its λ (cleared with the orders). */
  private lastOrder: RankedOrder | null = null;
  private lastLambda = 0;

  private keep(lambda: number, order: RankedOrder): RankedOrder {
    this.lastLambda = lambda;
    return (this.lastOrder = order);
  }

  private liveClassCount(): number {
    if (this.groups) {
      let n = 0;
      for (const g of this.groups) n += g.alive;
      return n;
    }
    let n = 0;
    for (let i = 0; i < this.aliveClasses.length; i++) if (this.aliveIn[this.aliveClasses[i]!] !== 0) n++;
    return n;
  }

  /** Merge the groups' heads, best base first: within a group the base falls as cost rises. */
  private mergeGroups(groups: Group[], lambda: number, m: number): RankedOrder {
    const total = this.liveClassCount();
    const size = Math.min(m, total);
    const classes = new Int32Array(size);
    const base = new Float64Array(size);
    const g = groups.length;
    const cursor = new Int32Array(g);
    const next = new Float64Array(g); // base of the class at each group's cursor (-Infinity: exhausted)
    const advance = (i: number): void => {
      const group = groups[i]!;
      let c = cursor[i]!;
      while (c <= group.tail && this.aliveIn[c] === 0) c++;
      cursor[i] = c;
      next[i] = c <= group.tail ? this.base(c, lambda) : -Infinity;
    };
    for (let i = 0; i < g; i++) {
      cursor[i] = groups[i]!.head;
      advance(i);
    }
    for (let k = 0; k < size; k++) {
      let pick = -1;
      for (let i = 0; i < g; i++) {
        if (next[i] === -Infinity) continue;
        if (pick < 0 || next[i]! > next[pick]!) pick = i;
      }
      classes[k] = cursor[pick]!;
      base[k] = next[pick]!;
      cursor[pick]!++;
      advance(pick);
    }
    return this.ordered(classes, base, m, total);
  }

  /** Fallback: select the m-th best base (nthLargest) and sort only the classes at or above it. */
  private selectTop(lambda: number, m: number): RankedOrder {
    const all = new Int32Array(this.aliveClasses.length);
    const bases = new Float64Array(all.length);
    const byClass = new Float64Array(this.classes);
    let n = 0;
    for (let i = 0; i < this.aliveClasses.length; i++) {
      const c = this.aliveClasses[i]!;
      if (this.aliveIn[c] === 0) continue;
      all[n] = c;
      bases[n++] = byClass[c] = this.base(c, lambda);
    }
    let classes = all.subarray(0, n);
    if (n > m) {
      const threshold = nthLargest(bases.subarray(0, n), m);
      let t = 0;
      for (let i = 0; i < n; i++) if (byClass[all[i]!]! >= threshold) all[t++] = all[i]!;
      classes = all.subarray(0, t);
    }
    classes.sort((x, y) => byClass[y]! - byClass[x]! || x - y);
    const base = new Float64Array(classes.length);
    for (let i = 0; i < classes.length; i++) base[i] = byClass[classes[i]!]!;
    return this.ordered(classes, base, m, n);
  }

  private ordered(classes: Int32Array, base: Float64Array, m: number, total: number): RankedOrder {
    return {
      classes,
      base,
      dropsSeen: this.drops,
      head: 0,
      size: Math.max(m, classes.length),
      complete: classes.length === total,
    };
  }

  /** Drop the classes that emptied from `order` (keeping its sequence). */
  prune(order: RankedOrder): void {
    let k = 0;
    const { classes, base } = order;
    for (let i = order.head; i < classes.length; i++) {
      if (this.aliveIn[classes[i]!] === 0) continue;
      classes[k] = classes[i]!;
      base[k++] = base[i]!;
    }
    order.classes = classes.subarray(0, k);
    order.base = base.subarray(0, k);
    order.head = 0;
    order.dropsSeen = this.drops;
  }

  /**
   * The shape's workers among `holders` warm for one set of keys (`id` names it; built once per
   * pass), with their warmth `levelOf(w)` (0: not warm), per class in class order.
   */
  /** The warm list `warmOf` built for `id`, if any. */
  warmFor(id: string): WarmClasses | undefined {
    return this.warm.get(id);
  }

  warmOf(id: string, holders: ArrayLike<number>, levelOf: (w: number) => number): WarmClasses {
    let warm = this.warm.get(id);
    if (!warm) {
      warm = new WarmClasses(this, holders, levelOf, this.posOf, this.groupOf);
      this.warm.set(id, warm);
    }
    return warm;
  }
}

/**
 * The m-th largest value of `xs` (1-based; xs is reordered), by Hoare's selection with a middle
 * pivot: O(n) expected, deterministic.
 */
export function nthLargest(xs: Float64Array, m: number): number {
  const target = xs.length - m; // index in ascending order
  let lo = 0,
    hi = xs.length - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >>> 1]!;
    let i = lo,
      j = hi;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const t = xs[i]!;
        xs[i] = xs[j]!;
        xs[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return xs[target]!;
}
