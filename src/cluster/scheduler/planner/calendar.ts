/**
 * Calendar: one resource's planned usage over time, answering "how much is free at t",
 * "does this fit during [t, t+d)" and "when is the earliest t it fits".
 *
 * Structure (see docs/architecture.md, "Planner"): the *change points* of all spans (a span
 * [start, end) of `amount` starts and ends one; spans sharing a time share a point, `refs`
 * counts them) in time order, cut into blocks of at most 256 points (blocks.ts). Each point
 * stores the usage from it to the next point; a block stores a lazy offset, so adding a span
 * inserts at most two points (O(log n + B)) and adds its amount to the points it covers:
 * whole blocks in O(1) each, the two end blocks point by point.
 *
 * earliest(from, d, a), with cap = total − a, walks forward from `from` keeping the start of
 * the current free run (usage <= cap) and answers as soon as a point lies d or more after it.
 * A block is stepped over in O(log B) from its summary: all free, all busy, or — when its
 * longest closed free run at this threshold (blocks.ts) is shorter than d — only its first
 * run (joined to the run carried in) and its last run (carried out) can matter, found by
 * binary search. Only the block holding the answer (and the one holding `from`) is read point
 * by point. The cost is O(n/B · log B + B) whatever the gaps look like: a calendar packed
 * with free gaps a little too short costs the same as an empty one.
 *
 * Invariants: usage never goes below 0 (amounts are >= 0), so availability <= total and a
 * request above `total` never fits; availability may go negative (overcommit is allowed, the
 * caller checks fits() first). A request of amount <= 0 always fits. Pure: no clock, no
 * randomness.
 */
import { invalid } from '../../../model/errors.js';
import {
  MAX_BLOCK,
  MIN_BLOCK,
  SCANS_BEFORE_SUMMARY,
  bestAt,
  firstAbove,
  newBlock,
  orderDeleted,
  orderInserted,
  orderShifted,
  searchKeys,
  suffixAtMost,
  summarize,
  type Block,
} from './blocks.js';

export type SpanId = number;

interface Span {
  start: number;
  end: number;
  amount: number;
  /** Its amount is taken out (suspend) while its change points stay. */
  suspended: boolean;
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
  private blocks: Block[] = [];
  private readonly spans = new Map<SpanId, Span>();
  private nextId: SpanId = 1;
  private visited = 0;
  private readonly maxBlock: number;
  private readonly minBlock: number;

  /** `blockSize` (points per block, >= 2) is for tests; the default suits 1k-100k spans. */
  constructor(total: number, blockSize = MAX_BLOCK) {
    if (typeof total !== 'number' || !Number.isFinite(total) || total < 0) {
      throw invalid(`planner: capacity must be a finite number >= 0, got ${String(total)}`);
    }
    this.total = total;
    this.maxBlock = Number.isFinite(blockSize) ? Math.max(2, Math.floor(blockSize)) : MAX_BLOCK;
    this.minBlock = Math.max(1, Math.floor((this.maxBlock * MIN_BLOCK) / MAX_BLOCK));
  }

  /** Number of live spans. */
  get size(): number {
    return this.spans.size;
  }

  /** Number of distinct change points (for tests and benchmarks). */
  get points(): number {
    let count = 0;
    for (const b of this.blocks) count += b.keys.length;
    return count;
  }

  /** Uses `amount` during [start, end). end may be Infinity. Overcommit is allowed. */
  add(start: number, end: number, amount: number): SpanId {
    checkTime('span start', start);
    if (typeof end !== 'number' || Number.isNaN(end))
      throw invalid(`planner: span end must be a number, got ${String(end)}`);
    if (!(start < end)) throw invalid(`planner: span start ${start} must be before its end ${end}`);
    checkAmount(amount);
    const id = this.nextId++;
    this.spans.set(id, { start, end, amount, suspended: false });
    if (amount > 0) {
      this.insertPoint(start);
      if (end !== Infinity) this.insertPoint(end);
      this.addRange(start, end, amount);
    }
    return id;
  }

  /** Removes a span added earlier. */
  remove(id: SpanId): void {
    const span = this.spans.get(id);
    if (span === undefined) throw invalid(`planner: unknown span id ${String(id)}`);
    this.spans.delete(id);
    if (span.amount > 0) {
      if (!span.suspended) this.addRange(span.start, span.end, -span.amount);
      this.releasePoint(span.start);
      if (span.end !== Infinity) this.releasePoint(span.end);
    }
  }

  /**
   * Takes a span's amount out while keeping its change points, until `resume` puts it back or
   * `remove` drops it. Every answer meanwhile is the one without the span (answers depend only
   * on the usage over time, and a point where usage does not change alters no run; only
   * `nextChange` may name one of the span's points), for the
   * price of the range update alone: a caller that may put the span back as it was saves
   * removing and re-inserting its points.
   */
  suspend(id: SpanId): void {
    const span = this.spans.get(id);
    if (span === undefined || span.suspended)
      throw invalid(`planner: span id ${String(id)} is unknown or already suspended`);
    span.suspended = true;
    if (span.amount > 0) this.addRange(span.start, span.end, -span.amount);
  }

  /** Puts a suspended span's amount back. */
  resume(id: SpanId): void {
    const span = this.spans.get(id);
    if (span === undefined || !span.suspended) throw invalid(`planner: span id ${String(id)} is not suspended`);
    span.suspended = false;
    if (span.amount > 0) this.addRange(span.start, span.end, span.amount);
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
    if (duration > 0) {
      const inside = this.maxUsageBetween(start, start + duration);
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
    const blocks = this.blocks;
    // runStart: where the current free run began; NaN while the time walked is busy.
    let runStart = NaN;
    let bi = this.blockOf(from);
    let j = 0;
    if (bi < 0) {
      runStart = from;
      bi = 0;
    } else {
      const b = blocks[bi]!;
      j = searchKeys(b.keys, from, true);
      if (b.raw[j - 1]! + b.add <= cap) runStart = from;
    }
    for (; bi < blocks.length; bi++, j = 0) {
      const b = blocks[bi]!;
      const keys = b.keys;
      const n = keys.length;
      this.visited++;
      if (j === 0 && (!b.dirty || ++b.scans > SCANS_BEFORE_SUMMARY)) {
        if (b.dirty) summarize(b);
        const x = cap - b.add;
        if (b.maxRaw <= x) {
          // All free: the run goes on through the block.
          if (runStart !== runStart) runStart = keys[0]!;
          if (keys[n - 1]! - runStart >= duration) return runStart;
          continue;
        }
        if (b.minRaw > x) {
          // All busy: the carried run ends at the block's first point.
          if (keys[0]! - runStart >= duration) return runStart;
          runStart = NaN;
          continue;
        }
        if (bestAt(b, x) < duration) {
          // No closed run inside is long enough: only the first run, joined to the carried
          // one, can answer; the last run is carried on.
          const f = firstAbove(b, x);
          if (f > 0 && runStart !== runStart) runStart = keys[0]!;
          if (keys[f]! - runStart >= duration) return runStart;
          const g = suffixAtMost(b, x);
          if (g < n) {
            runStart = keys[g]!;
            if (keys[n - 1]! - runStart >= duration) return runStart;
          } else {
            runStart = NaN;
          }
          continue;
        }
      }
      // Point by point: the block holding `from`, or one that holds a long enough run.
      const raw = b.raw;
      const add = b.add;
      for (; j < n; j++) {
        const k = keys[j]!;
        if (k - runStart >= duration) return runStart;
        if (raw[j]! + add > cap) runStart = NaN;
        else if (runStart !== runStart) runStart = k;
      }
    }
    return runStart === runStart ? runStart : Infinity;
  }

  /** Blocks looked at by earliest() since construction (for benchmarks). */
  get searchSteps(): number {
    return this.visited;
  }

  /** The first time >= x at which availability changes; Infinity when none. O(log n). */
  nextChange(x: number): number {
    const blocks = this.blocks;
    if (blocks.length === 0) return Infinity;
    let bi = this.blockOf(x);
    if (bi < 0) return blocks[0]!.keys[0]!;
    const keys = blocks[bi]!.keys;
    const j = searchKeys(keys, x, false);
    if (j < keys.length) return keys[j]!;
    bi++;
    return bi < blocks.length ? blocks[bi]!.keys[0]! : Infinity;
  }

  /** The last time at which availability changes (free amounts are constant from it on); -Infinity when never. O(1). */
  lastChange(): number {
    const last = this.blocks[this.blocks.length - 1];
    return last === undefined ? -Infinity : last.keys[last.keys.length - 1]!;
  }

  // ---- block internals ------------------------------------------------------------------

  /** Index of the last block whose first point is <= t; -1 when t is before every point. */
  private blockOf(t: number): number {
    const blocks = this.blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (blocks[mid]!.keys[0]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  private usageAt(t: number): number {
    const bi = this.blockOf(t);
    if (bi < 0) return 0;
    const b = this.blocks[bi]!;
    return b.raw[searchKeys(b.keys, t, true) - 1]! + b.add;
  }

  /** Max usage at the points strictly inside (lo, hi); -Infinity when there are none. */
  private maxUsageBetween(lo: number, hi: number): number {
    const blocks = this.blocks;
    let best = -Infinity;
    for (let bi = Math.max(0, this.blockOf(lo)); bi < blocks.length; bi++) {
      const b = blocks[bi]!;
      const keys = b.keys;
      const n = keys.length;
      if (keys[0]! >= hi) break;
      if (keys[0]! > lo && keys[n - 1]! < hi && !b.dirty) {
        if (b.maxRaw + b.add > best) best = b.maxRaw + b.add;
        continue;
      }
      for (let j = searchKeys(keys, lo, true); j < n && keys[j]! < hi; j++) {
        if (b.raw[j]! + b.add > best) best = b.raw[j]! + b.add;
      }
    }
    return best;
  }

  /** Adds a span end at `key`: a new point carries the usage of the point before it. */
  private insertPoint(key: number): void {
    const blocks = this.blocks;
    if (blocks.length === 0) {
      blocks.push(newBlock([key], [0], [1], 0));
      return;
    }
    const bi = Math.max(0, this.blockOf(key));
    const b = blocks[bi]!;
    const j = searchKeys(b.keys, key, false);
    if (j < b.keys.length && b.keys[j] === key) {
      b.refs[j]!++;
      return;
    }
    let before = 0;
    if (j > 0) before = b.raw[j - 1]! + b.add;
    else if (bi > 0) {
      const p = blocks[bi - 1]!;
      before = p.raw[p.keys.length - 1]! + p.add;
    }
    b.keys.splice(j, 0, key);
    b.raw.splice(j, 0, before - b.add);
    b.refs.splice(j, 0, 1);
    orderInserted(b, j);
    b.dirty = true;
    b.scans = 0;
    if (b.keys.length > this.maxBlock) {
      const half = b.keys.length >>> 1;
      const next = newBlock(b.keys.splice(half), b.raw.splice(half), b.refs.splice(half), b.add);
      b.sorted = null;
      blocks.splice(bi + 1, 0, next);
    }
  }

  /** Drops one span end at `key`; the point goes when no span ends there any more. */
  private releasePoint(key: number): void {
    const blocks = this.blocks;
    const bi = this.blockOf(key);
    const b = bi < 0 ? undefined : blocks[bi];
    const j = b === undefined ? -1 : searchKeys(b.keys, key, false);
    if (b === undefined || b.keys[j] !== key)
      throw new Error(`planner: change point ${key} missing (corrupt calendar)`);
    if (--b.refs[j]! > 0) return;
    b.keys.splice(j, 1);
    b.raw.splice(j, 1);
    b.refs.splice(j, 1);
    orderDeleted(b, j);
    b.dirty = true;
    b.scans = 0;
    if (b.keys.length === 0) {
      blocks.splice(bi, 1);
    } else if (b.keys.length < this.minBlock) {
      if (bi + 1 < blocks.length && b.keys.length + blocks[bi + 1]!.keys.length <= this.maxBlock) this.join(bi);
      else if (bi > 0 && b.keys.length + blocks[bi - 1]!.keys.length <= this.maxBlock) this.join(bi - 1);
    }
  }

  /** Merges block bi + 1 into block bi. */
  private join(bi: number): void {
    const a = this.blocks[bi]!;
    const b = this.blocks[bi + 1]!;
    const shift = b.add - a.add;
    for (let j = 0; j < b.keys.length; j++) {
      a.keys.push(b.keys[j]!);
      a.raw.push(b.raw[j]! + shift);
      a.refs.push(b.refs[j]!);
    }
    a.sorted = null;
    a.dirty = true;
    a.scans = 0;
    this.blocks.splice(bi + 1, 1);
  }

  /** Adds `amount` to the usage of every point in [start, end). */
  private addRange(start: number, end: number, amount: number): void {
    const blocks = this.blocks;
    for (let bi = Math.max(0, this.blockOf(start)); bi < blocks.length; bi++) {
      const b = blocks[bi]!;
      const keys = b.keys;
      const n = keys.length;
      if (keys[0]! >= end) break;
      if (keys[0]! >= start && keys[n - 1]! < end) {
        b.add += amount;
        continue;
      }
      const first = searchKeys(keys, start, false);
      let j = first;
      for (; j < n && keys[j]! < end; j++) b.raw[j]! += amount;
      orderShifted(b, first, j);
      b.dirty = true;
      b.scans = 0;
    }
  }
}
