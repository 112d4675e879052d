/**
 * Blocks: the change points of one calendar, in time order, cut into blocks of at most
 * MAX_BLOCK points, each with a lazily rebuilt summary that lets `Calendar.earliest` step over a
 * whole block in O(log B) without looking at its points.
 *
 * Guarantees:
 * - A block holds sorted, distinct times `keys`, the usage on [keys[i], next point) as
 *   `raw[i] + add` (`add` is the block's lazy offset, so a span covering the whole block costs
 *   O(1) there), and `refs[i]`, the number of span ends at that time.
 * - `summarize(b)` (only when `b.dirty`) computes, from `raw` alone (so it stays valid while
 *   `add` changes): the min and max raw usage, prefix and suffix maxima, and `best`, a step
 *   function of the threshold x: the longest *closed* run at x — a maximal run of points with
 *   raw <= x that is followed, inside the block, by a point with raw > x — measured in time
 *   from its first point to that following point. Runs that reach the block's end are left out:
 *   their length depends on the next block, and the caller carries them.
 * - `sorted`, the block's indices in order of raw usage, is kept exact by orderInserted /
 *   orderDeleted / orderShifted (O(B) each, called by the calendar on every change), so
 *   summarize() is O(B) with no sort; after a split or join it is null and summarize() sorts.
 * - Pure: no clock, no I/O. Scratch arrays are module-level and only used inside one call.
 */

export const MAX_BLOCK = 256;
/**
 * A changed block is scanned point by point this many times before its summary is rebuilt:
 * a rebuild costs about as much as 10-20 scans, so a block that changes between every query
 * is never summarized and one that is queried often is summarized once.
 */
export const SCANS_BEFORE_SUMMARY = 8;
/** A block shorter than this is merged into a neighbour when the two fit in one. */
export const MIN_BLOCK = 32;

export interface Block {
  keys: number[];
  raw: number[];
  refs: number[];
  add: number;
  /** The summary below is stale (raw, keys or refs changed since it was built). */
  dirty: boolean;
  /** Point-by-point scans of this block since it last changed (see SCANS_BEFORE_SUMMARY). */
  scans: number;
  minRaw: number;
  maxRaw: number;
  /** prefMax[i] = max(raw[0..i]); sufMax[i] = max(raw[i..n-1]) (n = keys.length). */
  prefMax: Float64Array;
  sufMax: Float64Array;
  /** Distinct raw values ascending; best[k] applies to thresholds in [th[k], th[k+1]). */
  th: Float64Array;
  best: Float64Array;
  distinct: number;
  /**
   * The indices 0..n-1 ordered by raw value, kept up to date through inserts, deletes and
   * range adds (O(B) each, no sort); null after a split or join until the next summarize().
   */
  sorted: Int32Array | null;
}

const EMPTY = new Float64Array(0);

export function newBlock(keys: number[], raw: number[], refs: number[], add: number): Block {
  return {
    keys,
    raw,
    refs,
    add,
    dirty: true,
    scans: 0,
    minRaw: 0,
    maxRaw: 0,
    prefMax: EMPTY,
    sufMax: EMPTY,
    th: EMPTY,
    best: EMPTY,
    distinct: 0,
    sorted: null,
  };
}

let order = new Int32Array(MAX_BLOCK * 2 + 2);
let active = new Uint8Array(MAX_BLOCK * 2 + 2);
let startOf = new Int32Array(MAX_BLOCK * 2 + 2);
let endOf = new Int32Array(MAX_BLOCK * 2 + 2);
let values = new Float64Array(MAX_BLOCK * 2 + 2);
let rank = new Int32Array(MAX_BLOCK * 2 + 2);
let count = new Int32Array(MAX_BLOCK * 2 + 3);

/** Largest integer usage that still packs with an index into one exact double. */
const PACK_LIMIT = 2 ** 42;
const PACK = 1024;

/**
 * Fills order[0..n) with the indices 0..n-1 sorted by raw value (ties by index), rank[i] with
 * the position of raw[i] among the distinct values, and returns the number of distinct values,
 * left sorted in values[0..d). No comparator calls: integer usages (all real ones: millicores,
 * bytes, devices) are packed as value·1024 + index and sorted natively in one go; any other
 * value falls back to a native sort of the values, a binary search per index and a counting
 * sort.
 */
function sortByValue(raw: number[], n: number): number {
  let packable = n <= PACK;
  for (let i = 0; i < n && packable; i++) {
    const v = raw[i]!;
    if (!Number.isInteger(v) || v > PACK_LIMIT || v < -PACK_LIMIT) packable = false;
  }
  let d = 0;
  if (packable) {
    for (let i = 0; i < n; i++) values[i] = raw[i]! * PACK + i;
    values.subarray(0, n).sort();
    for (let k = 0; k < n; k++) {
      const key = values[k]!;
      const i = ((key % PACK) + PACK) % PACK;
      const v = (key - i) / PACK;
      order[k] = i;
      if (d === 0 || values[d - 1] !== v) values[d++] = v;
      rank[i] = d - 1;
    }
    return d;
  }
  for (let i = 0; i < n; i++) values[i] = raw[i]!;
  values.subarray(0, n).sort();
  for (let i = 0; i < n; i++) if (i === 0 || values[i] !== values[d - 1]) values[d++] = values[i]!;
  count.fill(0, 0, d + 1);
  for (let i = 0; i < n; i++) {
    const v = raw[i]!;
    let lo = 0;
    let hi = d - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    rank[i] = lo;
    count[lo + 1]!++;
  }
  for (let r = 1; r <= d; r++) count[r]! += count[r - 1]!;
  for (let i = 0; i < n; i++) order[count[rank[i]!]!++] = i;
  return d;
}

/** Longest closed run over the current components (used after the longest one was absorbed). */
function scanClosed(keys: number[], n: number): number {
  let m = -Infinity;
  let a = 0;
  while (a < n) {
    if (active[a] === 1) {
      const b = endOf[a]!;
      if (b + 1 < n && keys[b + 1]! - keys[a]! > m) m = keys[b + 1]! - keys[a]!;
      a = b + 1;
    } else {
      a++;
    }
  }
  return m;
}

/**
 * Rebuilds the summary. Points are switched on in order of raw usage and joined with their
 * switched-on neighbours (the run ends are kept at both ends of each run); after each distinct
 * value the longest closed run is recorded. O(B) from the kept order, O(B log B) without it.
 */
export function summarize(b: Block): void {
  const { keys, raw } = b;
  const n = keys.length;
  if (order.length < n) {
    order = new Int32Array(n * 2);
    active = new Uint8Array(n * 2);
    startOf = new Int32Array(n * 2);
    endOf = new Int32Array(n * 2);
    values = new Float64Array(n * 2);
    rank = new Int32Array(n * 2);
    count = new Int32Array(n * 2 + 1);
  }
  if (b.prefMax.length < n) {
    const size = Math.max(8, n + (n >> 2));
    b.prefMax = new Float64Array(size);
    b.sufMax = new Float64Array(size);
    b.th = new Float64Array(size);
    b.best = new Float64Array(size);
  }
  const prefMax = b.prefMax;
  const sufMax = b.sufMax;
  let m = -Infinity;
  for (let i = 0; i < n; i++) {
    if (raw[i]! > m) m = raw[i]!;
    prefMax[i] = m;
  }
  b.maxRaw = m;
  m = -Infinity;
  let lo = Infinity;
  for (let i = n - 1; i >= 0; i--) {
    if (raw[i]! > m) m = raw[i]!;
    if (raw[i]! < lo) lo = raw[i]!;
    sufMax[i] = m;
  }
  b.minRaw = lo;

  active.fill(0, 0, n);
  let distinct = 0;
  const kept = b.sorted;
  if (kept !== null) {
    for (let k = 0; k < n; k++) {
      const i = kept[k]!;
      const v = raw[i]!;
      if (distinct === 0 || values[distinct - 1] !== v) values[distinct++] = v;
      rank[i] = distinct - 1;
      order[k] = i;
    }
  } else {
    distinct = sortByValue(raw, n);
    b.sorted = new Int32Array(Math.max(8, n + (n >> 2)));
    b.sorted.set(order.subarray(0, n));
  }
  const th = b.th;
  const best = b.best;
  let longest = -Infinity;
  let k = 0;
  for (let r = 0; r < distinct; r++) {
    const value = values[r]!;
    let rescan = false;
    for (; k < n && rank[order[k]!] === r; k++) {
      const i = order[k]!;
      let a = i;
      let z = i;
      let leftLen = -Infinity;
      if (i > 0 && active[i - 1] === 1) {
        a = startOf[i - 1]!;
        leftLen = keys[i]! - keys[a]!;
      }
      if (i + 1 < n && active[i + 1] === 1) z = endOf[i + 1]!;
      active[i] = 1;
      endOf[a] = z;
      startOf[z] = a;
      if (z + 1 < n) {
        const len = keys[z + 1]! - keys[a]!;
        if (len > longest) longest = len;
      } else if (leftLen === longest) {
        rescan = true; // the longest closed run joined the open run at the block's end
      }
    }
    if (rescan) longest = scanClosed(keys, n);
    th[r] = value;
    best[r] = longest;
  }
  b.distinct = distinct;
  b.dirty = false;
}

let partA = new Int32Array(MAX_BLOCK * 2 + 2);
let partB = new Int32Array(MAX_BLOCK * 2 + 2);

/** Keeps `sorted` after a point was inserted at index j (keys and raw already updated). */
export function orderInserted(b: Block, j: number): void {
  let o = b.sorted;
  if (o === null) return;
  const raw = b.raw;
  const m = b.keys.length - 1;
  if (o.length <= m) {
    const grown = new Int32Array(Math.max(8, m + 1 + ((m + 1) >> 2)));
    grown.set(o.subarray(0, m));
    b.sorted = o = grown;
  }
  for (let k = 0; k < m; k++) if (o[k]! >= j) o[k]!++;
  const v = raw[j]!;
  let lo = 0;
  let hi = m;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (raw[o[mid]!]! <= v) lo = mid + 1;
    else hi = mid;
  }
  o.copyWithin(lo + 1, lo, m);
  o[lo] = j;
}

/** Keeps `sorted` after the point at index j was deleted (keys and raw already updated). */
export function orderDeleted(b: Block, j: number): void {
  const o = b.sorted;
  if (o === null) return;
  const old = b.keys.length + 1;
  let w = 0;
  for (let k = 0; k < old; k++) {
    const i = o[k]!;
    if (i !== j) o[w++] = i > j ? i - 1 : i;
  }
}

/** Keeps `sorted` after raw[p..q) all changed by the same amount: one merge of two runs. */
export function orderShifted(b: Block, p: number, q: number): void {
  const o = b.sorted;
  if (o === null) return;
  const raw = b.raw;
  const n = b.keys.length;
  if (partA.length < n) {
    partA = new Int32Array(n * 2);
    partB = new Int32Array(n * 2);
  }
  let na = 0;
  let nb = 0;
  for (let k = 0; k < n; k++) {
    const i = o[k]!;
    if (i >= p && i < q) partA[na++] = i;
    else partB[nb++] = i;
  }
  let ia = 0;
  let ib = 0;
  let k = 0;
  while (ia < na && ib < nb) {
    if (raw[partA[ia]!]! < raw[partB[ib]!]!) o[k++] = partA[ia++]!;
    else o[k++] = partB[ib++]!;
  }
  while (ia < na) o[k++] = partA[ia++]!;
  while (ib < nb) o[k++] = partB[ib++]!;
}

/**
 * The first index i < n at which `(a[i] > x) === above`, for an `a` along which that test turns
 * from false to true at most once (a sorted or running-max summary of a block); n when none.
 * One binary search for bestAt, firstAbove and suffixAtMost. Neither x nor a value is NaN (the
 * calendar checks every amount), so `!(v > x)` is `v <= x`.
 */
function firstWhere(a: Float64Array, n: number, x: number, above: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! > x === above) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The longest closed run at threshold x (raw terms); -Infinity when there is none. */
export function bestAt(b: Block, x: number): number {
  const lo = firstWhere(b.th, b.distinct, x, true);
  return lo === 0 ? -Infinity : b.best[lo - 1]!;
}

/** First index whose raw usage is above x (prefMax is non-decreasing); n when none. */
export function firstAbove(b: Block, x: number): number {
  return firstWhere(b.prefMax, b.keys.length, x, true);
}

/** First index from which every raw usage is at most x (sufMax is non-increasing); n when none. */
export function suffixAtMost(b: Block, x: number): number {
  return firstWhere(b.sufMax, b.keys.length, x, false);
}

/** First index with keys[i] >= t (after = false) or keys[i] > t (after = true). */
export function searchKeys(keys: number[], t: number, after: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k < t || (after && k === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
