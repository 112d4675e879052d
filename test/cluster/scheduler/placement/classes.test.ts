/**
 * Worker classes and the rotation (placement/classes.ts, issue 36): identical workers share tasks
 * evenly (a χ² test), the choice depends only on the task and the candidates, the trees behind
 * the picks answer as a plain scan does, and — counting work, not timing it — an adaptive pass
 * scores classes, not workers: the scores per placed task do not grow with the number of
 * identical workers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { AdaptiveSelector, scoreCount } from '../../../../src/cluster/scheduler/placement/adaptive.js';
import {
  LevelTree,
  LiveIndex,
  NO_LEVEL,
  rotationScores,
  sortByMuCost,
  WorkerClasses,
} from '../../../../src/cluster/scheduler/placement/classes.js';
import { settleCount } from '../../../../src/cluster/scheduler/placement/warm-classes.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { CacheHint, SchedulerJob, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot, tasksOf, worker } from '../helpers.js';

const adaptive = placementOptions();
const priced = (w: WorkerView, costPerHour: number): WorkerView => ({ ...w, costPerHour });

describe('the rotation among identical workers', () => {
  it('spreads tasks evenly over identical workers (χ², 15 degrees of freedom, p = 0.001)', () => {
    const workers = Array.from({ length: 16 }, (_, i) => worker(`w${i}`, { cpu: 10_000, memGiB: 100_000 }));
    const jobs = Array.from({ length: 32 }, (_, i) => job(`/j${i}`, { replicas: 100, seq: i }));
    const plan = schedule(snapshot(jobs, workers), adaptive);
    expect(plan.placements).toHaveLength(3200);
    const counts = new Map<string, number>();
    for (const p of plan.placements) counts.set(p.workerId, (counts.get(p.workerId) ?? 0) + 1);
    const expected = 3200 / 16;
    let chi2 = 0;
    for (const w of workers) chi2 += ((counts.get(w.id) ?? 0) - expected) ** 2 / expected;
    expect(chi2).toBeLessThan(37.7);
  });

  it('the choice depends on the task and the feasible workers only, not on what was placed before', () => {
    const workers = Array.from({ length: 12 }, (_, i) => worker(`w${i}`, { cpu: 1000, memGiB: 4000 }));
    const j = job('/j', { replicas: 60 });
    const snap = snapshot([j], workers);
    const all = workers.map((_, i) => i);
    const alone = tasksOf(j).map((t) => new AdaptiveSelector(snap, adaptive).select(j, t, all, () => true));
    const sel = new AdaptiveSelector(snap, adaptive);
    const inTurn = tasksOf(j).map((t) => {
      const w = sel.select(j, t, all, () => true, 'shape');
      sel.placed(j, w);
      return w;
    });
    expect(inTurn).toEqual(alone);
    expect(new Set(alone).size).toBeGreaterThan(6);
  });

  it('records the best worker of the next class as the runner-up', () => {
    const workers = [
      ...Array.from({ length: 5 }, (_, i) => priced(worker(`cheap${i}`), 1)),
      ...Array.from({ length: 3 }, (_, i) => priced(worker(`dear${i}`), 2)),
    ];
    const j: SchedulerJob = { ...job('/j', { replicas: 4 }), category: 'inference' };
    for (const p of schedule(snapshot([j], workers), adaptive).placements) {
      expect(p.workerId).toMatch(/^cheap/);
      expect(p.decision!.runnerUp!.workerId).toMatch(/^dear/);
    }
  });
});

describe('the trees behind the picks', () => {
  it('property: rotationScores numbers each class as a sort by class order does, in any list order', () => {
    // The one-walk numbering (a list in class order) and the sorting fallback (any other order)
    // must give every worker the same rotation score as numbering the sorted list by hand.
    const arb = fc.record({
      kinds: fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })), {
        minLength: 1,
        maxLength: 40,
      }),
      pick: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      shuffle: fc.boolean(),
      slot: fc.nat(),
    });
    fc.assert(
      fc.property(arb, ({ kinds, pick, shuffle, slot }) => {
        const n = kinds.length;
        const mu = Float64Array.from(kinds, ([m]) => m),
          cost = Float64Array.from(kinds, ([, c]) => c);
        const classes = new WorkerClasses(sortByMuCost(mu, cost), mu, cost);
        const feasible = [...Array(n).keys()].filter((w) => pick[w]);
        if (shuffle) feasible.reverse();
        const out = new Float64Array(n),
          scratch = new Int32Array(n);
        for (let round = 0; round < 2; round++) {
          // twice: the per-class scratch must be left at zero
          rotationScores(classes, feasible, feasible.length, slot, out, scratch);
          const sorted = [...feasible].sort((a, b) => classes.rankOf[a]! - classes.rankOf[b]!);
          for (const w of feasible) {
            const mine = sorted.filter((v) => classes.classOf[v] === classes.classOf[w]);
            const m = mine.length,
              k = mine.indexOf(w);
            expect(out[w]).toBe(-((k - (slot % m) + m) % m));
          }
        }
      }),
      { seed: 36, numRuns: 300 },
    );
  });

  it('property: LiveIndex ranks and selects the live positions as a scan does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.array(fc.nat(), { maxLength: 80 }), (n, kills) => {
        const index = new LiveIndex(n);
        const live = new Array<boolean>(n).fill(true);
        for (const k of kills) {
          if (!live[k % n]) continue;
          live[k % n] = false;
          index.kill(k % n);
        }
        const positions = live.flatMap((x, i) => (x ? [i] : []));
        for (let i = 0; i <= n; i++) expect(index.before(i)).toBe(positions.filter((p) => p < i).length);
        positions.forEach((p, k) => expect(index.select(k)).toBe(p));
      }),
      { seed: 36, numRuns: 300 },
    );
  });

  it('property: LevelTree finds the least level in a range and its first position as a scan does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(NO_LEVEL)), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 5 })), { maxLength: 20 }),
        fc.nat(),
        fc.nat(),
        (levels, sets, x, y) => {
          const tree = new LevelTree(Int32Array.from(levels));
          for (const [i, v] of sets) {
            levels[i % levels.length] = v;
            tree.set(i % levels.length, v);
          }
          const a = x % levels.length,
            b = a + (y % (levels.length - a + 1));
          const part = levels.slice(a, b);
          const least = part.length === 0 ? NO_LEVEL : Math.min(...part);
          expect(tree.least(a, b)).toBe(least);
          const at = tree.argLeast(a, b);
          if (least === NO_LEVEL) expect(at).toBe(-1);
          else {
            expect(at).toBeGreaterThanOrEqual(a);
            expect(at).toBeLessThan(b);
            expect(tree.level(at)).toBe(least);
          }
          if (least !== NO_LEVEL) expect(tree.first(a, b, least)).toBe(a + part.findIndex((v) => v <= least));
          else expect(tree.first(a, b, 0)).toBe(-1);
        },
      ),
      { seed: 37, numRuns: 300 },
    );
  });
});

/** `n` workers of two kinds (4 in 5 cheap, 1 in 5 bigger and dearer), 30% warm for `m`. */
function fleet(n: number, tasks: number): Snapshot {
  const workers: WorkerView[] = [];
  const cacheHints = new Map<string, Map<string, CacheHint>>();
  for (let i = 0; i < n; i++) {
    const big = i % 5 === 0;
    const id = `w${i}`;
    workers.push(priced(worker(id, { cpu: big ? 16 : 8, memGiB: big ? 64 : 32 }), big ? 3 : 1));
    if (i % 10 < 3) cacheHints.set(id, new Map([['m', { key: 'm', expiresAt: 10_000_000, loading: i % 7 === 0 }]]));
  }
  const categories = ['training', 'inference', 'other'] as const;
  const jobs = Array.from({ length: tasks / 100 }, (_, i) => ({
    ...job(`/j${i}`, { replicas: 100, seq: i, memGiB: 1 }),
    category: categories[i % 3],
    ...(i % 2 === 0 ? { uses: ['m'] } : {}),
  }));
  return { ...snapshot(jobs, workers), cacheHints };
}

describe('an adaptive pass scores classes, not workers (issue 36)', () => {
  const scoresPerTask = (n: number): number => {
    const snap = fleet(n, 2000);
    const before = scoreCount.value;
    const plan = schedule(snap, adaptive);
    expect(plan.placements).toHaveLength(2000);
    return (scoreCount.value - before) / plan.placements.length;
  };

  it('1,000 and 10,000 workers of two kinds: at most one score per class per task', () => {
    const small = scoresPerTask(1000),
      large = scoresPerTask(10_000);
    // Two classes (cheap, big): the walk and the warm scan score each at most once per task.
    expect(small).toBeLessThanOrEqual(2);
    expect(large).toBeLessThanOrEqual(2);
  });

  it('warm lists settle what they are asked about: raised levels per task do not grow with the workers', () => {
    // Warm lists are told nothing of placements (warm-classes.ts); a query raises the stale
    // levels it meets. Counted at 1,000, 10,000 and 100,000 workers (half the tasks use the key).
    const settlesPerTask = (n: number, tasks: number): number => {
      const snap = fleet(n, tasks);
      const before = settleCount.value;
      const plan = schedule(snap, adaptive);
      expect(plan.placements).toHaveLength(tasks);
      return (settleCount.value - before) / tasks;
    };
    const small = settlesPerTask(1000, 2000),
      large = settlesPerTask(10_000, 2000),
      huge = settlesPerTask(100_000, 2000);
    // At most one raise per warm placement (the entry that got warmer, met by the next query)
    // plus the entries that stopped fitting; it does not grow with the fleet.
    expect(small).toBeLessThanOrEqual(1);
    expect(large).toBeLessThanOrEqual(1);
    expect(huge).toBeLessThanOrEqual(1);
  });
});
