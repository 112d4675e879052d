/**
 * The reuse term is scaled by 1 − ĉ (adaptive.ts header; docs/architecture.md, "Context reuse"):
 * a saved model load never buys a dearer host on its own, while a warm worker that is cheap, or
 * only a little dearer, still wins. The dispatch study's trace (docs/simulate.md) found the case
 * this guards: a warm 12/h host tying a cold 1.2/h one on the bonus, the jitter picking the dear one.
 */
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { REUSE_BONUS, reuseBonus } from '../../../../src/cluster/scheduler/placement/adaptive-score.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { CacheHint, SchedulerJob, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot, where, worker } from '../helpers.js';

const adaptive = placementOptions();
const priced = (w: WorkerView, costPerHour: number): WorkerView => ({ ...w, costPerHour });
const uses = (j: SchedulerJob, category: SchedulerJob['category'], keys: string[]): SchedulerJob => ({
  ...j,
  category,
  uses: keys,
});
const hints = (entries: Record<string, CacheHint[]>): Snapshot['cacheHints'] =>
  new Map(Object.entries(entries).map(([w, list]) => [w, new Map(list.map((h) => [h.key, h]))]));
const fresh = (key: string): CacheHint[] => [{ key, expiresAt: 1e9, loading: false }];

describe('reuse bonus scaled by 1 − ĉ', () => {
  it('is whole on the cheapest candidate, 0 on the dearest, and damped by the tasks already there', () => {
    expect(reuseBonus(1, 0)).toBe(REUSE_BONUS);
    expect(reuseBonus(1, 1)).toBe(0);
    expect(reuseBonus(2, 0.5)).toBeCloseTo(REUSE_BONUS / 4, 12);
  });

  it('a warm dear worker no longer ties a cold cheap one of the same hardware (training, λ 0.8)', () => {
    // Same μ, so μ̂ = 0 for both. dear: −(1 − 0.8)·1 = −0.2; cheap: 0. With the old, unscaled bonus
    // (+0.2) the dear worker tied the cheap one and the jitter chose; now its bonus is 0.
    const workers = [
      priced(worker('dear', { cpu: 64, memGiB: 256 }), 12),
      priced(worker('cheap', { cpu: 64, memGiB: 256 }), 1.2),
    ];
    const jobs = Array.from({ length: 12 }, (_, i) => uses(job(`/ft${i}`, { seq: i }), 'training', ['llama']));
    const plan = schedule({ ...snapshot(jobs, workers), cacheHints: hints({ dear: fresh('llama') }) }, adaptive);
    expect(new Set(Object.values(where(plan)))).toEqual(new Set(['cheap']));
    expect(plan.placements.every((p) => p.decision!.reuseHit === false)).toBe(true);
  });

  it('a warm worker a little dearer than the cheapest still wins on reuse', () => {
    // Costs 1, 1.5, 3: warm ĉ 0.25. Training: base −0.2·0.25 = −0.05, bonus 0.2·0.75 = 0.15 → 0.10 > 0.
    const workers = [
      priced(worker('cheap', { cpu: 8 }), 1),
      priced(worker('warm', { cpu: 8 }), 1.5),
      priced(worker('dear', { cpu: 8 }), 3),
    ];
    const j = uses(job('/ft'), 'training', ['llama']);
    const plan = schedule({ ...snapshot([j], workers), cacheHints: hints({ warm: fresh('llama') }) }, adaptive);
    expect(where(plan)).toEqual({ '/ft/task-0': 'warm' });
    expect(plan.placements[0]!.decision!.reuseHit).toBe(true);
    expect(plan.placements[0]!.decision!.score).toBeCloseTo(0.1, 2);
  });

  it('among equally priced workers the bonus is unchanged: the warm one wins', () => {
    const workers = [priced(worker('a', { cpu: 8 }), 2), priced(worker('warm', { cpu: 8 }), 2)];
    const plan = schedule(
      { ...snapshot([uses(job('/i'), 'inference', ['llama'])], workers), cacheHints: hints({ warm: fresh('llama') }) },
      adaptive,
    );
    expect(where(plan)).toEqual({ '/i/task-0': 'warm' });
    expect(plan.placements[0]!.decision!.score).toBeCloseTo(REUSE_BONUS, 2);
  });
});
