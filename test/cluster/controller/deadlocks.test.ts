/** Deadlocked jobs on the controller: the reason that names the ancestor, the grace period, the reset. */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DEADLOCK_GRACE_MS } from '../../../src/cluster/controller/controller.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => h.close());

const GPU = { cpuMillis: 1000, memoryBytes: 1 << 28, device: { type: 'gpu' as const, variant: 'H100', count: 1 } };
const PARENT = { task: '/train/task-0', job: '/train', attempt: 0 };
/**
 * Run one pass now and wait for it: a pass asked for with resources changed runs at the next
 * setImmediate, or, when the last pass was slow (a loaded machine), after the pass spacing.
 */
async function passNow(): Promise<void> {
  const before = h.controller.passes;
  h.controller.requestPass(true);
  const deadline = Date.now() + 5000;
  while (h.controller.passes === before && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 1));
  expect(h.controller.passes).toBeGreaterThan(before);
}

const REASON = 'deadlock: needs 1 GPU H100; /train/task-0 holds it while waiting on /train/eval';

/** A one-GPU worker; /train runs on its GPU and submits /train/eval, which needs that GPU too. */
async function gpuTree(): Promise<void> {
  h = harness([
    workerSpec('g1', {
      device: { type: 'gpu', variant: 'H100', count: 1 },
      attributes: { 'device-type': 'gpu', 'device-variant': 'H100' },
    }),
  ]);
  const { store, controller, until } = h;
  store.submit(spec('/train', { command: LONG, resources: GPU }));
  controller.start();
  await until(() => store.job('/train')!.state === 'RUNNING');
  store.submit(spec('/train/eval', { command: LONG, resources: GPU }));
  controller.requestPass(false);
  await until(() => store.job('/train/eval')!.reason !== null);
}

describe('deadlocks', () => {
  it('a child that needs the GPU its running parent holds only waits, until the parent waits on it', async () => {
    await gpuTree();
    const { store, controller, clock, until } = h;
    expect(store.job('/train/eval')!.reason).not.toMatch(/deadlock/);
    controller.waits.begin(PARENT, ['/train/eval']);
    await until(() => store.job('/train/eval')!.reason === REASON);
    expect(store.job('/train/eval')!.state).toBe('PENDING');
  });

  it(
    'ends the job UNSCHEDULABLE with the reason after the grace period, and the waiting parent keeps ' + 'running',
    async () => {
      await gpuTree();
      const { store, controller, clock, timers, until } = h;
      controller.waits.begin(PARENT, ['/train/eval']);
      await until(() => store.job('/train/eval')!.reason === REASON);
      timers.advance(DEFAULT_DEADLOCK_GRACE_MS - 1);
      await passNow();
      expect(store.job('/train/eval')!.state).toBe('PENDING');
      timers.advance(1);
      await until(() => store.job('/train/eval')!.state === 'UNSCHEDULABLE');
      expect(store.job('/train/eval')!.reason).toBe(REASON);
      expect(store.task('/train/eval/task-0')!.state).toBe('UNSCHEDULABLE');
      expect(store.job('/train')!.state).toBe('RUNNING');
    },
  );

  it('a job that stops being deadlocked gets its scheduler reason back and its clock starts again', async () => {
    await gpuTree();
    const { store, controller, clock, timers, until } = h;
    const first = controller.waits.begin(PARENT, ['/train/eval']);
    await until(() => store.job('/train/eval')!.reason === REASON);
    timers.advance(20_000);
    controller.waits.end(first);
    await until(() => !store.job('/train/eval')!.reason!.startsWith('deadlock'));
    expect(store.job('/train/eval')!.reason).toMatch(/^need 1 GPUs/);
    controller.waits.begin(PARENT, ['/train/eval']);
    await until(() => store.job('/train/eval')!.reason === REASON);
    // 20 s into the second spell (40 s since the first began): still pending.
    timers.advance(20_000);
    await passNow();
    expect(store.job('/train/eval')!.state).toBe('PENDING');
    timers.advance(DEFAULT_DEADLOCK_GRACE_MS - 20_000);
    await until(() => store.job('/train/eval')!.state === 'UNSCHEDULABLE');
    expect(store.job('/train/eval')!.reason).toBe(REASON);
  });

  it(
    'waitingHolds: a waiting attempt holds its memory and devices, its CPU only while no wait releases ' + 'it',
    async () => {
      await gpuTree();
      const { controller, clock } = h;
      const other = controller.waits.begin(PARENT, ['/elsewhere']);
      expect(controller.waitingHolds()).toEqual([
        {
          task: '/train/task-0',
          job: '/train',
          waitingOn: ['/elsewhere'],
          worker: 'g1',
          cpuMillis: 1000,
          memoryBytes: 1 << 28,
          devices: [0],
        },
      ]);
      controller.waits.begin(PARENT, ['/train/eval']);
      expect(controller.waitingHolds()).toEqual([
        {
          task: '/train/task-0',
          job: '/train',
          waitingOn: ['/elsewhere', '/train/eval'],
          worker: 'g1',
          cpuMillis: 0,
          memoryBytes: 1 << 28,
          devices: [0],
        },
      ]);
      controller.waits.end(other);
      // A wait of an attempt that is no longer running holds nothing.
      controller.waits.begin({ task: '/train/task-0', job: '/train', attempt: 7 }, ['/train/eval']);
      expect(controller.waitingHolds().map((hold) => hold.waitingOn)).toEqual([['/train/eval']]);
    },
  );

  it('a parent waiting on another job, or whose child fits beside it, causes no deadlock', async () => {
    h = harness([workerSpec('w1', { cpuMillis: 2000 })]);
    const { store, controller, clock, timers, until } = h;
    store.submit(spec('/a', { command: LONG }));
    store.submit(spec('/busy', { command: LONG }));
    controller.start();
    await until(() => store.job('/a')!.state === 'RUNNING' && store.job('/busy')!.state === 'RUNNING');
    store.submit(spec('/a/b', { command: LONG }));
    // The parent waits on an unrelated job: it keeps its CPU, but /a/b can have /busy's when it ends.
    controller.waits.begin({ task: '/a/task-0', job: '/a', attempt: 0 }, ['/busy']);
    await until(() => store.job('/a/b')!.reason !== null);
    expect(store.job('/a/b')!.reason).not.toMatch(/deadlock/);
    timers.advance(DEFAULT_DEADLOCK_GRACE_MS);
    await passNow();
    expect(store.job('/a/b')!.state).toBe('PENDING');
    h.runtime.exit('/busy/task-0', 0);
    await until(() => store.job('/a/b')!.state === 'RUNNING');
  });
});
