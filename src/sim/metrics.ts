/**
 * Per-job and aggregate metrics shared by the simulators.
 *
 * Bounded slowdown (Feitelson): max(1, (wait + run) / max(run, threshold)). The threshold
 * keeps very short jobs from dominating the average; the usual value is 10 seconds.
 */

/** Bounded slowdown of one job; `threshold` defaults to 10 s. */
export function boundedSlowdown(wait: number, run: number, threshold = 10): number {
  return Math.max(1, (wait + run) / Math.max(run, threshold));
}

/** Arithmetic mean; 0 for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
