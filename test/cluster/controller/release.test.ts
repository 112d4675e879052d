/**
 * A task blocked in a wait on its own subtree releases its CPU (docs/architecture.md, "Waiting"):
 * the pass loop, the queue policy, estimates and quotas see it free; memory and devices stay held;
 * when the wait ends the CPU counts again at once and the worker may be oversubscribed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildSnapshot, workerUse } from '../../../src/cluster/controller/snapshot.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => h.close());

const ONE_CPU = [workerSpec('w1', { cpuMillis: 1000 })];
const parent = { task: '/p/task-0', job: '/p', attempt: 0 };

async function parentRunning(over: Parameters<typeof spec>[1] = {}): Promise<void> {
  h.store.submit(spec('/p', { command: LONG, ...over }));
  h.controller.start();
  await h.until(() => h.store.task('/p/task-0')?.state === 'RUNNING');
}

describe('CPU release while a task waits on its subtree', () => {
  it('places the child of a parent that holds the only CPU once the parent waits on it', async () => {
    h = harness(ONE_CPU);
    const { store, controller, until } = h;
    await parentRunning();
    store.submit(spec('/p/c', { command: LONG }));
    controller.requestPass(false);
    await until(() => store.job('/p/c')!.reason !== null);
    expect(store.job('/p/c')!.reason).toMatch(/^need 1 CPU, largest free worker has 0/);

    const wait = controller.waits.begin(parent, ['/p/c']);
    await until(() => store.task('/p/c/task-0')?.state === 'RUNNING');
    expect(store.attempt('/p/c/task-0', 0)!.workerId).toBe('w1');
    controller.waits.end(wait);
  });

  it(
    'takes the CPU back when the wait ends: the worker is oversubscribed and takes nothing new until work ' + 'ends',
    async () => {
      h = harness(ONE_CPU);
      const { store, controller, runtime, until } = h;
      await parentRunning();
      store.submit(spec('/p/c', { command: LONG }));
      const wait = controller.waits.begin(parent, ['/p/c']);
      await until(() => store.task('/p/c/task-0')?.state === 'RUNNING');
      expect(workerUse(store, controller.waits.released()).get('w1')).toMatchObject({
        cpuMillis: 1000,
        cpuReleasedMillis: 1000,
      });

      controller.waits.end(wait);
      const use = workerUse(store, controller.waits.released()).get('w1')!;
      expect(use).toMatchObject({ cpuMillis: 2000, cpuReleasedMillis: 0 });
      const snapshot = buildSnapshot(store, new Map(), h.clock.now(), controller.waits.released());
      expect(snapshot.workers[0]!.free.cpuMillis).toBe(-1000);

      store.submit(spec('/q', { command: LONG }));
      controller.requestPass(true);
      await until(() => store.job('/q')!.reason !== null);
      expect(store.job('/q')!.state).toBe('PENDING');
      expect(store.job('/q')!.reason).toMatch(/^need 1 CPU, largest free worker has 0/);

      // The child ends: the parent's CPU alone fills the worker, /q still waits.
      const passes = controller.passes;
      runtime.exit('/p/c/task-0', 0);
      await until(() => store.job('/p/c')!.state === 'SUCCEEDED');
      // The exit asks for a pass; nothing in the store announces it, so poll (bounded) for it.
      await vi.waitFor(() => expect(controller.passes).toBeGreaterThan(passes), { timeout: 2000, interval: 5 });
      expect(store.job('/q')!.state).toBe('PENDING');

      runtime.exit('/p/task-0', 0);
      await until(() => store.task('/q/task-0')?.state === 'RUNNING');
    },
  );

  it('keeps memory and devices held while the CPU is released', async () => {
    h = harness([workerSpec('g1', { cpuMillis: 1000, device: { type: 'gpu', variant: 'H100', count: 1 } })]);
    const { store, controller, until } = h;
    const gpu = { cpuMillis: 1000, memoryBytes: 1 << 28, device: { type: 'gpu' as const, variant: null, count: 1 } };
    await parentRunning({ resources: gpu });
    const wait = controller.waits.begin(parent, ['/p/c']);
    const snapshot = buildSnapshot(store, new Map(), h.clock.now(), controller.waits.released());
    expect(snapshot.workers[0]!.free).toMatchObject({ cpuMillis: 1000, devices: [] });
    expect(snapshot.workers[0]!.free.memoryBytes).toBe(snapshot.workers[0]!.capacity.memoryBytes - (1 << 28));

    store.submit(spec('/p/c', { command: LONG, resources: gpu }));
    controller.requestPass(false);
    await until(() => store.job('/p/c')!.reason !== null);
    expect(store.job('/p/c')!.state).toBe('PENDING');
    expect(store.job('/p/c')!.reason).toMatch(/GPU/);
    controller.waits.end(wait);
  });

  it("counts a waiting task's CPU as free in its user's usage (quotas) and in the running allocations", async () => {
    h = harness(ONE_CPU);
    const { store, controller } = h;
    await parentRunning({ timeoutMs: 3_600_000 });
    const quotas = new Map([
      [
        'alice',
        {
          maxRunningCpuMillis: 1000,
          maxRunningMemoryBytes: null,
          maxRunningAccelerators: null,
          maxPendingTasks: null,
          weight: 1,
          hard: false,
        },
      ],
    ]);
    const before = buildSnapshot(store, quotas, h.clock.now(), controller.waits.released());
    expect(before.usage.get('alice')!.cpuMillis).toBe(1000);
    expect(before.running).toEqual([expect.objectContaining({ task: '/p/task-0', cpuMillis: 1000 })]);

    const wait = controller.waits.begin(parent, ['/p/c']);
    const during = buildSnapshot(store, quotas, h.clock.now(), controller.waits.released());
    expect(during.usage.get('alice')).toMatchObject({ cpuMillis: 0, memoryBytes: 1 << 28 });
    expect(during.running).toEqual([
      expect.objectContaining({ task: '/p/task-0', cpuMillis: 0, memoryBytes: 1 << 28 }),
    ]);
    controller.waits.end(wait);
  });

  it('a wait on an unrelated job keeps the CPU', async () => {
    h = harness(ONE_CPU);
    const { store, controller } = h;
    await parentRunning();
    const wait = controller.waits.begin(parent, ['/elsewhere']);
    expect(buildSnapshot(store, new Map(), h.clock.now(), controller.waits.released()).workers[0]!.free.cpuMillis).toBe(
      0,
    );
    controller.waits.end(wait);
  });

  it(
    "gives the child of a waiting parent no reservation behind the parent's time limit (queue, " + 'estimate)',
    async () => {
      h = harness(ONE_CPU);
      const { store, controller, until } = h;
      await parentRunning({ timeoutMs: 3_600_000 });
      const parentEnds = store.attempt('/p/task-0', 0)!.startedAt + 3_600_000;

      // Without release the child would be reserved behind its own parent.
      expect(controller.estimate(spec('/p/c', { command: LONG })).start).toBe(parentEnds);

      const wait = controller.waits.begin(parent, ['/p/c']);
      const estimate = controller.estimate(spec('/p/c', { command: LONG }));
      expect(estimate.start).toBe(estimate.now);

      store.submit(spec('/p/c', { command: LONG }));
      controller.requestPass(false);
      await until(() => store.task('/p/c/task-0')?.state === 'RUNNING');
      expect(controller.queueListing().reservations.size).toBe(0);
      controller.waits.end(wait);
    },
  );
});
