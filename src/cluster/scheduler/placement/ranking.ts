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
 *   recomputes them (O(n)); orders per category are then rebuilt lazily (O(n log n));
 * - `order(λ, m)` lists the best m (or all) feasible workers by base score λ·μ̂ − (1−λ)·ĉ
 *   descending, equal bases in snapshot order. Base scores do not depend on free capacity, so an
 *   order stays right until the ranges change; workers that stop fitting are skipped (`isAlive`).
 */
export interface RankedOrder {
  /** Worker indices, best base first. */
  readonly workers: Int32Array;
  /** Base score of the worker at the same position. */
  readonly base: Float64Array;
  /** Positions before `head` hold workers that no longer fit. */
  head: number;
  /** How many best workers it was built to hold. */
  readonly size: number;
  /** It holds every feasible worker (otherwise only the best `size` or so). */
  readonly complete: boolean;
}

export class ShapeRanking {
  private alive: Int32Array;
  count = 0;
  private readonly member: Uint8Array;
  private readonly dead: Uint8Array;
  /** Scratch space for sorting: base score by worker index. */
  private readonly baseByWorker: Float64Array;
  muMin = 0;
  muMax = 0;
  cMin = 0;
  cMax = 0;
  private atMuMin = 0;
  private atMuMax = 0;
  private atCMin = 0;
  private atCMax = 0;
  stale = true;
  private readonly orders = new Map<number, RankedOrder>();

  constructor(
    candidates: ArrayLike<number>,
    private readonly feasible: (w: number) => boolean,
    private readonly mu: Float64Array,
    private readonly cost: Float64Array,
  ) {
    const n = mu.length;
    this.member = new Uint8Array(n);
    this.dead = new Uint8Array(n);
    this.baseByWorker = new Float64Array(n);
    this.alive = new Int32Array(candidates.length);
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (!feasible(w)) continue;
      this.alive[this.count++] = w;
      this.member[w] = 1;
    }
    this.alive = this.alive.subarray(0, this.count);
  }

  isAlive(w: number): boolean {
    return this.member[w] === 1 && this.dead[w] === 0;
  }

  /** A task was placed on `w`: drop it if it no longer fits the shape. */
  touched(w: number): void {
    if (!this.isAlive(w) || this.feasible(w)) return;
    this.dead[w] = 1;
    this.count--;
    const m = this.mu[w]!, c = this.cost[w]!;
    if (m === this.muMin && --this.atMuMin === 0) this.stale = true;
    if (m === this.muMax && --this.atMuMax === 0) this.stale = true;
    if (c === this.cMin && --this.atCMin === 0) this.stale = true;
    if (c === this.cMax && --this.atCMax === 0) this.stale = true;
  }

  /** Compact the feasible list and recompute the ranges; orders are rebuilt on demand. */
  rebuild(): void {
    let k = 0;
    let muMin = Infinity, muMax = -Infinity, cMin = Infinity, cMax = -Infinity;
    const alive = this.alive;
    for (let i = 0; i < alive.length; i++) {
      const w = alive[i]!;
      if (!this.isAlive(w)) continue;
      alive[k++] = w;
      const m = this.mu[w]!, c = this.cost[w]!;
      if (m < muMin) muMin = m;
      if (m > muMax) muMax = m;
      if (c < cMin) cMin = c;
      if (c > cMax) cMax = c;
    }
    this.alive = alive.subarray(0, k);
    this.count = k;
    this.muMin = muMin;
    this.muMax = muMax;
    this.cMin = cMin;
    this.cMax = cMax;
    let a = 0, b = 0, c = 0, d = 0;
    for (let i = 0; i < k; i++) {
      const w = this.alive[i]!;
      if (this.mu[w] === muMin) a++;
      if (this.mu[w] === muMax) b++;
      if (this.cost[w] === cMin) c++;
      if (this.cost[w] === cMax) d++;
    }
    this.atMuMin = a;
    this.atMuMax = b;
    this.atCMin = c;
    this.atCMax = d;
    this.orders.clear();
    this.stale = false;
  }

  /** The base score of worker `w` under λ and the current ranges (the formula of adaptive.ts). */
  base(w: number, lambda: number): number {
    const muSpan = this.muMax - this.muMin, cSpan = this.cMax - this.cMin;
    return (muSpan > 0 ? lambda * ((this.mu[w]! - this.muMin) / muSpan) : 0) - (cSpan > 0 ? (1 - lambda) * ((this.cost[w]! - this.cMin) / cSpan) : 0);
  }

  /**
   * The (at least) `m` feasible workers with the best base score under `lambda`, best first; the
   * whole feasible set when `complete`. Built once per λ and size per rebuild: a selection
   * (nthLargest, O(n) expected) finds the m-th best base, and only the workers at or above it are
   * sorted.
   */
  order(lambda: number, m: number): RankedOrder {
    const cached = this.orders.get(lambda);
    if (cached && cached.size >= m) return cached;
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
    let workers = all;
    if (k > m) {
      const threshold = nthLargest(bases, m);
      let t = 0;
      for (let i = 0; i < k; i++) if (byWorker[all[i]!]! >= threshold) all[t++] = all[i]!;
      workers = all.subarray(0, t);
    }
    workers.sort((x, y) => byWorker[y]! - byWorker[x]! || x - y);
    const base = new Float64Array(workers.length);
    for (let i = 0; i < workers.length; i++) base[i] = byWorker[workers[i]!]!;
    const order: RankedOrder = { workers, base, head: 0, size: Math.max(m, workers.length), complete: workers.length === k };
    this.orders.set(lambda, order);
    return order;
  }
}

/**
 * The m-th largest value of `xs` (1-based; xs is reordered), by Hoare's selection with a middle
 * pivot: O(n) expected, deterministic.
 */
export function nthLargest(xs: Float64Array, m: number): number {
  const target = xs.length - m; // index in ascending order
  let lo = 0, hi = xs.length - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >>> 1]!;
    let i = lo, j = hi;
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
