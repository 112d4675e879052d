import { afterEach, describe, expect, it } from 'vitest';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';
import type { RunningTask } from '../../../src/runtime/types.js';

let h: Harness;
afterEach(async () => h.close());

const states = (h: Harness, task: string) => h.store.attemptsOf(task).map((a) => [a.state, a.reason]);

/** The RunningTask of the next launch of `task`. */
function nextLaunch(h: Harness, task: string): Promise<RunningTask> {
  return new Promise((resolve) => {
    const on = (launch: { key: { task: string } }, running: RunningTask) => {
      if (launch.key.task !== task) return;
      h.runtime.events.off('launch', on);
      resolve(running);
    };
    h.runtime.events.on('launch', on);
  });
}

describe('attempt supervisor', () => {
  it('records a successful exit and forgets the attempt and its token', async () => {
    h = harness();
    const { store, controller, runtime, until } = h;
    store.submit(spec('/ok', { command: ['sh', '-c', 'echo hello; exit 0'] }));
    controller.start();
    await until(() => store.job('/ok')!.state === 'SUCCEEDED');
    expect(states(h, '/ok/task-0')).toEqual([['SUCCEEDED', null]]);
    expect(store.task('/ok/task-0')!.exitCode).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(controller.activeCount()).toBe(0);
    expect(controller.callerForToken(runtime.launches[0]!.env.IRIS_TASK_TOKEN!)).toBeNull();
  });

  it('retries a failed attempt and then succeeds', async () => {
    h = harness();
    const { store, controller, runtime, until } = h;
    store.submit(spec('/r', { command: LONG, maxRetries: 1 }));
    controller.start();
    await until(() => store.task('/r/task-0')!.state === 'RUNNING');
    runtime.exit('/r/task-0', 3);
    await until(() => store.task('/r/task-0')!.attempt === 1 && store.task('/r/task-0')!.state === 'RUNNING');
    runtime.exit('/r/task-0', 0);
    await until(() => store.job('/r')!.state === 'SUCCEEDED');
    expect(states(h, '/r/task-0')).toEqual([
      ['FAILED', 'exit 3'],
      ['SUCCEEDED', null],
    ]);
    expect(store.task('/r/task-0')!.failures).toBe(1);
  });

  it('records the usage the runtime measured with the exit, and null where it measured nothing', async () => {
    h = harness();
    const { store, controller, runtime, until } = h;
    store.submit(spec('/u', { command: LONG, maxRetries: 1 }));
    controller.start();
    await until(() => store.task('/u/task-0')!.state === 'RUNNING');
    // Running: nothing measured yet.
    expect(store.attemptsOf('/u/task-0').map((a) => [a.cpuSeconds, a.peakMemoryBytes])).toEqual([[null, null]]);
    runtime.exit('/u/task-0', 3, { cpuSeconds: 1.25, peakMemoryBytes: 45 * 1024 ** 2 });
    await until(() => store.task('/u/task-0')!.attempt === 1 && store.task('/u/task-0')!.state === 'RUNNING');
    runtime.exit('/u/task-0', 0);
    await until(() => store.job('/u')!.state === 'SUCCEEDED');
    expect(store.attemptsOf('/u/task-0').map((a) => [a.state, a.cpuSeconds, a.peakMemoryBytes])).toEqual([
      ['FAILED', 1.25, 45 * 1024 ** 2],
      ['SUCCEEDED', null, null],
    ]);
  });

  it('a launch that cannot start fails with the reason', async () => {
    h = harness();
    const { store, controller, until } = h;
    store.submit(spec('/missing', { command: ['no-such-program-xyz'] }));
    controller.start();
    await until(() => store.job('/missing')!.state === 'FAILED');
    expect(states(h, '/missing/task-0')).toEqual([['FAILED', 'launch failed: command not found: no-such-program-xyz']]);
  });

  it('a drained worker preempts its attempt, which runs again elsewhere', async () => {
    h = harness();
    const { store, controller, until } = h;
    store.submit(spec('/p', { command: LONG, maxPreemptions: 1 }));
    controller.start();
    await until(() => store.task('/p/task-0')!.state === 'RUNNING');
    const first = store.task('/p/task-0')!.workerId!;
    controller.applyStopOrders(store.drainWorker(first));
    await until(() => store.task('/p/task-0')!.attempt === 1 && store.task('/p/task-0')!.state === 'RUNNING');
    expect(h.runtime.launches.map((l) => l.key.attempt)).toEqual([0, 1]);
    expect(store.task('/p/task-0')!.workerId).not.toBe(first);
    expect(states(h, '/p/task-0')).toEqual([
      ['PREEMPTED', `worker ${first} drained`],
      ['RUNNING', null],
    ]);
    // The old attempt's stop goes out once its note is in the log (supervisor.ts stopEntry).
    await until(() => h.runtime.running().length === 1);
    expect(h.runtime.running().map((k) => k.attempt)).toEqual([1]);
  });

  it('stops an attempt past its time limit: the attempt FAILED (time-limit), its task and job TIMEOUT', async () => {
    h = harness();
    const { store, controller, timers, until } = h;
    store.submit(spec('/t', { command: LONG, timeoutMs: 60_000 }));
    controller.start();
    const running = nextLaunch(h, '/t/task-0');
    await until(() => store.task('/t/task-0')!.state === 'RUNNING');
    timers.advance(59_999);
    expect(store.task('/t/task-0')!.state).toBe('RUNNING');
    timers.advance(1);
    expect(await (await running).exited).toEqual({ exitCode: null, signal: 'SIGTERM' });
    await until(() => store.job('/t')!.state === 'TIMEOUT');
    expect(store.task('/t/task-0')!.state).toBe('TIMEOUT');
    expect(states(h, '/t/task-0')).toEqual([['FAILED', 'time-limit']]);
  });

  it('cancel stops the running attempt and records it as killed', async () => {
    h = harness();
    const { store, controller, until } = h;
    store.submit(spec('/c', { command: LONG }));
    controller.start();
    const running = nextLaunch(h, '/c/task-0');
    await until(() => store.task('/c/task-0')!.state === 'RUNNING');
    controller.applyStopOrders(store.cancel('/c', 'cancelled by user'));
    expect(store.job('/c')!.state).toBe('KILLED');
    await (await running).exited;
    await until(() => h.runtime.running().length === 0);
    expect(states(h, '/c/task-0')).toEqual([['KILLED', 'cancelled by user']]);
  });

  it('a failing gang member restarts the whole gang', async () => {
    h = harness([
      workerSpec('s1', { attributes: { 'tpu-name': 'a' } }),
      workerSpec('s2', { attributes: { 'tpu-name': 'a' } }),
    ]);
    const { store, controller, runtime, until } = h;
    store.submit(spec('/g', { command: LONG, replicas: 2, coschedule: 'tpu-name', maxRetries: 1 }));
    controller.start();
    const bothRunning = (attempt: number) => () =>
      store.tasksOf('/g').every((t) => t.state === 'RUNNING' && t.attempt === attempt);
    await until(bothRunning(0));
    runtime.exit('/g/task-0', 1);
    await until(bothRunning(1));
    expect(states(h, '/g/task-0')).toEqual([
      ['FAILED', 'exit 1'],
      ['RUNNING', null],
    ]);
    expect(states(h, '/g/task-1')).toEqual([
      ['KILLED', 'gang restarted'],
      ['RUNNING', null],
    ]);
    expect(
      runtime
        .running()
        .map((k) => [k.task, k.attempt])
        .sort(),
    ).toEqual([
      ['/g/task-0', 1],
      ['/g/task-1', 1],
    ]);
  });

  it('a lost attempt counts as a preemption', async () => {
    h = harness();
    const { store, controller, runtime, until } = h;
    store.submit(spec('/l', { command: LONG, maxPreemptions: 0 }));
    controller.start();
    await until(() => store.task('/l/task-0')!.state === 'RUNNING');
    runtime.lose('/l/task-0', 'engine went away');
    await until(() => store.task('/l/task-0')!.state === 'WORKER_FAILED');
    expect(store.job('/l')!.reason).toBe('task /l/task-0 preempted 1 time (engine went away)');
    expect(states(h, '/l/task-0')).toEqual([['PREEMPTED', 'engine went away']]);
  });

  it('shutdown stops every attempt and records it as preempted', async () => {
    h = harness();
    const { store, controller, runtime, until } = h;
    store.submit(spec('/s', { command: LONG, replicas: 2, maxPreemptions: 5 }));
    controller.start();
    await until(() => store.activeAttempts().length === 2);
    await controller.shutdown('cluster stopped');
    expect(runtime.running()).toEqual([]);
    expect(controller.activeCount()).toBe(0);
    expect(store.tasksOf('/s').map((t) => t.state)).toEqual(['PENDING', 'PENDING']);
    expect(states(h, '/s/task-0')).toEqual([['PREEMPTED', 'cluster stopped']]);
  });
});
