/**
 * What a shape's ranking (ranking.ts) hands to the adaptive scan (adaptive.ts): a ranked order of
 * classes. Types only.
 *
 * Guarantees (kept by ranking.ts, relied on by adaptive.ts): an order's `classes` and `base` are
 * parallel arrays, best base first.
 */
export interface RankedOrder {
  /** Shape class ids (ranking.ts), best base first. */
  classes: Int32Array;
  /** Base score of the class at the same position. */
  base: Float64Array;
  /** The ranking's `drops` when this order was built or last pruned. */
  dropsSeen: number;
  /** Positions before `head` hold classes that emptied. */
  head: number;
  /** How many best classes it was built to hold. */
  readonly size: number;
  /** It holds every class with a feasible worker (otherwise only the best `size` or so). */
  readonly complete: boolean;
}
