/**
 * How a placement decision (model/types.ts PlacementDecision) reads in one line: the one home
 * of that text, shown by `iris status` per attempt and written to the controller log per
 * dispatch. For example `adaptive: 3 candidates, λ 0.8, score 0.74 (next w2 0.61), reuse hit`.
 */
import type { PlacementDecision } from './types.js';

const score = (n: number): string => n.toFixed(2);

export function describeDecision(d: PlacementDecision): string {
  const parts = [
    `${d.mode}: ${d.pool} candidate${d.pool === 1 ? '' : 's'}`,
    `λ ${d.lambda}`,
    `score ${score(d.score)}${d.runnerUp ? ` (next ${d.runnerUp.workerId} ${score(d.runnerUp.score)})` : ''}`,
  ];
  if (d.reuseHit) parts.push('reuse hit');
  return parts.join(', ');
}
