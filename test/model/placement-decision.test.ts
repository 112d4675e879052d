/** How a placement decision reads (model/placement-decision.ts): never `-0.00` (issue 31 §3). */
import { describe, expect, it } from 'vitest';
import { describeDecision } from '../../src/model/placement-decision.js';

describe('describeDecision', () => {
  it('a score that rounds to zero reads 0.00, whatever its sign', () => {
    const d = { mode: 'adaptive', pool: 3, lambda: 0.5, reuseHit: false };
    const text = describeDecision({ ...d, score: -0.0004, runnerUp: { workerId: 'cpu-1', score: -0 } });
    expect(text).toBe('adaptive: 3 candidates, λ 0.5, score 0.00 (next cpu-1 0.00)');
    expect(describeDecision({ ...d, score: -0.006, runnerUp: null })).toBe(
      'adaptive: 3 candidates, λ 0.5, score -0.01',
    );
  });
});
