import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { gpuWorker, job, snapshot, tasksOf, worker, where } from '../helpers.js';

describe('independent tasks: first-fit', () => {
  it('places in queue order on the first worker that fits', () => {
    const j = job('/j', { cpu: 2, replicas: 3 });
    const plan = schedule(snapshot([j], [worker('w1', { cpu: 4 }), worker('w2', { cpu: 4 })]));
    expect(where(plan)).toEqual({ '/j/task-0': 'w1', '/j/task-1': 'w1', '/j/task-2': 'w2' });
    expect(plan.reasons.size).toBe(0);
  });

  it('has no head-of-line blocking: a big task that does not fit is skipped, smaller ones run', () => {
    const big = job('/big', { cpu: 8, rootSubmittedAt: 0 });
    const small = job('/small', { cpu: 1, rootSubmittedAt: 1 });
    const plan = schedule(snapshot([big, small], [worker('w', { cpu: 4 })]));
    expect(where(plan)).toEqual({ '/small/task-0': 'w' });
    expect(plan.reasons.get('/big')).toBe('need 8 CPU, largest worker has 4');
  });

  it('deeper jobs get the capacity first', () => {
    const root = job('/train', { rootSubmittedAt: 0 });
    const child = job('/train/eval', { rootSubmittedAt: 0 });
    const plan = schedule(snapshot([root, child], [worker('w', { cpu: 1 })]));
    expect(where(plan)).toEqual({ '/train/eval/task-0': 'w' });
    expect(plan.reasons.get('/train')).toBe('need 1 CPU, largest free worker has 0');
  });

  it('capacity consumed in the pass is not handed out twice (memory)', () => {
    const j = job('/j', { cpu: 0.5, memGiB: 6, replicas: 3 });
    const plan = schedule(snapshot([j], [worker('w', { cpu: 4, memGiB: 16 })]));
    expect(plan.placements).toHaveLength(2);
    expect(plan.reasons.get('/j')).toBe('need 6GiB memory, largest free worker has 4GiB');
  });

  it('never places on a draining worker', () => {
    const plan = schedule(snapshot([job('/j')], [worker('d', { schedulable: false }), worker('ok')]));
    expect(where(plan)).toEqual({ '/j/task-0': 'ok' });
    const none = schedule(snapshot([job('/j')], [worker('d', { schedulable: false })]));
    expect(none.placements).toEqual([]);
    expect(none.reasons.get('/j')).toBe('all 1 workers are draining');
  });

  it('ignores tasks whose job is not in the snapshot', () => {
    const known = job('/known');
    const pending = [...tasksOf(known), { id: '/ghost/task-0', job: '/ghost', index: 0, submittedAt: 0, seq: 0 }];
    const plan = schedule(snapshot([known], [worker('w')], { pending }));
    expect(where(plan)).toEqual({ '/known/task-0': 'w' });
    expect([...plan.reasons.keys()]).toEqual([]);
  });

  it('reports one reason per job that still has pending tasks', () => {
    const j = job('/j', { cpu: 2, replicas: 3 });
    const plan = schedule(snapshot([j], [worker('w', { cpu: 4 })]));
    expect(plan.placements).toHaveLength(2);
    expect([...plan.reasons]).toEqual([['/j', 'need 2 CPU, largest free worker has 0']]);
  });
});

describe('devices', () => {
  it('two tasks on one 8-GPU worker get disjoint indices, lowest first', () => {
    const j = job('/g', { device: { type: 'gpu', variant: 'H100', count: 3 }, replicas: 2 });
    const plan = schedule(snapshot([j], [gpuWorker('w', 'H100', 8, { freeDevices: [7, 0, 2, 1, 5, 6] })]));
    expect(plan.placements.map((p) => p.deviceIndices)).toEqual([
      [0, 1, 2],
      [5, 6, 7],
    ]);
  });

  it('cpu-only tasks take no device indices', () => {
    const plan = schedule(snapshot([job('/c')], [gpuWorker('w', 'H100')]));
    expect(plan.placements[0]!.deviceIndices).toEqual([]);
  });

  it('gpu job skips workers of the wrong variant and full gpu workers', () => {
    const j = job('/g', { device: { type: 'gpu', variant: 'H100', count: 2 } });
    const workers = [
      gpuWorker('a100', 'A100'),
      gpuWorker('h-full', 'H100', 8, { freeDevices: [3] }),
      gpuWorker('h', 'H100'),
    ];
    expect(where(schedule(snapshot([j], workers)))).toEqual({ '/g/task-0': 'h' });
  });

  it('explains device reasons', () => {
    const h = job('/h', { device: { type: 'gpu', variant: 'H100', count: 1 } });
    const t = job('/t', { device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } });
    const big = job('/big', { device: { type: 'gpu', variant: null, count: 16 } });
    const busy = job('/busy', { device: { type: 'gpu', variant: null, count: 4 } });
    const plan = schedule(snapshot([h, t, big, busy], [gpuWorker('a', 'A100', 8, { freeDevices: [0, 1] })]));
    expect(plan.reasons.get('/h')).toBe('no gpu worker of variant H100');
    expect(plan.reasons.get('/t')).toBe('no tpu workers in the cluster');
    expect(plan.reasons.get('/big')).toBe('need 16 GPUs, largest gpu worker has 8');
    expect(plan.reasons.get('/busy')).toBe('need 4 GPUs, largest free gpu worker has 2');
  });
});

describe('purity', () => {
  it('same snapshot twice gives deep-equal plans and the snapshot is not mutated', () => {
    const jobs = [
      job('/a', { cpu: 2, replicas: 5 }),
      job('/a/b', { device: { type: 'gpu', variant: null, count: 2 }, replicas: 3 }),
      job('/g', { coschedule: 'tpu-name', replicas: 2, device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } }),
    ];
    const workers = [
      worker('c', { cpu: 4 }),
      gpuWorker('g', 'H100', 8, { freeDevices: [4, 0, 2] }),
      worker('t0', {
        device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
        attributes: { 'tpu-name': 's', 'tpu-worker-id': '0' },
      }),
      worker('t1', {
        device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
        attributes: { 'tpu-name': 's', 'tpu-worker-id': '1' },
      }),
    ];
    const snap = snapshot(jobs, workers);
    const before = structuredClone({ ...snap, jobs: [...snap.jobs], usage: [...snap.usage], quotas: [...snap.quotas] });
    const first = schedule(snap);
    const second = schedule(snap);
    expect(second).toEqual(first);
    expect({ ...snap, jobs: [...snap.jobs], usage: [...snap.usage], quotas: [...snap.quotas] }).toEqual(before);
    expect(first.placements.length).toBeGreaterThan(0);
  });
});
