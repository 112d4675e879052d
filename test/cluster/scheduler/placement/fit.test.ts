import { describe, expect, it } from 'vitest';
import { parseConstraint } from '../../../../src/model/constraints.js';
import type { DeviceRequest, WorkerDevice } from '../../../../src/model/resources.js';
import { checkWorker } from '../../../../src/cluster/scheduler/placement/filters.js';
import { deviceCompatible } from '../../../../src/cluster/scheduler/placement/fit.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { SchedulerJob, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { gpuWorker, job, snapshot, worker, where } from '../helpers.js';

/** The whole chain's verdict for one worker (its own free capacity), reasons as text. */
function filterWorker(j: SchedulerJob, w: WorkerView): { kind: string; reason?: string } {
  const v = checkWorker(j, { workers: [w] }, 0);
  return v.kind === 'ok' ? v : { kind: v.kind, reason: v.reasons.map((r) => r.message).join('; ') };
}

const cpuDev: WorkerDevice = { type: 'cpu', variant: null, count: 0 };
const h100: WorkerDevice = { type: 'gpu', variant: 'H100', count: 8 };
const a100: WorkerDevice = { type: 'gpu', variant: 'A100', count: 8 };
const v5e: WorkerDevice = { type: 'tpu', variant: 'v5litepod-16', count: 4 };
const v4: WorkerDevice = { type: 'tpu', variant: 'v4-8', count: 4 };

describe('device compatibility (seed 001)', () => {
  const gpuAny: DeviceRequest = { type: 'gpu', variant: null, count: 1 };
  const gpuH100: DeviceRequest = { type: 'gpu', variant: 'H100', count: 1 };
  const tpuV5e: DeviceRequest = { type: 'tpu', variant: 'v5litepod-16', chips: 4 };
  const table: Array<[string, DeviceRequest | null, WorkerDevice, boolean]> = [
    ['cpu job on cpu worker', null, cpuDev, true],
    ['cpu job on gpu worker', null, h100, true],
    ['cpu job on tpu worker', null, v5e, true],
    ['gpu job on cpu worker', gpuAny, cpuDev, false],
    ['gpu job on tpu worker', gpuAny, v5e, false],
    ['gpu (any variant) on H100', gpuAny, h100, true],
    ['gpu (any variant) on A100', gpuAny, a100, true],
    ['gpu H100 on H100', gpuH100, h100, true],
    ['gpu H100 on A100', gpuH100, a100, false],
    ['tpu job on cpu worker', tpuV5e, cpuDev, false],
    ['tpu job on gpu worker', tpuV5e, h100, false],
    ['tpu v5e on v5e', tpuV5e, v5e, true],
    ['tpu v5e on v4', tpuV5e, v4, false],
  ];
  it.each(table)('%s', (_name, request, device, expected) => {
    expect(deviceCompatible(request, device)).toBe(expected);
  });

  it('end to end: a cpu job lands on a tpu worker, a gpu job does not', () => {
    const workers = [worker('tpu', { device: v5e, freeDevices: [0, 1, 2, 3] })];
    const cpuJob = job('/cpu');
    const gpuJob = job('/gpu', { device: { type: 'gpu', variant: 'H100', count: 1 } });
    const plan = schedule(snapshot([cpuJob, gpuJob], workers));
    expect(where(plan)).toEqual({ '/cpu/task-0': 'tpu' });
    expect(plan.reasons.get('/gpu')).toBe('no gpu workers in the cluster');
  });
});

describe('constraints', () => {
  const w = worker('w', { attributes: { region: 'us-east1', rack: '7' } });
  const table: Array<[string, boolean]> = [
    ['region=us-east1', true],
    ['region=us-west1', false],
    ['region!=us-west1', true],
    ['zone!=a', false], // missing attribute fails !=
    ['region in (us-east1,eu)', true],
    ['region notin (us-east1)', false],
    ['zone notin (a)', false], // missing attribute fails notin
    ['region', true],
    ['zone', false],
    ['!zone', true],
    ['!region', false],
    ['rack>5', true],
    ['rack>=8', false],
    ['rack<8', true],
    ['region>1', false], // non-numeric attribute
  ];
  it.each(table)('%s -> %s', (text, holds) => {
    const verdict = filterWorker(job('/j', { constraints: [parseConstraint(text)] }), w);
    expect(verdict.kind === 'ok').toBe(holds);
    if (!holds)
      expect(verdict).toEqual({ kind: 'never', reason: expect.stringContaining('does not satisfy constraint') });
  });

  it('all constraints must hold', () => {
    const both = job('/j', { constraints: [parseConstraint('region=us-east1'), parseConstraint('rack>9')] });
    expect(filterWorker(both, w).kind).toBe('never');
  });
});

describe('chain verdicts for one worker', () => {
  it('distinguishes never (capacity, draining) from not now (free)', () => {
    const j = job('/j', { cpu: 2, memGiB: 4 });
    expect(filterWorker(j, worker('small', { cpu: 1 }))).toEqual({
      kind: 'never',
      reason: 'need 2 CPU, worker small has 1',
    });
    expect(filterWorker(j, worker('d', { schedulable: false }))).toEqual({
      kind: 'never',
      reason: 'worker d is draining',
    });
    expect(filterWorker(j, worker('busy', { freeCpu: 1 }))).toEqual({
      kind: 'not_now',
      reason: 'need 2 CPU, worker busy has 1 free',
    });
    expect(filterWorker(j, worker('full', { freeMemGiB: 1 }))).toEqual({
      kind: 'not_now',
      reason: 'need 4GiB memory, worker full has 1GiB free',
    });
    expect(filterWorker(j, worker('ok'))).toEqual({ kind: 'ok' });
  });

  it('gpu count is capacity taken from free devices', () => {
    const j = job('/g', { device: { type: 'gpu', variant: null, count: 4 } });
    expect(filterWorker(j, gpuWorker('w', 'H100', 2)).kind).toBe('never');
    expect(filterWorker(j, gpuWorker('w', 'H100', 8, { freeDevices: [1, 5, 6] }))).toEqual({
      kind: 'not_now',
      reason: 'need 4 GPUs, worker w has 3 free',
    });
    expect(filterWorker(j, gpuWorker('w', 'H100', 8, { freeDevices: [0, 1, 5, 6] })).kind).toBe('ok');
  });
});

describe('gpu memory in one pass', () => {
  const GiB = 1024 ** 3;
  const gpus = (id: string, memoryGiB: number | null): WorkerView =>
    worker(id, {
      cpu: 8,
      device: {
        type: 'gpu',
        variant: 'H100',
        count: 1,
        ...(memoryGiB === null ? {} : { memoryBytes: memoryGiB * GiB }),
      },
    });
  const asking = (name: string, memoryGiB: number | null): SchedulerJob =>
    job(name, {
      device: { type: 'gpu', variant: null, count: 1, ...(memoryGiB === null ? {} : { memoryBytes: memoryGiB * GiB }) },
    });

  it('jobs that differ only in gpu memory get their own candidates: each lands where its memory fits', () => {
    // Same device type and variant: were gpu memory not in the static key, /any would reuse the
    // candidates of /mid (g48, g80) and take g80, leaving /big nowhere to go.
    const plan = schedule(
      snapshot(
        [asking('/mid', 40), asking('/any', null), asking('/big', 80)],
        [gpus('unknown', null), gpus('g48', 48), gpus('g80', 80)],
      ),
    );
    expect(where(plan)).toEqual({ '/mid/task-0': 'g48', '/any/task-0': 'unknown', '/big/task-0': 'g80' });
  });
});
