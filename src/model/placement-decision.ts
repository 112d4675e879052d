/**
 * How a placement decision (model/types.ts PlacementDecision) reads in one line: the one home
 * of that text, shown by `iris status` per attempt and written to the controller log per
 * dispatch. For example `adaptive: 3 candidates, λ 0.8, score 0.74 (next w2 0.61), reuse hit`,
 * or `static-worker: 1 candidate` for a mode that does not score.
 */
import type { PlacementDecision } from './types.js';

/** Two decimals; a score that rounds to zero reads `0.00`, never `-0.00` (issue 31 §3). */
const score = (n: number): string => {
  const text = n.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
};

export function describeDecision(d: PlacementDecision): string {
  // Modes that do not score (the baselines, placement/baselines.ts) record only the pool.
  if (!d.mode.startsWith('adaptive')) return `${d.mode}: ${d.pool} candidate${d.pool === 1 ? '' : 's'}`;
  const parts = [
    `${d.mode}: ${d.pool} candidate${d.pool === 1 ? '' : 's'}`,
    `λ ${d.lambda}`,
    `score ${score(d.score)}${d.runnerUp ? ` (next ${d.runnerUp.workerId} ${score(d.runnerUp.score)})` : ''}`,
  ];
  if (d.reuseHit) parts.push('reuse hit');
  return parts.join(', ');
}
