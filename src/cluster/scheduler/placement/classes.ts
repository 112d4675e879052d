/**
 * Worker classes and the rotation among identical workers (adaptive placement, adaptive.ts;
 * issue 36), pure.
 *
 * The adaptive base score depends on a worker's μ (type and size) and price only, so the workers
 * of one pass with equal μ and cost form a class: for a given task they score alike unless one is
 * warm for the job (reuse.ts), and adaptive placement scores classes, not workers. The class order
 * is μ, then cost, then worker (snapshot) order (`byMuCost`); a class is a run of that order.
 *
 * The rotation (the seed's jitter, placement.jitter > 0) chooses among the tied workers of one
 * class: of the class's m feasible workers, in class order, position r = slot(task) mod m is the
 * task's (slot: jitter.ts taskSlot); the tied worker chosen is the first at or after r, cyclically. When every feasible
 * worker of the class ties (none warm), that is the r-th exactly, so identical workers share tasks
 * evenly (test/cluster/scheduler/placement/classes.test.ts, a χ² test). The same task and the
 * same feasible workers always give the same choice. `rotationScores` writes the rule as a
 * tie-breaking score, −((rank − r) mod m): 0 for the task's position, lower the further after it.
 *
 * Guarantees: every function depends on its arguments only; `LiveIndex` and `LevelTree` answer in
 * O(log n) per call.
 */

/**
 * Every worker index sorted by μ, then cost, then (where given) `within` (adaptive.ts: the idle
 * time, for placement.jitter 0), then index, ascending: the class order, whose runs of equal μ
 * and cost are the classes.
 */
export function sortByMuCost(mu: Float64Array, cost: Float64Array, within?: Float64Array): Int32Array {
  const ids = Int32Array.from({ length: mu.length }, (_, i) => i);
  if (!within) return ids.sort((a, b) => mu[a]! - mu[b]! || cost[a]! - cost[b]! || a - b);
  return ids.sort((a, b) => mu[a]! - mu[b]! || cost[a]! - cost[b]! || within[a]! - within[b]! || a - b);
}

/** One pass's classes: `classOf[w]` and `rankOf[w]` (w's position in the class order). */
export class WorkerClasses {
  readonly classOf: Int32Array;
  readonly rankOf: Int32Array;
  readonly count: number;

  constructor(
    readonly order: Int32Array,
    mu: Float64Array,
    cost: Float64Array,
  ) {
    const n = order.length;
    this.classOf = new Int32Array(n);
    this.rankOf = new Int32Array(n);
    let c = -1;
    for (let i = 0; i < n; i++) {
      const w = order[i]!;
      if (i === 0 || mu[w] !== mu[order[i - 1]!] || cost[w] !== cost[order[i - 1]!]) c++;
      this.classOf[w] = c;
      this.rankOf[w] = i;
    }
    this.count = c + 1;
  }

  private sizes: Int32Array | null = null;
  private ranks: Int32Array | null = null;

  /** Scratch for rotationScores: one count per class, zero between calls. */
  perClass(): Int32Array {
    return (this.sizes ??= new Int32Array(this.count));
  }

  /** Scratch for rotationScores: one rank per class. */
  lastRank(): Int32Array {
    return (this.ranks ??= new Int32Array(this.count));
  }
}

/**
 * The rotation as a tie-breaking score for each of `count` feasible workers in `feasible` (any
 * order): out[w] = −((rank of w among its class's feasible workers − slot mod their number) mod
 * their number). `scratch`: room for `count` indices. O(count) where `feasible` lists each
 * class's workers in class order (the candidate lists do: snapshot order, the rotation's order
 * within a class); otherwise it sorts them.
 */
export function rotationScores(
  classes: WorkerClasses,
  feasible: ArrayLike<number>,
  count: number,
  slot: number,
  out: Float64Array,
  scratch: Int32Array,
): void {
  const rankOf = classes.rankOf,
    classOf = classes.classOf;
  // Per class: how many feasible workers, and the rank of the last one seen (to check the order).
  const size = classes.perClass(),
    last = classes.lastRank();
  let ordered = true;
  for (let i = 0; i < count; i++) {
    const w = feasible[i]!,
      c = classOf[w]!;
    if (size[c]! > 0 && rankOf[w]! < last[c]!) ordered = false;
    size[c]!++;
    last[c] = rankOf[w]!;
  }
  if (ordered) {
    // A second walk numbers each class's workers in order; `last` now counts them.
    for (let i = 0; i < count; i++) last[classOf[feasible[i]!]!] = 0;
    for (let i = 0; i < count; i++) {
      const w = feasible[i]!,
        c = classOf[w]!;
      const m = size[c]!,
        k = last[c]!++;
      out[w] = -((k - (slot % m) + m) % m);
    }
  } else {
    for (let i = 0; i < count; i++) scratch[i] = feasible[i]!;
    const sorted = scratch.subarray(0, count).sort((a, b) => rankOf[a]! - rankOf[b]!);
    for (let i = 0; i < count; ) {
      let e = i;
      while (e < count && classOf[sorted[e]!] === classOf[sorted[i]!]) e++;
      const m = e - i,
        r = slot % m;
      for (let k = i; k < e; k++) out[sorted[k]!] = -((k - i - r + m) % m);
      i = e;
    }
  }
  for (let i = 0; i < count; i++) size[classOf[feasible[i]!]!] = 0; // the scratch is zero between calls
}

/** Which of n positions are live (all at first), with rank and select in O(log n): a Fenwick tree. */
export class LiveIndex {
  private readonly tree: Int32Array;
  private readonly top: number;

  constructor(private readonly n: number) {
    this.tree = new Int32Array(n + 1);
    for (let i = 1; i <= n; i++) {
      this.tree[i]! += 1;
      const j = i + (i & -i);
      if (j <= n) this.tree[j]! += this.tree[i]!;
    }
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = top;
  }

  /** Position `i` is no longer live (call once per position). */
  kill(i: number): void {
    for (let x = i + 1; x <= this.n; x += x & -x) this.tree[x]!--;
  }

  /** Live positions in [0, i). */
  before(i: number): number {
    let s = 0;
    for (let x = i; x > 0; x -= x & -x) s += this.tree[x]!;
    return s;
  }

  /** The position of the k-th live one (0-based); k must be below the live count. */
  select(k: number): number {
    let pos = 0;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.n && this.tree[next]! <= k) {
        pos = next;
        k -= this.tree[next]!;
      }
    }
    return pos;
  }
}

/** "No level": a dead or never warm position in a LevelTree. */
export const NO_LEVEL = 0x7fffffff;

/** Integer levels at n positions (a min segment tree): the least level in a range, and where it is. */
export class LevelTree {
  private readonly size: number;
  private readonly min: Int32Array;

  constructor(levels: Int32Array) {
    let size = 1;
    while (size < levels.length) size *= 2;
    this.size = size;
    this.min = new Int32Array(2 * size).fill(NO_LEVEL);
    this.min.set(levels, size);
    for (let i = size - 1; i >= 1; i--) this.min[i] = Math.min(this.min[2 * i]!, this.min[2 * i + 1]!);
  }

  level(i: number): number {
    return this.min[this.size + i]!;
  }

  set(i: number, level: number): void {
    let x = this.size + i;
    this.min[x] = level;
    for (x >>= 1; x >= 1; x >>= 1) this.min[x] = Math.min(this.min[2 * x]!, this.min[2 * x + 1]!);
  }

  /** The least level in [a, b) (NO_LEVEL when empty). */
  least(a: number, b: number): number {
    let m = NO_LEVEL;
    for (let l = a + this.size, r = b + this.size; l < r; l >>= 1, r >>= 1) {
      if (l & 1) m = Math.min(m, this.min[l++]!);
      if (r & 1) m = Math.min(m, this.min[--r]!);
    }
    return m;
  }

  /** A position in [a, b) holding the least level there, or -1 when that is NO_LEVEL (or the range is empty). */
  argLeast(a: number, b: number): number {
    const min = this.min;
    let m = NO_LEVEL,
      node = 0;
    for (let l = a + this.size, r = b + this.size; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        if (min[l]! < m) m = min[(node = l)]!;
        l++;
      }
      if (r & 1) {
        --r;
        if (min[r]! < m) m = min[(node = r)]!;
      }
    }
    if (node === 0) return -1;
    while (node < this.size) node = min[2 * node] === m ? 2 * node : 2 * node + 1;
    return node - this.size;
  }

  /** The first position in [a, b) whose level is at most `level`, or -1. */
  first(a: number, b: number, level: number): number {
    return a >= b ? -1 : this.descend(1, 0, this.size, a, b, level);
  }

  private descend(node: number, lo: number, hi: number, a: number, b: number, level: number): number {
    if (hi <= a || b <= lo || this.min[node]! > level) return -1;
    if (hi - lo === 1) return lo;
    const mid = (lo + hi) >>> 1;
    const left = this.descend(2 * node, lo, mid, a, b, level);
    return left >= 0 ? left : this.descend(2 * node + 1, mid, hi, a, b, level);
  }
}
