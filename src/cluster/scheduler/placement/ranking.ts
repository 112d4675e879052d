/**
 * One task shape's feasible workers during one pass, kept ranked for adaptive placement
 * (adaptive.ts), so a task scans a short window at the top instead of every candidate.
 *
 * Guarantees, valid only where a worker that stops fitting the shape never fits it again in the
 * pass (free capacity only shrinks, as in the plain pass, queue/first-fit.ts):
 * - `count` is exactly the number of feasible workers, provided `touched(w)` is called after
 *   every placement on w (the only thing that changes a worker's free capacity in a pass);
 * - the normalisation ranges (min/max of μ and cost) are those of the feasible workers: when the
 *   last worker holding an extreme value stops fitting, the ranking is `stale` and `rebuild`
 *   recomputes them; orders per category are then rebuilt lazily;
 * - `order(λ, m)` lists at least the best min(m, count) feasible workers by base score
 *   λ·μ̂ − (1−λ)·ĉ descending (a prefix of the full order; equal bases in any order), with each
 *   base computed exactly as `base(w, λ)`. Base scores do not depend on free capacity, so an
 *   order stays right until the ranges change; workers that stop fitting are skipped (`isAlive`)
 *   and dropped by `prune`;
 * - `segmentsOf(key, holders)` (grouped rankings only) lists the shape's workers among `holders`
 *   per μ group by cost ascending, so a scan of one group meets bases in descending order.
 *
 * How orders are built. Real fleets have few hardware types, so the feasible workers usually hold
 * few distinct μ values. Then (at most MAX_GROUPS values) the workers are kept in one group per μ,
 * each sorted by cost ascending once per pass: within a group the base falls as cost rises
 * whatever the ranges are, so a range change never re-sorts anything — `rebuild` reads the ranges
 * off the groups' ends (O(groups), plus the workers tied at a cost extreme) and `order` merges the
 * groups' heads (O(m × groups)). With more distinct μ values the ranking falls back to a linear
 * pass: ranges by one scan (O(n)), orders by selecting the m-th best base (nthLargest, O(n)
 * expected) and sorting only the workers at or above it.
 */
import type { RankedOrder, WarmSegments, WorkerList } from './ranked-order.js';

/** The most distinct μ values for which orders are merged from per-μ groups (see the header). */
export const MAX_GROUPS = 32;

/** Feasible workers of one μ value, by cost ascending then index; [head, tail] holds every live one. */
interface Group {
  readonly mu: number;
  readonly list: Int32Array;
  head: number;
  tail: number;
  alive: number;
}

export class ShapeRanking {
  private alive: Int32Array;
  count = 0;
  private readonly member: Uint8Array;
  /** dead[w] = 1: w was feasible and no longer fits (orders hold feasible workers only). */
  readonly dead: Uint8Array;
  /** Scratch space for sorting: base score by worker index (fallback only). */
  private readonly baseByWorker: Float64Array;
  /** Per-μ groups, or null when there are more than MAX_GROUPS distinct μ values. */
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
  /** How many workers stopped fitting so far (orders compare it with their `dropsSeen` to prune). */
  drops = 0;
  private readonly orders = new Map<number, RankedOrder>();
  private readonly lists = new Map<string, WorkerList>();
  private readonly segments = new Map<string, WarmSegments>();

  /**
   * `byMuCost`: every worker index sorted by μ, then cost, then index (ascending); the feasible
   * candidates are taken from it in that order to form the groups. `tag`: a number per worker
   * that orders carry alongside (adaptive.ts: the worker's half of the jitter).
   */
  constructor(
    candidates: ArrayLike<number>,
    private readonly feasible: (w: number) => boolean,
    private readonly mu: Float64Array,
    private readonly cost: Float64Array,
    byMuCost: () => Int32Array,
    private readonly tag: Int32Array,
    /** The cost weight's tie margin beyond 1 − λ, 2·j (adaptive-score.ts costWeight). */
    private readonly costTie: number,
  ) {
    const n = mu.length;
    this.member = new Uint8Array(n);
    this.dead = new Uint8Array(n);
    this.baseByWorker = new Float64Array(n);
    this.alive = new Int32Array(candidates.length);
    const values = new Set<number>();
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (!feasible(w)) continue;
      this.alive[this.count++] = w;
      this.member[w] = 1;
      if (values.size <= MAX_GROUPS) values.add(mu[w]!);
    }
    this.alive = this.alive.subarray(0, this.count);
    if (values.size > MAX_GROUPS || this.count === 0) {
      this.groups = null;
      this.groupOf = null;
      return;
    }
    const sorted = byMuCost();
    const all = new Int32Array(this.count);
    let k = 0;
    for (let i = 0; i < sorted.length; i++) if (this.member[sorted[i]!] === 1) all[k++] = sorted[i]!;
    this.groups = [];
    this.groupOf = new Int32Array(n);
    for (let i = 0; i < k; ) {
      let e = i;
      while (e < k && mu[all[e]!] === mu[all[i]!]) this.groupOf[all[e++]!] = this.groups.length;
      this.groups.push({ mu: mu[all[i]!]!, list: all.subarray(i, e), head: 0, tail: e - i - 1, alive: e - i });
      i = e;
    }
  }

  isAlive(w: number): boolean {
    return this.member[w] === 1 && this.dead[w] === 0;
  }

  /** A task was placed on `w`: drop it if it no longer fits the shape. */
  touched(w: number): void {
    if (!this.isAlive(w) || this.feasible(w)) return;
    this.dead[w] = 1;
    this.count--;
    this.drops++;
    if (this.groupOf) this.groups![this.groupOf[w]!]!.alive--;
    const m = this.mu[w]!,
      c = this.cost[w]!;
    if (m === this.muMin && --this.atMuMin === 0) this.stale = true;
    if (m === this.muMax && --this.atMuMax === 0) this.stale = true;
    if (c === this.cMin && --this.atCMin === 0) this.stale = true;
    if (c === this.cMax && --this.atCMax === 0) this.stale = true;
  }

  /** Recompute the ranges (and how many workers hold each extreme); orders are rebuilt on demand. */
  rebuild(): void {
    if (this.groups) this.rangesFromGroups(this.groups);
    else this.rangesByScan();
    this.orders.clear();
    this.stale = false;
  }

  private rangesByScan(): void {
    let k = 0;
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
    const alive = this.alive;
    for (let i = 0; i < alive.length; i++) {
      const w = alive[i]!;
      if (!this.isAlive(w)) continue;
      alive[k++] = w;
      const m = this.mu[w]!,
        c = this.cost[w]!;
      if (m < muMin) muMin = m;
      if (m > muMax) muMax = m;
      if (c < cMin) cMin = c;
      if (c > cMax) cMax = c;
    }
    this.alive = alive.subarray(0, k);
    this.count = k;
    this.setRanges(muMin, muMax, cMin, cMax);
    let a = 0,
      b = 0,
      c = 0,
      d = 0;
    for (let i = 0; i < k; i++) {
      const w = this.alive[i]!;
      if (this.mu[w] === muMin) a++;
      if (this.mu[w] === muMax) b++;
      if (this.cost[w] === cMin) c++;
      if (this.cost[w] === cMax) d++;
    }
    this.setCounts(a, b, c, d);
  }

  private rangesFromGroups(groups: Group[]): void {
    let muMin = Infinity,
      muMax = -Infinity,
      cMin = Infinity,
      cMax = -Infinity;
    const cost = this.cost;
    for (const g of groups) {
      if (g.alive === 0) continue;
      while (!this.isAlive(g.list[g.head]!)) g.head++;
      while (!this.isAlive(g.list[g.tail]!)) g.tail--;
      if (g.mu < muMin) muMin = g.mu;
      if (g.mu > muMax) muMax = g.mu;
      if (cost[g.list[g.head]!]! < cMin) cMin = cost[g.list[g.head]!]!;
      if (cost[g.list[g.tail]!]! > cMax) cMax = cost[g.list[g.tail]!]!;
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
      // Within a group costs ascend: the workers at an extreme sit at its ends.
      for (let i = g.head; i <= g.tail && cost[g.list[i]!] === cMin; i++) if (this.isAlive(g.list[i]!)) c++;
      for (let i = g.tail; i >= g.head && cost[g.list[i]!] === cMax; i--) if (this.isAlive(g.list[i]!)) d++;
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
   * The base score of worker `w` under λ and the current ranges: adaptive-score.ts `baseScore`,
   * written out here because this is the hot path (the call cost 2–4% of an adaptive pass priced
   * per machine); scoring.test.ts and adaptive-reference.test.ts hold the two to the same results.
   */
  base(w: number, lambda: number): number {
    const muSpan = this.muMax - this.muMin,
      cSpan = this.cMax - this.cMin;
    return (
      (muSpan > 0 ? lambda * ((this.mu[w]! - this.muMin) / muSpan) : 0) -
      (cSpan > 0 ? (1 - lambda + this.costTie) * ((this.cost[w]! - this.cMin) / cSpan) : 0)
    );
  }

  /** ĉ of worker `w`: its cost min–max normalised over the current ranges (0 when all are equal). */
  costShare(w: number): number {
    const cSpan = this.cMax - this.cMin;
    return cSpan > 0 ? (this.cost[w]! - this.cMin) / cSpan : 0;
  }

  /**
   * The (at least) min(m, count) feasible workers with the best base score under `lambda`, best
   * first; the whole feasible set when `complete`. Built once per λ and size per rebuild.
   */
  order(lambda: number, m: number): RankedOrder {
    const cached = this.orders.get(lambda);
    if (cached && cached.size >= m) return cached;
    const order = this.groups ? this.mergeGroups(this.groups, lambda, m) : this.selectTop(lambda, m);
    this.orders.set(lambda, order);
    return order;
  }

  /** Merge the groups' heads, best base first: within a group the base falls as cost rises. */
  private mergeGroups(groups: Group[], lambda: number, m: number): RankedOrder {
    const size = Math.min(m, this.count);
    const workers = new Int32Array(size);
    const base = new Float64Array(size);
    const g = groups.length;
    const cursor = new Int32Array(g);
    const next = new Float64Array(g); // base of the worker at each group's cursor (-Infinity: exhausted)
    const advance = (i: number): void => {
      const group = groups[i]!;
      let c = cursor[i]!;
      while (c <= group.tail && !this.isAlive(group.list[c]!)) c++;
      cursor[i] = c;
      next[i] = c <= group.tail ? this.base(group.list[c]!, lambda) : -Infinity;
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
      workers[k] = groups[pick]!.list[cursor[pick]!]!;
      base[k] = next[pick]!;
      cursor[pick]!++;
      advance(pick);
    }
    return this.ordered(workers, base, m);
  }

  /** Fallback: select the m-th best base (nthLargest) and sort only the workers at or above it. */
  private selectTop(lambda: number, m: number): RankedOrder {
    const k = this.count;
    const all = new Int32Array(k);
    const byWorker = this.baseByWorker;
    const bases = new Float64Array(k);
    let n = 0;
    for (let i = 0; i < this.alive.length; i++) {
      const w = this.alive[i]!;
      if (!this.isAlive(w)) continue;
      all[n] = w;
      bases[n++] = byWorker[w] = this.base(w, lambda);
    }
    let workers = all.subarray(0, n);
    if (n > m) {
      const threshold = nthLargest(bases.subarray(0, n), m);
      let t = 0;
      for (let i = 0; i < n; i++) if (byWorker[all[i]!]! >= threshold) all[t++] = all[i]!;
      workers = all.subarray(0, t);
    }
    workers.sort((x, y) => byWorker[y]! - byWorker[x]! || x - y);
    const base = new Float64Array(workers.length);
    for (let i = 0; i < workers.length; i++) base[i] = byWorker[workers[i]!]!;
    return this.ordered(workers, base, m);
  }

  private ordered(workers: Int32Array, base: Float64Array, m: number): RankedOrder {
    const tags = new Int32Array(workers.length);
    for (let i = 0; i < workers.length; i++) tags[i] = this.tag[workers[i]!]!;
    return {
      workers,
      base,
      tags,
      dropsSeen: this.drops,
      head: 0,
      size: Math.max(m, workers.length),
      complete: workers.length === this.count,
    };
  }

  /** Drop the workers that no longer fit from `order` (keeping its sequence). */
  prune(order: RankedOrder): void {
    let k = 0;
    const { workers, base, tags } = order;
    for (let i = order.head; i < workers.length; i++) {
      if (!this.isAlive(workers[i]!)) continue;
      workers[k] = workers[i]!;
      tags[k] = tags[i]!;
      base[k++] = base[i]!;
    }
    order.workers = workers.subarray(0, k);
    order.base = base.subarray(0, k);
    order.tags = tags.subarray(0, k);
    order.head = 0;
    order.dropsSeen = this.drops;
  }

  /**
   * This shape's live workers among `source` by μ group, then cost, then index (kept per `key`,
   * built once per pass), or null where the ranking has no groups (more than MAX_GROUPS μ values).
   */
  segmentsOf(key: string, source: ArrayLike<number>): WarmSegments | null {
    const groups = this.groups;
    if (!groups) return null;
    let seg = this.segments.get(key);
    if (!seg) {
      const inSource = new Uint8Array(this.mu.length);
      for (let i = 0; i < source.length; i++) inSource[source[i]!] = 1;
      const ws = new Int32Array(source.length);
      const g = groups.length;
      const start = new Int32Array(g),
        end = new Int32Array(g);
      let n = 0;
      for (let k = 0; k < g; k++) {
        const group = groups[k]!;
        start[k] = n;
        for (let i = group.head; i <= group.tail; i++) {
          const w = group.list[i]!;
          if (inSource[w] === 1 && this.isAlive(w)) ws[n++] = w;
        }
        end[k] = n;
      }
      seg = { ws, start, end, head: start.slice(), top: new Float64Array(g), byTop: new Int32Array(g) };
      this.segments.set(key, seg);
    }
    return seg;
  }

  /** This shape's live workers among `source` (kept per `key`; callers compact it as workers drop). */
  list(key: string, source: ArrayLike<number>): WorkerList {
    let list = this.lists.get(key);
    if (!list) {
      const ws = new Int32Array(source.length);
      let n = 0;
      for (let i = 0; i < source.length; i++) if (this.isAlive(source[i]!)) ws[n++] = source[i]!;
      this.lists.set(key, (list = { ws, n }));
    }
    return list;
  }
}

/** Every worker index sorted by μ, then cost, then index (ascending): the order groups are cut from. */
export function sortByMuCost(mu: Float64Array, cost: Float64Array): Int32Array {
  return Int32Array.from({ length: mu.length }, (_, i) => i).sort(
    (a, b) => mu[a]! - mu[b]! || cost[a]! - cost[b]! || a - b,
  );
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
