import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { FIRST_FIT_PLACEMENT, isFirstFit } from '../../../../src/cluster/scheduler/placement/registry.js';
import { WORKER_ORDER } from '../../../../src/cluster/scheduler/placement/scorers.js';
import { ScoredSelector } from '../../../../src/cluster/scheduler/placement/scored.js';
import type { PlacementProfile, WorkerScorer } from '../../../../src/cluster/scheduler/placement/scoring.js';
import type { WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot, tasksOf, worker, where } from '../helpers.js';

/** Prefers the worker with the most free CPU (a stand-in for a real scorer). */
const mostFreeCpu: WorkerScorer = {
  name: 'most-free-cpu',
  begin: ({ view }) => ({ score: (_job, _task, w) => view.free!(w).cpuMillis }),
};

/** First-fit's profile with `scorers` (weights as given) in place of worker order alone. */
const scoredBy = (...scorers: Array<[WorkerScorer, number]>): PlacementProfile => ({
  ...FIRST_FIT_PLACEMENT,
  name: 'test',
  scorers: scorers.map(([scorer, weight]) => ({ scorer, weight })),
});

/** The generic chooser's pick among `candidates` (the old `bestWorker`). */
function bestWorker(
  j: ReturnType<typeof job>,
  workers: WorkerView[],
  candidates: number[],
  feasible: (w: number) => boolean,
  profile: PlacementProfile,
): number {
  const snap = snapshot([j], workers);
  const view = { workers, free: (w: number) => workers[w]!.free };
  return new ScoredSelector(snap, view, profile).select(j, tasksOf(j)[0]!, candidates, feasible);
}

describe('scorer seam', () => {
  const workers = () => [worker('small', { cpu: 2 }), worker('big', { cpu: 8 }), worker('mid', { cpu: 4 })];

  it('the default list is worker order only, which is first-fit (the fast path)', () => {
    expect(isFirstFit(FIRST_FIT_PLACEMENT)).toBe(true);
    expect(isFirstFit(scoredBy([mostFreeCpu, 1_000_000], [WORKER_ORDER, 1]))).toBe(false);
    expect(where(schedule(snapshot([job('/j')], workers())))).toEqual({ '/j/task-0': 'small' });
    // The scored path with only WORKER_ORDER (a copy, so no fast path) agrees with first-fit.
    expect(where(schedule(snapshot([job('/j')], workers()), scoredBy([{ ...WORKER_ORDER }, 1])))).toEqual({
      '/j/task-0': 'small',
    });
  });

  it('a custom scorer changes the chosen worker in schedule()', () => {
    const profile = scoredBy([mostFreeCpu, 1_000_000], [WORKER_ORDER, 1]);
    const plan = schedule(snapshot([job('/j', { replicas: 3, cpu: 2 })], workers()), profile);
    // big (8 free) -> big (6) -> big and mid tie at 4: worker order breaks the tie.
    expect(plan.placements.map((p) => p.workerId)).toEqual(['big', 'big', 'big']);
    const spread = schedule(snapshot([job('/j', { replicas: 4, cpu: 2 })], workers()), profile);
    expect(spread.placements.map((p) => p.workerId)).toEqual(['big', 'big', 'big', 'mid']);
  });

  it('a custom scorer changes the chosen worker under a queue policy', () => {
    const first = new QueueScheduler({ policy: 'easy' }).pass(snapshot([job('/j')], workers()));
    expect(where(first)).toEqual({ '/j/task-0': 'small' });
    const profile = scoredBy([mostFreeCpu, 1_000_000], [WORKER_ORDER, 1]);
    const scored = new QueueScheduler({ policy: 'easy' }, profile).pass(snapshot([job('/j')], workers()));
    expect(where(scored)).toEqual({ '/j/task-0': 'big' });
  });

  it('only feasible workers are scored; ties go to the earlier worker', () => {
    const flat: WorkerScorer = { name: 'flat', begin: () => ({ score: () => 0 }) };
    const j = job('/j');
    expect(bestWorker(j, workers(), [0, 1, 2], () => true, scoredBy([flat, 1]))).toBe(0);
    expect(bestWorker(j, workers(), [0, 1, 2], (w) => w !== 0, scoredBy([flat, 1]))).toBe(1);
    expect(bestWorker(j, workers(), [0, 1, 2], () => false, scoredBy([flat, 1]))).toBe(-1);
    expect(bestWorker(j, workers(), [0, 1, 2], () => true, scoredBy([mostFreeCpu, 1_000_000]))).toBe(1);
  });
});
