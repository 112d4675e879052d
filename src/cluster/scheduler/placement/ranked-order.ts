/**
 * What a shape's ranking (ranking.ts) hands to the adaptive scan (adaptive.ts): a ranked order of
 * workers, a compactable worker list and one key's warm segments. Types only.
 *
 * Guarantees (kept by ranking.ts, relied on by adaptive.ts): an order's `workers`, `base` and
 * `tags` are parallel arrays, best base first; a worker list's first `n` entries are the live
 * ones; within one warm segment the base never rises from head to end.
 */
export interface RankedOrder {
  /** Worker indices, best base first. */
  workers: Int32Array;
  /** Base score of the worker at the same position. */
  base: Float64Array;
  /** The per-worker `tag` (constructor) of the worker at the same position, for scans that read it in order. */
  tags: Int32Array;
  /** The ranking's `drops` when this order was built or last pruned. */
  dropsSeen: number;
  /** Positions before `head` hold workers that no longer fit. */
  head: number;
  /** How many best workers it was built to hold. */
  readonly size: number;
  /** It holds every feasible worker (otherwise only the best `size` or so). */
  readonly complete: boolean;
}

/** A list of workers that `prune`-style loops compact in place: the first `n` entries are live. */
export interface WorkerList {
  ws: Int32Array;
  n: number;
}

/**
 * One key's warm candidates in a grouped ranking: the shape's workers holding a hint for the key,
 * one segment per μ group ([start[g], end[g]) of `ws`), each by cost ascending then index, so
 * within a segment the base never rises whatever the ranges are. The segment's workers still
 * listed are [head[g], end[g]): the scan (adaptive.ts) drops the ones that no longer fit from the
 * part it read by moving the live ones up, in order, and the head after them. `top` and `byTop`
 * are scratch space for the scan.
 */
export interface WarmSegments {
  readonly ws: Int32Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly head: Int32Array;
  readonly top: Float64Array;
  readonly byTop: Int32Array;
}
