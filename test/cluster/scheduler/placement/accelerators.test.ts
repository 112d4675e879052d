/**
 * Keep accelerators for accelerator work (placement/accelerators.ts, issue 31 §3): a job that asks
 * for no GPU or TPU goes to a worker without accelerators whenever one can hold it now, under
 * every placement mode that scores (adaptive, first-fit; both selections), in the plain pass and
 * under a queue policy; `keepAccelerators: false` turns it off. Also the cost of an unpriced
 * worker (1) where priced and unpriced workers are mixed.
 */
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { plainFirst } from '../../../../src/cluster/scheduler/placement/accelerators.js';
import type { GivenPlacementOptions } from '../../../../src/cluster/scheduler/placement/modes.js';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import type { Plan, SchedulerJob, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { GiB, job, tasksOf, worker } from '../helpers.js';

const NOW = 1_000_000;
const H100 = { type: 'gpu' as const, variant: 'H100', count: 8, memoryBytes: 80 * GiB };

/** The README's workers: a pool of two 4-CPU workers and an 8-CPU worker with 8 H100s. */
function readmeWorkers(gpuCost?: number): WorkerView[] {
  return [
    worker('cpu-0', { cpu: 4, memGiB: 8 }),
    worker('cpu-1', { cpu: 4, memGiB: 8 }),
    { ...worker('gpu-0', { cpu: 8, memGiB: 32, device: H100 }), ...(gpuCost ? { costPerHour: gpuCost } : {}) },
  ];
}

function snapshot(workers: WorkerView[], jobs: SchedulerJob[]): Snapshot {
  return {
    now: NOW,
    jobs: new Map(jobs.map((j) => [j.name, j])),
    pending: jobs.flatMap((j) => tasksOf(j, NOW)),
    workers,
    usage: new Map(),
    quotas: new Map(),
  };
}

/** Every placement mode that scores, each selection, through the plain pass and the easy policy. */
const scoring = (extra: GivenPlacementOptions = {}) =>
  (['adaptive', 'first-fit'] as const).flatMap((mode) =>
    (['first-fit', 'min-satisfying'] as const).map((selection) => placementOptions({ mode, selection, ...extra })),
  );
const passes = (snap: Snapshot, p: PlacementProfile): Array<[string, Plan]> => [
  [`${p.name} (plain pass)`, schedule(snap, p)],
  [`${p.name} (easy)`, new QueueScheduler({ policy: 'easy' }, p).pass(snap)],
];
const where = (plan: Plan): Record<string, string> =>
  Object.fromEntries(plan.placements.map((x) => [x.task, x.workerId]));

describe('keep accelerators for accelerator work', () => {
  it('the README config: 1-CPU tasks go to the CPU workers, under every scoring mode', () => {
    const snap = snapshot(readmeWorkers(), [job('/small', { cpu: 1, memGiB: 1, replicas: 3 })]);
    for (const p of scoring()) {
      for (const [name, plan] of passes(snap, p)) {
        expect(plan.placements, name).toHaveLength(3);
        for (const x of plan.placements) expect(x.workerId, name).toMatch(/^cpu-/);
      }
    }
  });

  it('a 2-CPU job goes to a CPU worker even when the GPU worker is priced (the λ tie of issue 31)', () => {
    const snap = snapshot(readmeWorkers(12), [job('/two', { cpu: 2, memGiB: 1 })]);
    for (const p of scoring()) {
      for (const [name, plan] of passes(snap, p)) expect(plan.placements[0]!.workerId, name).toMatch(/^cpu-/);
    }
    // The decision is taken over the CPU workers alone: 2 candidates. They are identical (one class),
    // and the runner-up recorded is the best worker of another class (issue 36): none here.
    const decision = schedule(snap, placementOptions()).placements[0]!.decision!;
    expect(decision.pool).toBe(2);
    expect(decision.runnerUp).toBeNull();
  });

  it('takes the accelerator worker when no worker without accelerators can hold the task now', () => {
    const snap = snapshot(readmeWorkers(), [
      job('/big', { cpu: 6, memGiB: 4 }),
      job('/small', { cpu: 1, replicas: 9 }),
    ]);
    for (const p of scoring()) {
      for (const [name, plan] of passes(snap, p)) {
        const at = where(plan);
        expect(at['/big/task-0'], name).toBe('gpu-0');
        // 8 one-CPU tasks fill the two CPU workers; the ninth takes what is left on gpu-0.
        const onGpu = Object.entries(at).filter(([t, w]) => t.startsWith('/small') && w === 'gpu-0');
        expect(onGpu, name).toHaveLength(1);
      }
    }
  });

  it('leaves GPU jobs as they were: they still go to the GPU worker', () => {
    const gpuJob = job('/train', { cpu: 1, device: { type: 'gpu', variant: null, count: 1 } });
    const snap = snapshot(readmeWorkers(), [gpuJob]);
    for (const p of scoring())
      for (const [name, plan] of passes(snap, p)) expect(where(plan), name).toEqual({ '/train/task-0': 'gpu-0' });
  });

  it('keepAccelerators false turns the rule off: adaptive scores the GPU worker like any other', () => {
    const snap = snapshot(readmeWorkers(), [job('/small', { cpu: 1, memGiB: 1, replicas: 3 })]);
    const off = placementOptions({ keepAccelerators: false });
    // Unpriced, the GPU worker's throughput wins every task (what issue 31 reported).
    expect(Object.values(where(schedule(snap, off)))).toEqual(['gpu-0', 'gpu-0', 'gpu-0']);
    // First-fit without the rule keeps plain worker order: the GPU worker listed first takes the task.
    const gpuFirst = snapshot([readmeWorkers()[2]!, ...readmeWorkers().slice(0, 2)], [job('/one', { cpu: 1 })]);
    const firstFit = (keepAccelerators: boolean) =>
      where(schedule(gpuFirst, placementOptions({ mode: 'first-fit', keepAccelerators })))['/one/task-0'];
    expect(firstFit(false)).toBe('gpu-0');
    expect(firstFit(true)).toBe('cpu-0');
  });

  it('plainFirst lists the workers without accelerators first, each part in its own order', () => {
    const workers = [
      worker('g0', { device: H100 }),
      worker('c0'),
      worker('g1', { device: { type: 'tpu', variant: 'v5e', count: 4 } }),
      worker('c1'),
    ];
    expect(plainFirst([0, 1, 2, 3], workers)).toEqual([1, 3, 0, 2]);
    expect(plainFirst([0, 2], workers)).toEqual([0, 2]);
  });
});

describe('priced and unpriced workers mixed', () => {
  // A big unpriced worker (cost 1 by default) and a small one priced 3; λ 0.4 (inference).
  const workers = () => [
    worker('big', { cpu: 8, memGiB: 32 }),
    { ...worker('small', { cpu: 4, memGiB: 16 }), costPerHour: 3 },
  ];
  const inference = { ...job('/serve', { cpu: 1 }), category: 'inference' as const };

  it('an unpriced worker costs 1: cheaper than one priced 3, so it wins on both throughput and cost', () => {
    const placed = schedule(snapshot(workers(), [inference]), placementOptions()).placements[0]!;
    expect(placed.workerId).toBe('big');
    // λ·μ̂ − (1 − λ)·ĉ: big 0.4·1 − 0.6·0 = 0.4, small 0.4·0 − 0.6·1 = −0.6 (± jitter 1e-3).
    expect(placed.decision!.score).toBeCloseTo(0.4, 2);
    expect(placed.decision!.runnerUp!.score).toBeCloseTo(-0.6, 2);
  });

  it('the same through the generic chooser and under the easy policy', () => {
    const snap = snapshot(workers(), [inference]);
    for (const mode of ['adaptive'] as const) {
      for (const selection of ['first-fit', 'min-satisfying'] as const) {
        const p = placementOptions({ mode, selection });
        expect(new QueueScheduler({ policy: 'easy' }, p).pass(snap).placements[0]!.workerId).toBe('big');
      }
    }
  });
});

describe('a tie of throughput against cost goes to the cheaper worker, then to the jitter', () => {
  // λ 0.5 (other): a big worker priced 2 scores 0.5·1 − 0.5·1 = 0 and a small one priced 1
  // scores 0.5·0 − 0.5·0 = 0; without the tie margin the jitter alone picks between them.
  const workers = () => [
    { ...worker('dear', { cpu: 8, memGiB: 32 }), costPerHour: 2 },
    { ...worker('cheap', { cpu: 4, memGiB: 16 }), costPerHour: 1 },
  ];
  const jobs = () => ['/a', '/b', '/c', '/d'].map((name) => job(name, { cpu: 1, memGiB: 1 }));

  it('every task goes to the cheaper worker while it has room, in the plain pass and under easy', () => {
    const snap = snapshot(workers(), jobs());
    for (const selection of ['first-fit', 'min-satisfying'] as const) {
      for (const [name, plan] of passes(snap, placementOptions({ mode: 'adaptive', selection }))) {
        expect(Object.values(where(plan)), name).toEqual(['cheap', 'cheap', 'cheap', 'cheap']);
        for (const x of plan.placements) expect(x.decision!.score, name).toBeGreaterThan(x.decision!.runnerUp!.score);
      }
    }
  });

  it('the same with the largest jitter allowed', () => {
    const plan = schedule(snapshot(workers(), jobs()), placementOptions({ jitter: 0.1 }));
    expect(Object.values(where(plan))).toEqual(['cheap', 'cheap', 'cheap', 'cheap']);
  });

  it('once the cheaper worker is full the dearer one takes the rest', () => {
    const six = ['/a', '/b', '/c', '/d', '/e', '/f'].map((name) => job(name, { cpu: 1, memGiB: 1 }));
    const counts = Object.values(where(schedule(snapshot(workers(), six), placementOptions()))).sort();
    expect(counts).toEqual(['cheap', 'cheap', 'cheap', 'cheap', 'dear', 'dear']);
  });
});
