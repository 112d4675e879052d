import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  plannedEnd,
  predictRuntime,
  RuntimeHistory,
  runRuntime,
  type RuntimeEstimate,
} from '../../../../src/cluster/scheduler/planner/prediction.js';

describe('predictRuntime', () => {
  it('plans with the mean of the last two runs under the default limit, else the limit', () => {
    expect(predictRuntime(1000, true, [10, 20, 40])).toEqual({ duration: 30, source: 'predicted', runs: 2 });
    expect(predictRuntime(1000, true, [7])).toEqual({ duration: 7, source: 'predicted', runs: 1 });
    expect(predictRuntime(1000, true, [])).toEqual({ duration: 1000, source: 'limit', runs: 0 });
    expect(predictRuntime(1000, true, undefined)).toEqual({ duration: 1000, source: 'limit', runs: 0 });
    // An explicit limit is planned with as it is.
    expect(predictRuntime(1000, false, [10, 20])).toEqual({ duration: 1000, source: 'limit', runs: 0 });
    expect(predictRuntime(null, false, undefined)).toEqual({ duration: Infinity, source: 'limit', runs: 0 });
    // Never above the limit, never below one unit.
    expect(predictRuntime(100, true, [500, 700])).toEqual({ duration: 100, source: 'limit', runs: 0 });
    expect(predictRuntime(100, true, [0, 0])).toEqual({ duration: 1, source: 'predicted', runs: 2 });
  });

  it('is between 1 and the limit, and equals the limit unless predicted', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 1e9 }), { nil: null }),
        fc.boolean(),
        fc.array(fc.integer({ min: 0, max: 1e9 }), { maxLength: 5 }),
        (limit, predicted, runs) => {
          const e = predictRuntime(limit, predicted, runs);
          const cap = limit ?? Infinity;
          expect(e.duration).toBeGreaterThanOrEqual(1);
          expect(e.duration).toBeLessThanOrEqual(cap);
          if (e.source === 'limit') expect(e.duration).toBe(cap);
          else expect(e.runs).toBe(Math.min(2, runs.length));
        },
      ),
    );
  });
});

describe('plannedEnd', () => {
  const predicted = (duration: number): RuntimeEstimate => ({ duration, source: 'predicted', runs: 2 });

  it('doubles an outlived prediction until it lies ahead, never past the limit', () => {
    expect(plannedEnd(100, predicted(10), 1000, 105)).toBe(110);
    expect(plannedEnd(100, predicted(10), 1000, 110)).toBe(120);
    expect(plannedEnd(100, predicted(10), 1000, 125)).toBe(140);
    expect(plannedEnd(100, predicted(10), 50, 155)).toBe(155);
    expect(plannedEnd(100, predicted(10), 50, 145)).toBe(150);
    // A limit estimate: its end, or now once run out (being stopped).
    expect(plannedEnd(100, { duration: 50, source: 'limit', runs: 0 }, 50, 120)).toBe(150);
    expect(plannedEnd(100, { duration: 50, source: 'limit', runs: 0 }, 50, 170)).toBe(170);
    expect(plannedEnd(100, { duration: Infinity, source: 'limit', runs: 0 }, null, 170)).toBe(Infinity);
  });

  it('is after now while the limit allows, never before now, and moves only at steps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 1, max: 1e5 }),
        fc.integer({ min: 1, max: 1e7 }),
        fc.integer({ min: 0, max: 1e7 }),
        (start, p, limit, elapsed) => {
          const now = start + elapsed;
          const e = predictRuntime(limit, true, [p]);
          const end = plannedEnd(start, e, limit, now);
          expect(end).toBeGreaterThanOrEqual(now);
          expect(end).toBeLessThanOrEqual(Math.max(now, start + limit));
          if (now < start + limit) expect(end).toBeGreaterThan(now);
          // Seen a moment later, before that end, the plan has not moved.
          if (end - 1 > now) expect(plannedEnd(start, e, limit, end - 1)).toBe(end);
        },
      ),
    );
  });
});

describe('RuntimeHistory', () => {
  it('keeps the last two runs per key, and restores what a record replaced', () => {
    const h = new RuntimeHistory();
    h.record('a', 1);
    const before = h.record('a', 2);
    h.record('a', 3);
    expect(h.runsOf('a')).toEqual([2, 3]);
    expect(before).toEqual([1]);
    const prev = h.record('a', 9);
    h.restore('a', prev);
    expect(h.runsOf('a')).toEqual([2, 3]);
    h.restore('b', h.record('b', 5));
    expect(h.runsOf('b')).toBeUndefined();
  });
});

describe('runRuntime', () => {
  const ok = (startedAt: number, finishedAt: number) => ({ state: 'SUCCEEDED', startedAt, finishedAt });
  it('is the mean per task over final attempts that succeeded, not the span of the run', () => {
    // Three tasks one after another: the span is 30, each task 10.
    expect(runRuntime([ok(0, 10), ok(10, 20), ok(20, 30)])).toBe(10);
    expect(runRuntime([ok(0, 10), { state: 'FAILED', startedAt: 0, finishedAt: 99 }, undefined])).toBe(10);
    expect(runRuntime([{ state: 'SUCCEEDED', startedAt: 0, finishedAt: null }])).toBeNull();
    expect(runRuntime([])).toBeNull();
  });

  it('lies between the shortest and the longest task', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(1e6), fc.nat(1e6)), { minLength: 1, maxLength: 20 }), (spans) => {
        const r = runRuntime(spans.map(([s, d]) => ok(s, s + d)))!;
        const ds = spans.map(([, d]) => d);
        expect(r).toBeGreaterThanOrEqual(Math.min(...ds) - 1e-6);
        expect(r).toBeLessThanOrEqual(Math.max(...ds) + 1e-6);
      }),
    );
  });
});
