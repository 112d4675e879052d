/**
 * Which attempt `iris exec` may run in (src/server/exec-service.ts execRefusal): every refusal is exit 3 with the
 * state.
 */
import { describe, expect, it } from 'vitest';
import { execRefusal, workerGone } from '../../src/server/exec-service.js';
import type { Job, Task, Worker } from '../../src/model/types.js';

const job = (over: Partial<Job> = {}, coschedule: string | null = null): Job => ({
  name: '/t',
  run: 1,
  depth: 1,
  parent: null,
  submittedAt: 0,
  rootSubmittedAt: 0,
  seq: 0,
  state: 'RUNNING',
  reason: null,
  startedAt: 0,
  finishedAt: null,
  failedTasks: 0,
  spec: { coschedule } as Job['spec'],
  ...over,
});
const task = (over: Partial<Task> = {}): Task => ({
  id: '/t/task-1',
  job: '/t',
  index: 1,
  state: 'RUNNING',
  attempt: 1,
  submittedAt: 0,
  seq: 0,
  failures: 0,
  preemptions: 0,
  workerId: 'w1',
  exitCode: null,
  reason: null,
  startedAt: 0,
  finishedAt: null,
  eligibleAt: null,
  ...over,
});
const worker = (over: Partial<Worker> = {}): Worker => ({
  id: 'w1',
  cpuMillis: 1000,
  memoryBytes: 1,
  device: { type: 'cpu', variant: null, count: 0 },
  attributes: {},
  state: 'READY',
  ...over,
});

describe('execRefusal', () => {
  it('a running attempt on a worker that is there: none', () => {
    expect(execRefusal(job(), task(), 1, null, worker())).toBeNull();
    expect(
      execRefusal(
        job(),
        task(),
        1,
        null,
        worker({ state: 'DISABLED', disabled: { by: 'node', reason: 'node cordoned (unschedulable)', disabledAt: 0 } }),
      ),
    ).toBeNull();
  });

  it.each<[string, Job, Task, number, string | null, Worker | undefined, string]>([
    [
      'an ended job',
      job({ state: 'SUCCEEDED' }),
      task({ state: 'SUCCEEDED' }),
      1,
      null,
      worker(),
      'job /t has ended (SUCCEEDED): nothing runs in /t/task-1 to exec into',
    ],
    [
      'an ended attempt',
      job(),
      task(),
      0,
      'FAILED',
      worker(),
      'attempt 0 of /t/task-1 has ended (FAILED); the task is at attempt 1',
    ],
    [
      'an attempt that never was',
      job(),
      task(),
      7,
      null,
      worker(),
      '/t/task-1 has no attempt 7; its current attempt is 1',
    ],
    [
      'a pending task',
      job(),
      task({ state: 'PENDING', reason: 'requeued after preemption: node w1: node gone' }),
      1,
      null,
      worker(),
      '/t/task-1 is PENDING, not running (requeued after preemption: node w1: node gone): nothing to exec into',
    ],
    [
      'a gang member whose host is gone',
      job({}, 'tpu-name'),
      task(),
      1,
      null,
      undefined,
      '/t/task-1 (a member of a gang on tpu-name) cannot be reached: worker w1 is gone',
    ],
    [
      'a task on a drained worker',
      job(),
      task(),
      1,
      null,
      worker({ state: 'DRAINED' }),
      '/t/task-1 cannot be reached: worker w1 is DRAINED',
    ],
    [
      'a task on a node that is not Ready',
      job(),
      task(),
      1,
      null,
      worker({
        state: 'DISABLED',
        disabled: { by: 'node', reason: 'node not Ready (KubeletNotReady)', disabledAt: 0 },
      }),
      '/t/task-1 cannot be reached: worker w1 is unavailable (node not Ready (KubeletNotReady))',
    ],
  ])('%s: not_found (exit 3) with the state', (_what, j, t, attempt, state, w, message) => {
    const error = execRefusal(j, t, attempt, state, w)!;
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(3);
    expect(error.hint).toBeTruthy();
  });

  it('workerGone: only a missing, drained or unavailable worker', () => {
    expect(workerGone(worker(), 'w1')).toBeNull();
    expect(
      workerGone(worker({ state: 'DISABLED', disabled: { by: 'user', reason: '', disabledAt: 0 } }), 'w1'),
    ).toBeNull();
    expect(workerGone(worker({ state: 'DRAINING' }), 'w1')).toBe('worker w1 is DRAINING');
    // Left the config, its tasks running on: still there; its node deleted: gone.
    expect(workerGone(worker({ state: 'DRAINING', left: { by: 'config', at: 1 } }), 'w1')).toBeNull();
    expect(workerGone(worker({ state: 'DRAINING', left: { by: 'node', at: 1 } }), 'w1')).toBe('worker w1 is DRAINING');
  });
});
