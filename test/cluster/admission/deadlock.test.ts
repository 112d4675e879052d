/** Admission refuses a child that is deadlocked the moment it is submitted, and only such a child. */
import { describe, expect, it } from 'vitest';
import { admit, type AdmissionDefaults, type ClusterView } from '../../../src/cluster/admission/index.js';
import type { WaitingHold } from '../../../src/cluster/scheduler/placement/deadlock.js';
import type { WorkerView } from '../../../src/cluster/scheduler/types.js';
import type { TaskCaller } from '../../../src/model/caller.js';

const DEFAULTS: AdmissionDefaults = {
  user: 'alice',
  cwd: '/home/alice',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
};
const GiB = 1024 ** 3;

const GPU_WORKER: WorkerView = {
  id: 'g1',
  device: { type: 'gpu', variant: 'H100', count: 1 },
  attributes: { 'device-type': 'gpu', 'device-variant': 'H100' },
  capacity: { cpuMillis: 8000, memoryBytes: 32 * GiB },
  free: { cpuMillis: 6000, memoryBytes: 30 * GiB, devices: [] },
  schedulable: true,
};

function caller(task: string): TaskCaller {
  return { task, job: task.slice(0, task.lastIndexOf('/')), attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 1000 };
}

/** /train/task-0 holds the only GPU while it waits on `on`. */
function view(on: string[], task = '/train/task-0'): ClusterView {
  const hold: WaitingHold = {
    task,
    job: task.slice(0, task.lastIndexOf('/')),
    waitingOn: on,
    worker: 'g1',
    cpuMillis: 0,
    memoryBytes: GiB,
    devices: [0],
  };
  return {
    workers: [GPU_WORKER],
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: () => false,
    generateName: () => 'gen',
    waitingHolds: () => [hold],
    jobState: () => undefined,
    dependenciesOf: () => [],
  };
}

const GPU_JOB = { command: ['python', 'eval.py'], gpu: 'H100x1' };

describe('admission: deadlocked at submit', () => {
  it('refuses a grandchild whose grandparent holds the GPU while waiting on its subtree', () => {
    const answer = admit({ ...GPU_JOB, name: 'score' }, caller('/train/eval/task-0'), view(['/train/eval']), DEFAULTS);
    expect(answer).toEqual({
      ok: false,
      refusal: {
        code: 'unsatisfiable',
        message:
          'job /train/eval/score can never run: deadlock: needs 1 GPU H100; /train/task-0 holds it while waiting on ' +
          '/train/eval',
        hint:
          'a waiting ancestor holds what it needs until its wait returns: ask for less, or submit it after that ' +
          'wait',
      },
    });
  });

  it('refuses the same job submitted from outside the tree', () => {
    const answer = admit({ ...GPU_JOB, name: '/train/eval/score' }, null, view(['/train/eval']), DEFAULTS);
    expect(answer.ok ? null : answer.refusal.message).toMatch(
      /can never run: deadlock: needs 1 GPU H100; \/train\/task-0 holds it/,
    );
  });

  it('admits a child of the submitter: the submitter is not waiting while it submits', () => {
    expect(admit({ ...GPU_JOB, name: 'eval' }, caller('/train/task-0'), view(['/train/eval']), DEFAULTS).ok).toBe(true);
  });

  it('admits a job outside what the ancestor waits on, or one that needs nothing it holds', () => {
    expect(
      admit({ ...GPU_JOB, name: 'other/x' }, caller('/train/other/task-0'), view(['/train/eval']), DEFAULTS).ok,
    ).toBe(true);
    expect(
      admit({ command: ['true'], name: 'score' }, caller('/train/eval/task-0'), view(['/train/eval']), DEFAULTS).ok,
    ).toBe(true);
  });

  it('admits it when the GPU is held by a waiting task that is not its ancestor', () => {
    expect(
      admit(
        { ...GPU_JOB, name: 'score' },
        caller('/train/eval/task-0'),
        view(['/train/eval'], '/serve/task-0'),
        DEFAULTS,
      ).ok,
    ).toBe(true);
  });
});
