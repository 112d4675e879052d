// The benchmarks' measuring rule (bench/measure.mjs): sides alternate order each round, the
// warm-up is not counted, and a ratio is the median of the per-round ratios.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the benchmarks, without types
import { interleave, interleaveSync, ratioOf, stats } from '../../bench/measure.mjs';

describe('bench/measure.mjs', () => {
  it('stats gives min, median (mean of the middle two for an even count) and max', () => {
    expect(stats([5, 1, 3])).toEqual({ min: 1, median: 3, max: 5, n: 3 });
    expect(stats([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4, n: 4 });
  });

  it('runs the sides A B, B A, … after the warm-up, at least 5 timed rounds', () => {
    const order: string[] = [];
    const r = interleaveSync(
      {
        a: () => {
          order.push('a');
          return 2;
        },
        b: () => {
          order.push('b');
          return 1;
        },
      },
      { rounds: 2, warmup: 1 },
    );
    expect(r.rounds).toBe(5);
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
    expect(r.a.n).toBe(5);
    expect(r.ratio.b.median).toBe(2);
  });

  it('takes the ratio round by round, not as a ratio of two medians', async () => {
    // Round times chosen so that median(a) / median(b) = 1 while every per-round ratio is 2 or 0.5.
    const a = [9, 2, 4, 8, 16, 1];
    const b = [9, 1, 8, 4, 8, 2];
    let i = 0;
    let j = 0;
    const r = await interleave({ a: async () => a[i++], b: async () => b[j++] }, { rounds: 5, warmup: 1 });
    expect(r.a.median).toBe(r.b.median);
    expect(r.ratio.b.median).toBe(2);
    expect(ratioOf(r, 'b', 'a').median).toBe(0.5);
  });

  it('refuses a figure without a baseline', () => {
    expect(() => interleaveSync({ a: () => 1 })).toThrow(/baseline/);
  });
});
