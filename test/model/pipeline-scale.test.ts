/**
 * The stage order of src/model/pipeline.ts in time linear in the stages: the order is still the
 * one of sweeps over the file (checked against that rule, written out here as the reference), and
 * the work counted — entries of the stage map read — stays a few per stage at 1,000 and 10,000
 * stages, for a chain written first stage first and one written last stage first (which took a
 * sweep over every stage for each stage placed: N² entries read).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStageGraph, stageOrder } from '../../src/model/pipeline.js';

/** The rule as the sweeps state it: each sweep takes, in file order, every stage whose needs are taken. */
function sweepOrder(needsOf: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  const placed = new Set<string>();
  while (out.length < needsOf.size) {
    for (const [stage, needs] of needsOf) {
      if (!placed.has(stage) && needs.every((need) => placed.has(need))) {
        placed.add(stage);
        out.push(stage);
      }
    }
  }
  return out;
}

/** A stage map that counts the entries read from it (by iteration or by name). */
class CountingMap extends Map<string, readonly string[]> {
  reads = 0;
  override get(key: string): readonly string[] | undefined {
    this.reads++;
    return super.get(key);
  }
  override *entries(): MapIterator<[string, readonly string[]]> {
    for (const entry of super.entries()) {
      this.reads++;
      yield entry;
    }
  }
  override *keys(): MapIterator<string> {
    for (const key of super.keys()) {
      this.reads++;
      yield key;
    }
  }
  override *values(): MapIterator<readonly string[]> {
    for (const value of super.values()) {
      this.reads++;
      yield value;
    }
  }
  override [Symbol.iterator](): MapIterator<[string, readonly string[]]> {
    return this.entries();
  }
}

/** A chain s0 <- s1 <- … of `n` stages, written first stage first or last stage first. */
function chain(n: number, reversed: boolean): CountingMap {
  const map = new CountingMap();
  for (let k = 0; k < n; k++) {
    const i = reversed ? n - 1 - k : k;
    map.set(`s${i}`, i === 0 ? [] : [`s${i - 1}`]);
  }
  return map;
}

describe('stageOrder at scale', () => {
  it.each([false, true])('reads a few entries per stage at 1,000 and 10,000 stages (written reversed: %s)', (rev) => {
    for (const n of [1_000, 10_000]) {
      const needs = chain(n, rev);
      const order = stageOrder(needs);
      expect(order[0]).toBe('s0');
      expect(order[n - 1]).toBe(`s${n - 1}`);
      expect(needs.reads / n).toBeLessThanOrEqual(4);
    }
  });

  it('a 100,000-stage chain is checked and ordered', () => {
    const needs = chain(100_000, false);
    checkStageGraph(needs);
    const order = stageOrder(needs);
    expect(order.length).toBe(100_000);
    expect(order.every((stage, i) => stage === `s${i}`)).toBe(true);
  });

  it('property: the order is the sweeps order on random acyclic graphs', () => {
    const arb = fc
      .integer({ min: 1, max: 12 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }),
        ),
      );
    fc.assert(
      fc.property(arb, ([n, fileOrder, edges]) => {
        // A need goes from a higher rank to a lower one (acyclic); the file lists stages in `fileOrder`.
        const needsOf = new Map<string, string[]>();
        for (const i of fileOrder) needsOf.set(`s${i}`, []);
        for (const [a, b] of edges) {
          if (a === b) continue;
          const [hi, lo] = a > b ? [a, b] : [b, a];
          const needs = needsOf.get(`s${hi}`)!;
          if (!needs.includes(`s${lo}`)) needs.push(`s${lo}`);
        }
        expect(needsOf.size).toBe(n);
        expect(stageOrder(needsOf)).toEqual(sweepOrder(needsOf));
      }),
      { numRuns: 500 },
    );
  });
});
