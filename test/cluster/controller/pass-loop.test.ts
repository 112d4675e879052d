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
