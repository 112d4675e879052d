import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestAt, firstAbove, newBlock, suffixAtMost, summarize } from '../../../../src/cluster/scheduler/planner/blocks.js';

/** Longest closed run at x by brute force: maximal runs of raw <= x followed by a point > x. */
function closedRun(keys: number[], raw: number[], x: number): number {
  let best = -Infinity;
  let start = -1;
  for (let i = 0; i < keys.length; i++) {
    if (raw[i]! <= x) {
      if (start < 0) start = i;
    } else {
      if (start >= 0) best = Math.max(best, keys[i]! - keys[start]!);
      start = -1;
    }
  }
  return best;
}

describe('block summary', () => {
  it('gives, for integer and fractional usages, the longest closed free run, the first busy point and the free suffix at every threshold', () => {
    const block = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 9 }), raw: fc.integer({ min: 0, max: 6 }) }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(block, fc.integer({ min: -3, max: 7 }), fc.boolean(), (points, shift, halves) => {
        const keys: number[] = [];
        let t = 0;
        for (const p of points) keys.push((t += p.gap));
        // Halves: fractional usages take the unpacked sort; large ones beyond 2^42 too.
        const raw = points.map((p) => (halves ? p.raw / 2 : p.raw));
        const b = newBlock(keys, raw, raw.map(() => 1), shift);
        summarize(b);
        expect(b.minRaw).toBe(Math.min(...raw));
        expect(b.maxRaw).toBe(Math.max(...raw));
        for (let x = -1; x <= 7; x += 0.5) {
          expect(bestAt(b, x)).toBe(closedRun(keys, raw, x));
          const f = raw.findIndex((r) => r > x);
          expect(firstAbove(b, x)).toBe(f < 0 ? raw.length : f);
          let g = raw.length;
          while (g > 0 && raw[g - 1]! <= x) g--;
          expect(suffixAtMost(b, x)).toBe(g);
        }
      }),
      { numRuns: 500 },
    );
  });
});
