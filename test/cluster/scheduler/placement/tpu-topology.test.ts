/**
 * From config to placement: a local topology declared with `slices:`, TPU jobs as `iris submit`
 * builds them (request shape, then admission), and what the scheduler and the submit-time feasibility check do.
 */
import { describe, expect, it } from 'vitest';
import { parseSubmitRequest } from '../../../../src/api/submit-request.js';
import { resolveJob } from '../../../../src/cluster/admission/index.js';
import { validateConfig, type MachineProbe } from '../../../../src/config/index.js';
import type { SubmitRequest } from '../../../../src/api/types.js';
import type { WorkerSpec } from '../../../../src/model/types.js';
import { neverReason } from '../../../../src/cluster/scheduler/index.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { SchedulerJob, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { snapshot, where } from '../helpers.js';

const PROBE: MachineProbe = {
  cpus: () => 8,
  memoryBytes: () => 64 * 1024 ** 3,
  gpus: () => [],
  tpuDevicePaths: () => [],
};

function cluster(raw: unknown): WorkerView[] {
  return validateConfig(raw, '/t/.irisrc.yaml', PROBE).workers.map((w: WorkerSpec) => ({
    id: w.id,
    device: w.device,
    attributes: w.attributes,
    capacity: { cpuMillis: w.cpuMillis, memoryBytes: w.memoryBytes },
    free: {
      cpuMillis: w.cpuMillis,
      memoryBytes: w.memoryBytes,
      devices: Array.from({ length: w.device.count }, (_, i) => i),
    },
    schedulable: true,
  }));
}

function submitted(req: Partial<SubmitRequest>, seq = 0): SchedulerJob {
  let n = 0;
  const request = parseSubmitRequest({ command: ['python', 'train.py'], ...req } as SubmitRequest);
  const names = { generateName: () => `job-${++n}`, isNameTaken: () => false };
  const { spec } = resolveJob(request, null, names, {
    user: 'alice',
    cwd: '/w',
    timeLimitMs: null,
    maxPreemptions: 100,
    image: null,
  });
  return {
    name: spec.name,
    depth: 1,
    rootSubmittedAt: seq,
    seq,
    user: spec.user,
    resources: spec.resources,
    constraints: spec.constraints,
    coschedule: spec.coschedule,
    replicas: spec.replicas,
  };
}

const TOPOLOGY = {
  workers: [{ name: 'cpu', count: 2, cpu: 4, memory: '8GiB' }],
  slices: [
    // listed in reverse so worker order is not tpu-worker-id order
    { name: 'slice-b', tpu: 'v5litepod-16', cpu: 8, memory: '16GiB' },
    { name: 'slice-a', tpu: 'v5litepod-16', cpu: 8, memory: '16GiB' },
  ],
};

describe('a declared 4-host slice runs `--tpu v5litepod-16` as one gang, task i on host i', () => {
  const workers = cluster(TOPOLOGY);

  it('places the 4 tasks on the 4 hosts of one slice in tpu-worker-id order', () => {
    const job = submitted({ name: 'train', tpu: 'v5litepod-16', cpu: '4', memory: '8GiB' });
    expect(job).toMatchObject({ replicas: 4, coschedule: 'tpu-name' });
    const plan = schedule(snapshot([job], workers.slice().reverse()));
    expect(where(plan)).toEqual({
      '/train/task-0': 'slice-a-0',
      '/train/task-1': 'slice-a-1',
      '/train/task-2': 'slice-a-2',
      '/train/task-3': 'slice-a-3',
    });
    expect(plan.placements.map((p) => p.deviceIndices)).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2, 3],
      [0, 1, 2, 3],
      [0, 1, 2, 3],
    ]);
  });

  it('two slice jobs get one slice each', () => {
    const jobs = [
      submitted({ name: 'one', tpu: 'v5litepod-16' }, 0),
      submitted({ name: 'two', tpu: 'v5litepod-16' }, 1),
    ];
    const placed = where(schedule(snapshot(jobs, workers)));
    expect(placed['/one/task-3']).toBe('slice-a-3');
    expect(placed['/two/task-3']).toBe('slice-b-3');
  });

  it.each([
    ['a variant no worker offers', { tpu: 'v5p-8' }, 'no tpu worker of variant v5p-8'],
    ['a bigger slice than any declared', { tpu: 'v5litepod-32' }, 'no tpu worker of variant v5litepod-32'],
    [
      'more memory than a host has',
      { tpu: 'v5litepod-16', memory: '32GiB' },
      'need 32GiB memory, largest worker has 16GiB',
    ],
  ])('refuses at submit %s, with the reason', (_label, req, reason) => {
    expect(neverReason(submitted(req), workers)).toBe(reason);
  });

  it('a cluster without TPUs says so', () => {
    expect(neverReason(submitted({ tpu: 'v5litepod-16' }), cluster({ workers: [{ name: 'c' }] }))).toBe(
      'no tpu workers in the cluster',
    );
  });

  it('a slice job fits the declared topology', () => {
    expect(neverReason(submitted({ tpu: 'v5litepod-16' }), workers)).toBeNull();
  });
});
