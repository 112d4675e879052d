import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { DEFAULT_SCORERS, WORKER_ORDER, bestWorker, isFirstFit, type WorkerScorer } from '../../../../src/cluster/scheduler/placement/scorers.js';
import { job, snapshot, worker, where } from '../helpers.js';

/** Prefers the worker with the most free CPU (a stand-in for a real scorer). */
const mostFreeCpu: WorkerScorer = { name: 'most-free-cpu', weight: 1_000_000, score: (_job, view, w) => view.free!(w).cpuMillis };

describe('scorer seam', () => {
  const workers = () => [worker('small', { cpu: 2 }), worker('big', { cpu: 8 }), worker('mid', { cpu: 4 })];

  it('the default list is worker order only, which is first-fit (the fast path)', () => {
    expect(isFirstFit(DEFAULT_SCORERS)).toBe(true);
    expect(isFirstFit([mostFreeCpu, WORKER_ORDER])).toBe(false);
    expect(where(schedule(snapshot([job('/j')], workers())))).toEqual({ '/j/task-0': 'small' });
    // The scored path with only WORKER_ORDER (a copy, so no fast path) agrees with first-fit.
    expect(where(schedule(snapshot([job('/j')], workers()), [{ ...WORKER_ORDER }]))).toEqual({ '/j/task-0': 'small' });
  });

  it('a custom scorer changes the chosen worker in schedule()', () => {
    const plan = schedule(snapshot([job('/j', { replicas: 3, cpu: 2 })], workers()), [mostFreeCpu, WORKER_ORDER]);
    // big (8 free) -> big (6) -> big and mid tie at 4: worker order breaks the tie.
    expect(plan.placements.map((p) => p.workerId)).toEqual(['big', 'big', 'big']);
    const spread = schedule(snapshot([job('/j', { replicas: 4, cpu: 2 })], workers()), [mostFreeCpu, WORKER_ORDER]);
    expect(spread.placements.map((p) => p.workerId)).toEqual(['big', 'big', 'big', 'mid']);
  });

  it('a custom scorer changes the chosen worker under a queue policy', () => {
    const first = new QueueScheduler({ policy: 'easy' }).pass(snapshot([job('/j')], workers()));
    expect(where(first)).toEqual({ '/j/task-0': 'small' });
    const scored = new QueueScheduler({ policy: 'easy' }, [mostFreeCpu, WORKER_ORDER]).pass(snapshot([job('/j')], workers()));
    expect(where(scored)).toEqual({ '/j/task-0': 'big' });
  });

  it('only feasible workers are scored; ties go to the earlier worker', () => {
    const view = { workers: workers(), free: (w: number) => workers()[w]!.free };
    const flat: WorkerScorer = { name: 'flat', weight: 1, score: () => 0 };
    expect(bestWorker(job('/j'), view, [0, 1, 2], () => true, [flat])).toBe(0);
    expect(bestWorker(job('/j'), view, [0, 1, 2], (w) => w !== 0, [flat])).toBe(1);
    expect(bestWorker(job('/j'), view, [0, 1, 2], () => false, [flat])).toBe(-1);
    expect(bestWorker(job('/j'), view, [0, 1, 2], () => true, [mostFreeCpu])).toBe(1);
  });
});
