import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { job, snapshot, tpuWorker, worker, where } from '../helpers.js';

const TPU = { type: 'tpu', variant: 'v5litepod-16', chips: 4 } as const;
const gang = (name: string, replicas: number, o: Parameters<typeof job>[1] = {}) =>
  job(name, { coschedule: 'tpu-name', replicas, device: TPU, cpu: 4, memGiB: 8, ...o });

describe('gangs (seed 002)', () => {
  it('maps task index to tpu-worker-id order, not worker list order', () => {
    const workers = [
      tpuWorker('z', 's1', 3),
      tpuWorker('y', 's1', 1),
      tpuWorker('x', 's1', 2),
      tpuWorker('w', 's1', 0),
    ];
    const plan = schedule(snapshot([gang('/g', 4)], workers));
    expect(where(plan)).toEqual({ '/g/task-0': 'w', '/g/task-1': 'y', '/g/task-2': 'x', '/g/task-3': 'z' });
    expect(plan.placements.every((p) => p.deviceIndices.join() === '0,1,2,3')).toBe(true);
  });

  it('orders tpu-worker-id numerically (10 after 9)', () => {
    const workers = [tpuWorker('ten', 's', 10), tpuWorker('nine', 's', 9)];
    expect(where(schedule(snapshot([gang('/g', 2)], workers)))).toEqual({ '/g/task-0': 'nine', '/g/task-1': 'ten' });
  });

  it('without tpu-worker-id falls back to worker id order', () => {
    const attrs = (slice: string) => ({
      device: { type: 'cpu' as const, variant: null, count: 0 },
      attributes: { rack: slice },
    });
    const g = job('/g', { coschedule: 'rack', replicas: 2 });
    const plan = schedule(snapshot([g], [worker('b', attrs('r1')), worker('a', attrs('r1'))]));
    expect(where(plan)).toEqual({ '/g/task-0': 'a', '/g/task-1': 'b' });
  });

  it('is all-or-nothing: 3 of 4 fitting workers place nothing', () => {
    const workers = [
      tpuWorker('w0', 's', 0),
      tpuWorker('w1', 's', 1),
      tpuWorker('w2', 's', 2),
      tpuWorker('w3', 's', 3, { freeDevices: [] }),
    ];
    const plan = schedule(snapshot([gang('/g', 4)], workers));
    expect(plan.placements).toEqual([]);
    // A whole-slice gang names the busy host, as a partial gang does (one reason, explain.ts gangNow).
    expect(plan.reasons.get('/g')).toBe(
      'need hosts 0-3 of one tpu-name group (task i runs on host i): s host 3 (w3) is busy',
    );
  });

  it('never splits a gang across groups', () => {
    const workers = [
      tpuWorker('a0', 'a', 0),
      tpuWorker('a1', 'a', 1),
      tpuWorker('b0', 'b', 0),
      tpuWorker('b1', 'b', 1),
    ];
    const plan = schedule(snapshot([gang('/g', 3)], workers));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/g')).toBe('need 3 workers in one tpu-name group, largest group has 2');
  });

  it('on TPU hosts task i runs on tpu-worker-id i: a busy host 0 is not skipped, the gang waits', () => {
    const workers = [
      tpuWorker('w0', 's', 0, { freeCpu: 1 }),
      tpuWorker('w1', 's', 1),
      tpuWorker('w2', 's', 2),
      tpuWorker('w3', 's', 3),
    ];
    const plan = schedule(snapshot([gang('/g', 2)], workers));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/g')).toBe(
      'need hosts 0-1 of one tpu-name group (task i runs on host i): s host 0 (w0) is busy',
    );
    // once host 0 is free the gang takes hosts 0 and 1, in task order
    workers[0] = tpuWorker('w0', 's', 0);
    expect(where(schedule(snapshot([gang('/g', 2)], workers)))).toEqual({ '/g/task-0': 'w0', '/g/task-1': 'w1' });
  });

  it('a 4-host slice with one busy host is passed over for a free slice, keeping task i on host i', () => {
    const busy = [0, 1, 2, 3].map((i) => tpuWorker(`a${i}`, 'slice-a', i, i === 2 ? { freeDevices: [] } : {}));
    const free = [3, 1, 0, 2].map((i) => tpuWorker(`b${i}`, 'slice-b', i));
    const plan = schedule(snapshot([gang('/g', 4)], [...busy, ...free]));
    expect(where(plan)).toEqual({ '/g/task-0': 'b0', '/g/task-1': 'b1', '/g/task-2': 'b2', '/g/task-3': 'b3' });
  });

  it('groups without tpu-worker-id take the first eligible workers, skipping busy ones', () => {
    const attrs = (freeCpu?: number) => ({ attributes: { rack: 'r1' }, ...(freeCpu === undefined ? {} : { freeCpu }) });
    const workers = [worker('a', attrs(0)), worker('b', attrs()), worker('c', attrs())];
    const plan = schedule(snapshot([job('/g', { coschedule: 'rack', replicas: 2 })], workers));
    expect(where(plan)).toEqual({ '/g/task-0': 'b', '/g/task-1': 'c' });
  });

  it('two gangs never share workers, even when capacity would allow it', () => {
    const small = { cpu: 1, memGiB: 1, device: { type: 'tpu' as const, variant: 'v5litepod-16', chips: 1 } };
    const workers = [
      tpuWorker('a0', 'a', 0),
      tpuWorker('a1', 'a', 1),
      tpuWorker('b0', 'b', 0),
      tpuWorker('b1', 'b', 1),
    ];
    const plan = schedule(
      snapshot(
        [gang('/g1', 2, { ...small, rootSubmittedAt: 0 }), gang('/g2', 2, { ...small, rootSubmittedAt: 1 })],
        workers,
      ),
    );
    expect(where(plan)).toEqual({ '/g1/task-0': 'a0', '/g1/task-1': 'a1', '/g2/task-0': 'b0', '/g2/task-1': 'b1' });
  });

  it('a gang that cannot get a group of its own waits, with a reason', () => {
    const small = { cpu: 1, memGiB: 1, device: { type: 'tpu' as const, variant: 'v5litepod-16', chips: 1 } };
    const workers = [tpuWorker('a0', 'a', 0), tpuWorker('a1', 'a', 1)];
    const plan = schedule(
      snapshot(
        [gang('/g1', 2, { ...small, rootSubmittedAt: 0 }), gang('/g2', 2, { ...small, rootSubmittedAt: 1 })],
        workers,
      ),
    );
    expect(Object.keys(where(plan))).toEqual(['/g1/task-0', '/g1/task-1']);
    // The hosts /g1 took this pass are busy for /g2.
    expect(plan.reasons.get('/g2')).toBe(
      'need hosts 0-1 of one tpu-name group (task i runs on host i): a host 0 (a0) is busy, host 1 (a1) is busy',
    );
  });

  it('gangs are placed before independent tasks that come earlier in the queue', () => {
    const cpuJob = job('/a/deep', { cpu: 8, memGiB: 8, rootSubmittedAt: 0 }); // deeper: first in queue
    const workers = [tpuWorker('t0', 's', 0), tpuWorker('t1', 's', 1)];
    const plan = schedule(snapshot([cpuJob, gang('/g', 2, { rootSubmittedAt: 5 })], workers));
    expect(where(plan)).toEqual({ '/g/task-0': 't0', '/g/task-1': 't1' });
    expect(plan.reasons.get('/a/deep')).toBe('need 8 CPU, largest free worker has 4');
  });

  it('gangs follow queue order among themselves', () => {
    const workers = [tpuWorker('t0', 's', 0), tpuWorker('t1', 's', 1)];
    const plan = schedule(
      snapshot([gang('/late', 2, { rootSubmittedAt: 9 }), gang('/early', 2, { rootSubmittedAt: 1 })], workers),
    );
    expect(Object.keys(where(plan)).sort()).toEqual(['/early/task-0', '/early/task-1']);
  });

  it('a failed gang leaves nothing behind for independent tasks', () => {
    const workers = [tpuWorker('t0', 's', 0, { cpu: 4 }), tpuWorker('t1', 's', 1, { cpu: 4, freeDevices: [] })];
    const filler = job('/filler', { cpu: 4, memGiB: 1, replicas: 2, rootSubmittedAt: 9 });
    const plan = schedule(snapshot([gang('/g', 2, { rootSubmittedAt: 0 }), filler], workers));
    expect(where(plan)).toEqual({ '/filler/task-0': 't0', '/filler/task-1': 't1' });
  });

  it('explains a gang whose attribute no worker has', () => {
    const plan = schedule(
      snapshot([gang('/g', 2)], [worker('c', { device: { type: 'tpu', variant: 'v5litepod-16', count: 4 } })]),
    );
    expect(plan.reasons.get('/g')).toBe('no tpu worker has the tpu-name attribute');
  });
});
