// The progress guarantee for job trees (the issue "Job trees that can never deadlock", §5): for
// random trees of CPU jobs on random workers, every job fitting some worker, repeatedly running
// passes of the real queue scheduler on snapshots where a waiting parent's CPU is released, and
// finishing the deepest running tasks whose children are done, always drains the queue. Without
// release the same loop can deadlock (the control below), so the property can fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import type { WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { PLACEMENTS, worker } from './helpers.js';
import { runTrees, treeSize, type TreeNode } from './tree-harness.js';

interface Shape {
  /** Half cores wanted (1 = 0.5 CPU); capped at the largest worker. */
  halves: number;
  limit: number;
  children: Shape[];
}

const leafArb: fc.Arbitrary<Shape> = fc.record({
  halves: fc.integer({ min: 1, max: 8 }),
  limit: fc.integer({ min: 1, max: 20 }),
  children: fc.constant([]),
});
function shapeArb(depth: number): fc.Arbitrary<Shape> {
  if (depth <= 1) return leafArb;
  return fc.record({
    halves: fc.integer({ min: 1, max: 8 }),
    limit: fc.integer({ min: 1, max: 20 }),
    children: fc.array(shapeArb(depth - 1), { maxLength: 3 }),
  });
}

/** 1-3 workers of 1-4 cores (in half cores) and 1-3 trees up to 5 levels deep. */
const caseArb = fc.record({
  workers: fc.array(fc.integer({ min: 2, max: 8 }), { minLength: 1, maxLength: 3 }),
  trees: fc.array(fc.integer({ min: 1, max: 5 }).chain(shapeArb), { minLength: 1, maxLength: 3 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): { workers: WorkerView[]; roots: TreeNode[] } {
  const workers = c.workers.map((halves, i) => worker(`w${i}`, { cpu: halves / 2, memGiB: 1 }));
  const largest = Math.max(...c.workers);
  const node = (s: Shape): TreeNode => ({
    cpuMillis: Math.min(s.halves, largest) * 500,
    limit: s.limit,
    children: s.children.map(node),
  });
  return { workers, roots: c.trees.map(node) };
}

function scheduler(policy: QueuePolicy, placement?: PlacementProfile): QueueScheduler {
  return new QueueScheduler({ policy, queueDepth: 32 }, placement);
}

/** Each step places a job or finishes one, once nothing is left to finish: 2 steps a job is plenty. */
const bound = (roots: TreeNode[]): number => 2 * treeSize(roots) + 2;

function drainsWithRelease(policy: QueuePolicy, placement: PlacementProfile): void {
  fc.assert(
    fc.property(caseArb, (c) => {
      const { workers, roots } = build(c);
      const out = runTrees(scheduler(policy, placement), workers, roots, { release: true, maxSteps: bound(roots) });
      expect(out.left, `${treeSize(roots)} jobs on ${c.workers.map((h) => h / 2).join('+')} cores`).toEqual([]);
      expect(out.drained).toBe(true);
    }),
    { numRuns: 200 },
  );
}

const chain = (depth: number, cpuMillis = 1000): TreeNode => ({
  cpuMillis,
  limit: 5,
  children: depth > 1 ? [chain(depth - 1, cpuMillis)] : [],
});

describe.each(PLACEMENTS)(
  'job trees always drain when a waiting parent releases its CPU (%s placement)',
  (_l, placement) => {
    it('easy (the default policy): random trees on random workers drain within the bound', () =>
      drainsWithRelease('easy', placement));
    it('first-fit: random trees on random workers drain within the bound', () =>
      drainsWithRelease('first-fit', placement));

    it('a chain of depth 8 on one 1-CPU worker drains under easy, one level at a time', () => {
      const out = runTrees(scheduler('easy', placement), [worker('w0', { cpu: 1 })], [chain(8)], {
        release: true,
        maxSteps: 100,
      });
      expect(out).toMatchObject({ drained: true, left: [] });
      // 8 starts down the chain, then 8 ends back up it.
      expect(out.steps).toBe(16);
    });
  },
);

describe('control: without release the same loop deadlocks', () => {
  it('a parent holding the only CPU while its child waits for it never drains (easy and first-fit)', () => {
    for (const policy of ['easy', 'first-fit'] as const) {
      const out = runTrees(scheduler(policy), [worker('w0', { cpu: 1 })], [chain(2)], { release: false, maxSteps: 50 });
      expect(out.drained).toBe(false);
      expect(out.left).toEqual(['/t0', '/t0/c0']);
    }
  });

  it('the generator finds deadlocks without release, so the property above can fail', () => {
    for (const policy of ['easy', 'first-fit'] as const) {
      const result = fc.check(
        fc.property(caseArb, (c) => {
          const { workers, roots } = build(c);
          return runTrees(scheduler(policy), workers, roots, { release: false, maxSteps: bound(roots) }).drained;
        }),
        { numRuns: 200, seed: 42 },
      );
      expect(result.failed, `${policy}: some generated tree deadlocks without release`).toBe(true);
    }
  });
});
