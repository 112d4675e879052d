/**
 * The per-job metric the simulators share.
 *
 * Bounded slowdown (Feitelson): max(1, (wait + run) / max(run, threshold)). The threshold
 * keeps very short jobs from dominating the average; the usual value is 10 seconds.
 */

/** Bounded slowdown of one job; `threshold` defaults to 10 s. */
export function boundedSlowdown(wait: number, run: number, threshold = 10): number {
  return Math.max(1, (wait + run) / Math.max(run, threshold));
}
