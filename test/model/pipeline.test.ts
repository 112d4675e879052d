import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStageGraph, findStageCycle, stageOrder } from '../../src/model/pipeline.js';
import { refusal } from '../helpers/refusal.js';

const graph = (entries: Record<string, string[]>) => new Map(Object.entries(entries));
const message = (fn: () => void) => refusal(fn).message;

describe('the stage graph', () => {
  it.each([
    [
      { prep: [], train: ['prpe'], eval: ['train'] },
      'stages.train.needs[0]: unknown stage "prpe" (stages: prep, train, eval)',
    ],
    [{ a: ['a'] }, 'stages.a.needs[0]: stage "a" cannot need itself'],
    [{ a: [], b: ['a', 'a'] }, 'stages.b.needs[1]: stage "a" is listed twice'],
    [{ 'task-0': [] }, 'stages.task-0: invalid stage name'],
    [{ 'a b': [] }, 'stages.a b: invalid stage name'],
    [{ 'a.b': [] }, 'stages.a.b: invalid stage name'],
    [{}, 'stages: a pipeline needs at least one stage'],
    [{ prep: ['eval'], train: ['prep'], eval: ['train'] }, 'stages: cycle prep -> eval -> train -> prep'],
  ])('refuses %j with a path-precise message', (stages, expected) => {
    expect(message(() => checkStageGraph(graph(stages)))).toBe(expected);
  });

  it('orders stages after the stages they need, file order among free ones', () => {
    expect(stageOrder(graph({ eval: ['train'], train: ['prep'], prep: [], report: [] }))).toEqual([
      'prep',
      'report',
      'train',
      'eval',
    ]);
  });

  // Random graphs over a few names: a cycle is reported exactly when no order exists, and the
  // reported cycle is a real path of needs; when there is none the order respects every need.
  it('property: findStageCycle and stageOrder agree on random graphs', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const arb = fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...names)), { maxLength: 12 });
    fc.assert(
      fc.property(arb, (edges) => {
        const needs = new Map(
          names.map((n) => [n, [...new Set(edges.filter(([from, to]) => from === n && to !== n).map(([, to]) => to))]]),
        );
        const cycle = findStageCycle(needs);
        if (cycle) {
          expect(cycle[0]).toBe(cycle[cycle.length - 1]);
          for (let i = 0; i + 1 < cycle.length; i++) expect(needs.get(cycle[i]!)).toContain(cycle[i + 1]);
          expect(() => stageOrder(needs)).toThrow(/cycle/);
        } else {
          const order = stageOrder(needs);
          expect([...order].sort()).toEqual([...names].sort());
          for (const [stage, deps] of needs)
            for (const dep of deps) expect(order.indexOf(dep)).toBeLessThan(order.indexOf(stage));
        }
      }),
      { numRuns: 300 },
    );
  });
});
