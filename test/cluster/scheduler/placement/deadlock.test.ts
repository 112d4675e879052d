/** The deadlock check as a table: what a pending job can only get from its own waiting ancestors. */
import { describe, expect, it } from 'vitest';
import { deadlockReason } from '../../../../src/cluster/scheduler/index.js';
import { waitingAncestors, type WaitingHold } from '../../../../src/cluster/scheduler/placement/deadlock.js';
import { GiB, gpuWorker, job, tpuWorker, worker } from '../helpers.js';

const H100 = { type: 'gpu', variant: 'H100', count: 1 } as const;
const TPU = { type: 'tpu', variant: 'v5litepod-16', chips: 4 } as const;

function hold(task: string, waitingOn: string[], o: Partial<WaitingHold> = {}): WaitingHold {
  return {
    task,
    job: task.slice(0, task.lastIndexOf('/')),
    waitingOn,
    worker: 'w1',
    cpuMillis: 1000,
    memoryBytes: GiB,
    devices: [],
    ...o,
  };
}

describe('deadlockReason', () => {
  const oneGpu = [gpuWorker('w1', 'H100', 1, { cpu: 8, memGiB: 32 })];
  const small = [worker('w1', { cpu: 2, memGiB: 4 })];

  const table: Array<[string, ReturnType<typeof job>, ReturnType<typeof worker>[], WaitingHold[], string | null]> = [
    [
      'a GPU held by the waiting parent',
      job('/train/eval', { device: H100 }),
      oneGpu,
      [hold('/train/task-0', ['/train/eval'], { devices: [0] })],
      'deadlock: needs 1 GPU H100; /train/task-0 holds it while waiting on /train/eval',
    ],
    [
      'memory held by the waiting parent',
      job('/a/b', { memGiB: 3 }),
      small,
      [hold('/a/task-0', ['/a/b'], { memoryBytes: 2 * GiB, cpuMillis: 0 })],
      'deadlock: needs 3GiB memory; /a/task-0 holds it while waiting on /a/b',
    ],
    [
      'a grandparent waiting on the subtree that contains the job',
      job('/a/b/c', { memGiB: 3 }),
      small,
      [hold('/a/task-0', ['/a/b'], { memoryBytes: 2 * GiB, cpuMillis: 0 })],
      'deadlock: needs 3GiB memory; /a/task-0 holds it while waiting on /a/b',
    ],
    [
      'CPU kept by a wait that does not release it, with the parent and grandparent both holding',
      job('/a/b/c', { cpu: 1, memGiB: 0.5 }),
      small,
      [hold('/a/task-0', ['/a/b', '/other']), hold('/a/b/task-0', ['/a/b/c'])],
      'deadlock: needs 1 CPU; /a/task-0 holds it while waiting on /a/b; /a/b/task-0 holds it while waiting on /a/b/c',
    ],
    [
      'released CPU is free to the child',
      job('/a/b', { cpu: 2, memGiB: 1 }),
      small,
      [hold('/a/task-0', ['/a/b'], { cpuMillis: 0 })],
      null,
    ],
    [
      'an ancestor that is not waiting on the job is not a deadlock',
      job('/train/eval', { device: H100 }),
      oneGpu,
      [hold('/train/task-0', ['/train/other'], { devices: [0] })],
      null,
    ],
    [
      'an unrelated job holding the resource is not a deadlock',
      job('/train/eval', { device: H100 }),
      oneGpu,
      [hold('/serve/task-0', ['/train/eval'], { devices: [0] })],
      null,
    ],
    [
      'the job waiting on its own child is not its own ancestor',
      job('/train', { device: H100 }),
      oneGpu,
      [hold('/train/task-0', ['/train/eval'], { devices: [0] })],
      null,
    ],
    [
      'a job no idle worker could run is a plain never, not a deadlock',
      job('/train/eval', { device: { type: 'gpu', variant: 'H100', count: 2 } }),
      oneGpu,
      [hold('/train/task-0', ['/train/eval'], { devices: [0] })],
      null,
    ],
    [
      'another worker can take it',
      job('/train/eval', { device: H100 }),
      [...oneGpu, gpuWorker('w2', 'H100', 1)],
      [hold('/train/task-0', ['/train/eval'], { devices: [0] })],
      null,
    ],
  ];

  it.each(table)('%s', (_name, j, workers, holds, expected) => {
    expect(deadlockReason(j, 1, workers, holds)).toBe(expected);
  });

  it('names CPU and memory together when the two are short together', () => {
    const holds = [hold('/a/task-0', ['/a/b'], { cpuMillis: 1500, memoryBytes: 3 * GiB })];
    expect(deadlockReason(job('/a/b', { cpu: 1, memGiB: 2 }), 1, small, holds)).toBe(
      'deadlock: needs 1 CPU and 2GiB memory; /a/task-0 holds them while waiting on /a/b',
    );
  });

  it('is not a deadlock while every worker is draining (the cluster may be refilled)', () => {
    const draining = [gpuWorker('w1', 'H100', 1, { schedulable: false })];
    expect(
      deadlockReason(job('/train/eval', { device: H100 }), 1, draining, [
        hold('/train/task-0', ['/train/eval'], { devices: [0] }),
      ]),
    ).toBeNull();
  });

  it('is not a deadlock while a disabled worker could take the job (it may be enabled again)', () => {
    const holds = [hold('/train/task-0', ['/train/eval'], { devices: [0] })];
    const off = { ...gpuWorker('w2', 'H100', 1, { schedulable: false }), disabled: 'elastic: idle 1m' };
    expect(
      deadlockReason(job('/train/eval', { device: H100 }), 1, [gpuWorker('w1', 'H100', 1), off], holds),
    ).toBeNull();
    // A drained one counts as absent: the job is deadlocked on w1.
    expect(
      deadlockReason(
        job('/train/eval', { device: H100 }),
        1,
        [gpuWorker('w1', 'H100', 1), { ...off, disabled: null }],
        holds,
      ),
    ).toMatch(/^deadlock: /);
  });

  describe('gangs', () => {
    const slice = [0, 1, 2, 3].map((k) => tpuWorker(`w${k}`, 's', k));
    const gang = job('/pod/eval', { coschedule: 'tpu-name', replicas: 4, device: TPU });

    it('a gang that needs the whole slice its waiting parent holds part of', () => {
      const holds = [hold('/pod/task-0', ['/pod/eval'], { worker: 'w2', devices: [0, 1, 2, 3] })];
      expect(deadlockReason(gang, 4, slice, holds)).toBe(
        'deadlock: needs 4 TPU v5litepod-16 chips; /pod/task-0 holds it while waiting on /pod/eval',
      );
    });

    it('a gang that fits on a second slice beside the parent is not deadlocked', () => {
      const two = [...slice, ...[0, 1, 2, 3].map((k) => tpuWorker(`v${k}`, 't', k))];
      const holds = [hold('/pod/task-0', ['/pod/eval'], { worker: 'w2', devices: [0, 1, 2, 3] })];
      expect(deadlockReason(gang, 4, two, holds)).toBeNull();
    });
  });
});

describe('waitingAncestors', () => {
  it('keeps the attempts of strict ancestors waiting on a subtree containing the job, shallowest first', () => {
    const holds = [
      hold('/a/b/task-0', ['/a/b/c']),
      hold('/a/task-1', ['/a/x']),
      hold('/a/task-0', ['/a/x', '/a/b']),
      hold('/a/b/c/task-0', ['/a/b/c/d']),
      hold('/z/task-0', ['/a/b/c']),
    ];
    expect(waitingAncestors('/a/b/c', holds).map(({ hold: h, on }) => [h.task, on])).toEqual([
      ['/a/task-0', '/a/b'],
      ['/a/b/task-0', '/a/b/c'],
    ]);
  });
});
