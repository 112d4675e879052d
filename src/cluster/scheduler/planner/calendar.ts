/**
 * Calendar: one resource's planned usage over time, answering "how much is free at t",
 * "does this fit during [t, t+d)" and "when is the earliest t it fits" in O(log n).
 *
 * Structure (see docs/architecture.md, "Planner"): a treap of *change points*. Every span
 * [start, end) of `amount` adds +amount at `start` and −amount at `end` (nothing for an
 * infinite end); spans sharing a time share one node (`refs` counts them). Usage at t is the
 * prefix sum of the deltas of all points <= t. Each node keeps, for its subtree in time order,
 * the delta sum and the minimum and maximum prefix sum, plus its smallest and largest time.
 * Adding or removing a span therefore touches two points (O(log n) each) and never needs a
 * lazy range update. "First point after x whose usage is at most c" and "last point in (x, y)
 * whose usage is above c" are one descent each, pruned by the subtree min / max prefix
 * (O(log n)) — the question Flux's min-time tree answers; the state at t is one descent
 * (Flux's scheduled-point tree).
 *
 * earliest(from, d, a), with cap = total − a: start at the first point >= from where usage <=
 * cap; find the LAST point inside (t, t+d) whose usage exceeds cap (one pruned descent); if
 * there is none, t is the answer, else continue from the first point after it where usage is
 * <= cap again. Each step is O(log n). The number of steps k is at most the number of free
 * gaps too short for d before the answer, and two steps always advance t by at least d, so
 * k <= 2·(answer − from)/d + 1; an infinite d takes one step. On a calendar at moderate load
 * k is 0–2; on a deep conservative backlog packed with short gaps it grows (measured in
 * docs/architecture.md, "Planner"). Flux's planner has the same shape: its min-time tree
 * answers "first time with a free units" in O(log n), then each candidate is checked for d.
 *
 * Invariants: usage never goes below 0 (amounts are >= 0), so availability <= total and a
 * request above `total` never fits; availability may go negative (overcommit is allowed, the
 * caller checks fits() first). A request of amount <= 0 always fits. Pure: no clock, no
 * randomness (treap priorities come from a fixed-seed xorshift).
 */
import { invalid } from '../../../model/errors.js';

export type SpanId = number;

interface PointNode {
  key: number;
  delta: number;
  refs: number;
  prio: number;
  left: PointNode | null;
  right: PointNode | null;
  /** Aggregates over the subtree in time order. */
  sum: number;
  maxP: number;
  minP: number;
  lo: number;
  hi: number;
}

interface Span {
  start: number;
  end: number;
  amount: number;
}

function pull(n: PointNode): void {
  const l = n.left;
  const r = n.right;
  const mid = (l === null ? 0 : l.sum) + n.delta;
  let maxP = mid;
  let minP = mid;
  if (l !== null) {
    if (l.maxP > maxP) maxP = l.maxP;
    if (l.minP < minP) minP = l.minP;
    n.lo = l.lo;
  } else {
    n.lo = n.key;
  }
  if (r !== null) {
    if (mid + r.maxP > maxP) maxP = mid + r.maxP;
    if (mid + r.minP < minP) minP = mid + r.minP;
    n.sum = mid + r.sum;
    n.hi = r.hi;
  } else {
    n.sum = mid;
    n.hi = n.key;
  }
  n.maxP = maxP;
  n.minP = minP;
}

function merge(a: PointNode | null, b: PointNode | null): PointNode | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.prio > b.prio) {
    a.right = merge(a.right, b);
    pull(a);
    return a;
  }
  b.left = merge(a, b.left);
  pull(b);
  return b;
}

function checkTime(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalid(`planner: ${name} must be a finite number, got ${String(value)}`);
  }
}

function checkDuration(duration: number): void {
  if (typeof duration !== 'number' || Number.isNaN(duration) || duration < 0) {
    throw invalid(`planner: duration must be a number >= 0 (Infinity allowed), got ${String(duration)}`);
  }
}

function checkAmount(amount: number): void {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
    throw invalid(`planner: amount must be a finite number >= 0, got ${String(amount)}`);
  }
}

export class Calendar {
  readonly total: number;
  private root: PointNode | null = null;
  private readonly spans = new Map<SpanId, Span>();
  private nextId: SpanId = 1;
  private seed = 0x9e3779b9;
  private jumps = 0;

  constructor(total: number) {
    if (typeof total !== 'number' || !Number.isFinite(total) || total < 0) {
      throw invalid(`planner: capacity must be a finite number >= 0, got ${String(total)}`);
    }
    this.total = total;
  }

  /** Number of live spans. */
  get size(): number {
    return this.spans.size;
  }

  /** Number of distinct change points in the tree (for tests and benchmarks). */
  get points(): number {
    let count = 0;
    const walk = (n: PointNode | null): void => {
      if (n === null) return;
      count++;
      walk(n.left);
      walk(n.right);
    };
    walk(this.root);
    return count;
  }

  /** Uses `amount` during [start, end). end may be Infinity. Overcommit is allowed. */
  add(start: number, end: number, amount: number): SpanId {
    checkTime('span start', start);
    if (typeof end !== 'number' || Number.isNaN(end)) throw invalid(`planner: span end must be a number, got ${String(end)}`);
    if (!(start < end)) throw invalid(`planner: span start ${start} must be before its end ${end}`);
    checkAmount(amount);
    const id = this.nextId++;
    this.spans.set(id, { start, end, amount });
    if (amount > 0) {
      this.root = this.insert(this.root, start, amount);
      if (end !== Infinity) this.root = this.insert(this.root, end, -amount);
    }
    return id;
  }

  /** Removes a span added earlier. */
  remove(id: SpanId): void {
    const span = this.spans.get(id);
    if (span === undefined) throw invalid(`planner: unknown span id ${String(id)}`);
    this.spans.delete(id);
    if (span.amount > 0) {
      this.root = this.erase(this.root, span.start, span.amount);
      if (span.end !== Infinity) this.root = this.erase(this.root, span.end, -span.amount);
    }
  }

  /** The span behind an id, or undefined once removed. */
  span(id: SpanId): Readonly<Span> | undefined {
    return this.spans.get(id);
  }

  /** Free units at time t. */
  availableAt(t: number): number {
    checkTime('time', t);
    return this.total - this.usageAt(t);
  }

  /** Minimum free units over [start, start+duration); duration 0 means the instant `start`. */
  minAvailable(start: number, duration: number): number {
    checkTime('start', start);
    checkDuration(duration);
    let usage = this.usageAt(start);
    if (duration > 0 && this.root !== null) {
      const inside = this.maxUsageBetween(this.root, start, start + duration, 0);
      if (inside > usage) usage = inside;
    }
    return this.total - usage;
  }

  fits(start: number, duration: number, amount: number): boolean {
    checkAmount(amount);
    const free = this.minAvailable(start, duration);
    return amount <= 0 || free >= amount;
  }

  /**
   * Earliest t >= from such that `amount` units are free during [t, t+duration); Infinity when
   * never. duration may be Infinity (the request holds its units forever).
   */
  earliest(from: number, duration: number, amount: number): number {
    checkTime('from', from);
    checkDuration(duration);
    checkAmount(amount);
    if (amount <= 0) return from;
    if (amount > this.total) return Infinity;
    const cap = this.total - amount;
    let t = from;
    if (this.usageAt(t) > cap) t = this.firstAtMost(this.root, t, cap, 0);
    while (t !== Infinity) {
      // Jump past the LAST blocking point inside the window: no window starting before it
      // can fit, and two jumps always move t forward by at least `duration`.
      const blocker = this.lastAbove(this.root, t, t + duration, cap, 0);
      if (blocker === -Infinity) return t;
      t = this.firstAtMost(this.root, blocker, cap, 0);
      this.jumps++;
    }
    return Infinity;
  }

  /** Gaps skipped by earliest() since construction: the k in O(k log n) (for benchmarks). */
  get searchSteps(): number {
    return this.jumps;
  }

  /** The first time >= x at which availability changes; Infinity when none. O(log n). */
  nextChange(x: number): number {
    let best = Infinity;
    let n = this.root;
    while (n !== null) {
      if (n.key >= x) {
        best = n.key;
        n = n.left;
      } else {
        n = n.right;
      }
    }
    return best;
  }

  // ---- tree internals -------------------------------------------------------------------

  private nextPrio(): number {
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    return this.seed;
  }

  private insert(n: PointNode | null, key: number, delta: number): PointNode {
    if (n === null) {
      return { key, delta, refs: 1, prio: this.nextPrio(), left: null, right: null, sum: delta, maxP: delta, minP: delta, lo: key, hi: key };
    }
    if (key === n.key) {
      n.delta += delta;
      n.refs++;
      pull(n);
      return n;
    }
    if (key < n.key) {
      const l = this.insert(n.left, key, delta);
      n.left = l;
      if (l.prio > n.prio) {
        n.left = l.right;
        pull(n);
        l.right = n;
        pull(l);
        return l;
      }
    } else {
      const r = this.insert(n.right, key, delta);
      n.right = r;
      if (r.prio > n.prio) {
        n.right = r.left;
        pull(n);
        r.left = n;
        pull(r);
        return r;
      }
    }
    pull(n);
    return n;
  }

  /** Takes `delta` back out of the point at `key`; drops the point when no span uses it. */
  private erase(n: PointNode | null, key: number, delta: number): PointNode | null {
    if (n === null) throw new Error(`planner: change point ${key} missing (corrupt calendar)`);
    if (key === n.key) {
      n.refs--;
      if (n.refs === 0) return merge(n.left, n.right);
      n.delta -= delta;
      pull(n);
      return n;
    }
    if (key < n.key) n.left = this.erase(n.left, key, delta);
    else n.right = this.erase(n.right, key, delta);
    pull(n);
    return n;
  }

  private usageAt(t: number): number {
    let acc = 0;
    let n = this.root;
    while (n !== null) {
      if (n.key <= t) {
        acc += (n.left === null ? 0 : n.left.sum) + n.delta;
        n = n.right;
      } else {
        n = n.left;
      }
    }
    return acc;
  }

  /** Max usage at the points strictly inside (lo, hi); -Infinity when there are none. */
  private maxUsageBetween(n: PointNode | null, lo: number, hi: number, base: number): number {
    if (n === null || n.hi <= lo || n.lo >= hi) return -Infinity;
    if (n.lo > lo && n.hi < hi) return base + n.maxP;
    let best = this.maxUsageBetween(n.left, lo, hi, base);
    const mid = base + (n.left === null ? 0 : n.left.sum) + n.delta;
    if (n.key > lo && n.key < hi && mid > best) best = mid;
    const right = this.maxUsageBetween(n.right, lo, hi, mid);
    return right > best ? right : best;
  }

  /** Last point strictly inside (lo, hi) whose usage exceeds cap; -Infinity when none. */
  private lastAbove(n: PointNode | null, lo: number, hi: number, cap: number, base: number): number {
    if (n === null || n.hi <= lo || n.lo >= hi || base + n.maxP <= cap) return -Infinity;
    const mid = base + (n.left === null ? 0 : n.left.sum) + n.delta;
    const found = this.lastAbove(n.right, lo, hi, cap, mid);
    if (found !== -Infinity) return found;
    if (n.key > lo && n.key < hi && mid > cap) return n.key;
    return this.lastAbove(n.left, lo, hi, cap, base);
  }

  /** First point after x whose usage is at most cap; Infinity when none. */
  private firstAtMost(n: PointNode | null, x: number, cap: number, base: number): number {
    if (n === null || n.hi <= x || base + n.minP > cap) return Infinity;
    const found = this.firstAtMost(n.left, x, cap, base);
    if (found !== Infinity) return found;
    const mid = base + (n.left === null ? 0 : n.left.sum) + n.delta;
    if (n.key > x && mid <= cap) return n.key;
    return this.firstAtMost(n.right, x, cap, mid);
  }
}
