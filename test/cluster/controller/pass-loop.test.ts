import { afterEach, describe, expect, it } from 'vitest';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => h.close());

describe('pass loop', () => {
  it('places a pending task, records the attempt and launches exactly what it committed', async () => {
    h = harness();
    const { store, runtime, controller, until } = h;
    store.submit(spec('/a', { command: LONG, env: { K: 'v' } }));
    controller.start();
    await until(() => store.task('/a/task-0')?.state === 'RUNNING');
    expect(runtime.launches).toHaveLength(1);
    const launch = runtime.launches[0]!;
    expect(launch.key).toEqual({ job: '/a', task: '/a/task-0', attempt: 0 });
    expect(launch.env).toMatchObject({ K: 'v', IRIS_TASK_ID: '/a/task-0', IRIS_CLUSTER_ID: 'c-test' });
    const attempt = store.attempt('/a/task-0', 0)!;
    expect(attempt.logPath).toBe(launch.logPath);
    expect(attempt.pid).toBe(runtime.host.leaders()[0]!.pid);
    expect(controller.callerForToken(launch.env.IRIS_TASK_TOKEN ?? '')).toEqual({
      task: '/a/task-0',
      job: '/a',
      attempt: 0,
    });
    expect(controller.passes).toBeGreaterThan(0);
  });

  it('stores the device indices of each attempt and never hands the same device out twice', async () => {
    h = harness([workerSpec('g1', { device: { type: 'gpu', variant: 'H100', count: 4 } })]);
    const { store, controller, until } = h;
    const gpus = { cpuMillis: 1000, memoryBytes: 1 << 28, device: { type: 'gpu' as const, variant: null, count: 2 } };
    store.submit(spec('/x', { command: LONG, resources: gpus }));
    store.submit(spec('/y', { command: LONG, resources: gpus }));
    store.submit(spec('/z', { command: LONG, resources: gpus }));
    controller.start();
    await until(() => store.activeAttempts().length === 2);
    const held = store.activeAttempts().map((a) => a.devices);
    expect(held.map((d) => d.length)).toEqual([2, 2]);
    expect(new Set(held.flat()).size).toBe(4);
    expect(store.job('/z')!.state).toBe('PENDING');
    // The third job takes the devices the first one frees.
    const first = store.activeAttempts()[0]!;
    h.runtime.exit(first.task, 0);
    await until(() => store.job('/z')!.state === 'RUNNING');
    expect([...store.attempt('/z/task-0', 0)!.devices].sort()).toEqual([...first.devices].sort());
  });

  it('ends a job still pending at its scheduling timeout, with the scheduler reason', async () => {
    h = harness([workerSpec('w1')]);
    const { store, controller, timers, until } = h;
    store.submit(spec('/big', { command: LONG, resources: { cpuMillis: 4000, memoryBytes: 1 << 28, device: null } }));
    store.submit(spec('/late', { command: LONG, schedulingTimeoutMs: 10_000 }));
    controller.start();
    await until(() => store.job('/big')!.state === 'RUNNING' && store.job('/late')!.reason !== null);
    expect(timers.count).toBe(1);
    timers.advance(9_999);
    expect(store.job('/late')!.state).toBe('PENDING');
    timers.advance(1);
    await until(() => store.job('/late')!.state === 'UNSCHEDULABLE');
    expect(store.job('/late')!.reason).toMatch(/^not scheduled within 10s: /);
    expect(store.task('/late/task-0')!.state).toBe('UNSCHEDULABLE');
    expect(store.job('/big')!.state).toBe('RUNNING');
  });

  it('queueListing lists pending jobs in order with the policy, as plain data', async () => {
    h = harness([workerSpec('w1')]);
    const { store, controller, until } = h;
    store.submit(spec('/big', { command: LONG, resources: { cpuMillis: 4000, memoryBytes: 1 << 28, device: null } }));
    store.submit(spec('/next', { command: LONG, replicas: 2 }));
    controller.start();
    await until(() => store.job('/big')!.state === 'RUNNING');
    const state = controller.queueListing();
    expect(state.policy).toBe(controller.policy);
    expect(state.pending).toEqual([{ job: '/next', pendingTasks: 2 }]);
  });
});

describe('pass loop and runtime predictions', () => {
  const DAY = 24 * 3_600_000;
  const whole = { cpuMillis: 4000, memoryBytes: 1 << 28, device: null };

  it('wakes when a running prediction runs out, and moves the reservation behind it', async () => {
    h = harness([workerSpec('w1')]);
    const { store, controller, clock, timers, until } = h;
    const p = () => spec('/p', { command: LONG, resources: whole, timeoutMs: DAY, defaultTimeLimit: true });
    store.submit(p());
    controller.start();
    await until(() => store.task('/p/task-0')?.state === 'RUNNING');
    clock.tick(1000);
    h.runtime.exit('/p/task-0', 0);
    await until(() => store.job('/p')!.state === 'SUCCEEDED');
    // Predicted from that run: 1 s. /q waits behind it, reserved at its predicted end.
    store.submit(p());
    await until(() => store.task('/p/task-0')?.state === 'RUNNING');
    const started = store.attempt('/p/task-0', 0)!.startedAt;
    store.submit(spec('/q', { command: LONG, resources: whole, timeoutMs: 60_000 }));
    controller.requestPass();
    await until(() => controller.queueListing().reservations.get('/q') === started + 1000);
    const passes = controller.passes;
    expect(timers.count).toBe(2); // /p's time limit, and the pass at its predicted end
    // No other event: the timer alone runs the pass that doubles the outlived prediction.
    timers.advance(started + 1000 - clock.t);
    await until(() => controller.passes > passes);
    expect(controller.queueListing().reservations.get('/q')).toBe(started + 2000);
    expect(store.job('/q')!.reason).toMatch(/reserved/);
    timers.advance(1000);
    await until(() => controller.queueListing().reservations.get('/q') === started + 4000);
  });
});
