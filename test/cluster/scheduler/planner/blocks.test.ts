import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bestAt,
  firstAbove,
  newBlock,
  orderDeleted,
  orderInserted,
  orderShifted,
  suffixAtMost,
  summarize,
} from '../../../../src/cluster/scheduler/planner/blocks.js';

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
  it(
    'gives, for integer and fractional usages, the longest closed free run, the first busy point and the free ' +
      'suffix at every threshold',
    () => {
      const block = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 9 }), raw: fc.integer({ min: 0, max: 6 }) }), {
        minLength: 1,
        maxLength: 40,
      });
      fc.assert(
        fc.property(block, fc.integer({ min: -3, max: 7 }), fc.boolean(), (points, shift, halves) => {
          const keys: number[] = [];
          let t = 0;
          for (const p of points) keys.push((t += p.gap));
          // Halves: fractional usages take the unpacked sort; large ones beyond 2^42 too.
          const raw = points.map((p) => (halves ? p.raw / 2 : p.raw));
          const b = newBlock(
            keys,
            raw,
            raw.map(() => 1),
            shift,
          );
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
    },
  );

  it('stays exact when points are inserted, deleted and shifted after a summary (kept value order, no re-sort)', () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), raw: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('shift' as const),
        from: fc.nat(),
        count: fc.nat({ max: 6 }),
        by: fc.integer({ min: -3, max: 3 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 2, maxLength: 20 }),
        fc.array(edit, { maxLength: 30 }),
        (initial, edits) => {
          const keys = initial.map((_, i) => 10 * (i + 1));
          const b = newBlock(
            keys,
            [...initial],
            initial.map(() => 1),
            0,
          );
          summarize(b);
          for (const e of edits) {
            const n = b.keys.length;
            if (e.kind === 'insert') {
              // A new time between two existing ones (or after the last).
              const j = e.at % (n + 1);
              const before = j === 0 ? 0 : b.keys[j - 1]!;
              const after = j === n ? before + 20 : b.keys[j]!;
              if (after - before < 2) continue;
              b.keys.splice(j, 0, Math.floor((before + after) / 2));
              b.raw.splice(j, 0, e.raw);
              b.refs.splice(j, 0, 1);
              orderInserted(b, j);
            } else if (e.kind === 'delete') {
              if (n <= 1) continue;
              const j = e.at % n;
              b.keys.splice(j, 1);
              b.raw.splice(j, 1);
              b.refs.splice(j, 1);
              orderDeleted(b, j);
            } else {
              const p = e.from % n;
              const q = Math.min(n, p + e.count);
              for (let j = p; j < q; j++) b.raw[j]! += e.by;
              orderShifted(b, p, q);
            }
            b.dirty = true;
            summarize(b);
            for (let x = -4; x <= 10; x++) expect(bestAt(b, x)).toBe(closedRun(b.keys, b.raw, x));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
