import { afterEach, describe, expect, it } from 'vitest';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';
import type { FakeRuntime } from '../../runtime/fake/runtime.js';
import type { RunningTask, TaskRuntime } from '../../../src/runtime/types.js';

let h: Harness;
afterEach(async () => {
  gate.open();
  await h.close();
});

/** Holds every stop until `open()`: a task that ignores SIGTERM for as long as the test wants. */
function stubbornGate() {
  let release!: () => void;
  let opened = new Promise<void>((resolve) => (release = resolve));
  return {
    wait: () => opened,
    open: () => release(),
    reset: () => (opened = new Promise<void>((resolve) => (release = resolve))),
  };
}
let gate = stubbornGate();

function stubborn(inner: FakeRuntime): TaskRuntime {
  return {
    name: 'stubborn',
    launch: (launch) => inner.launch(launch),
    stop: async (task: RunningTask, graceMs: number) => {
      await gate.wait();
      await inner.stop(task, graceMs);
    },
    reclaim: (id, records, graceMs) => inner.reclaim(id, records, graceMs),
    close: () => inner.close(),
  };
}

/** Ask for a pass and resolve once one has run (what it decided is then in the store). */
async function afterPass(h: Harness): Promise<void> {
  const before = h.controller.passes;
  h.controller.requestPass();
  while (h.controller.passes === before) await new Promise((r) => setImmediate(r));
}

const FULL = { resources: { cpuMillis: 4000, memoryBytes: 1 << 28, device: null } };

describe('capacity is held until the process is gone', () => {
  it('a cancelled task keeps its CPU until its process has exited', async () => {
    gate = stubbornGate();
    h = harness([workerSpec('w1')], stubborn);
    const { store, controller, runtime, until } = h;
    store.submit(spec('/old', { command: LONG, ...FULL }));
    controller.start();
    await until(() => store.task('/old/task-0')!.state === 'RUNNING');
    controller.applyStopOrders(store.cancel('/old', 'cancelled by user'));
    expect(store.job('/old')!.state).toBe('KILLED');
    store.submit(spec('/new', { command: LONG, ...FULL }));
    await afterPass(h);
    // Still running, so still holding the worker: the new job waits.
    expect(runtime.running().map((k) => k.task)).toEqual(['/old/task-0']);
    expect(store.task('/new/task-0')!.state).toBe('PENDING');
    expect(controller.held().map((a) => [a.task, a.attempt, a.workerId])).toEqual([['/old/task-0', 0, 'w1']]);
    gate.open();
    await until(() => store.task('/new/task-0')!.state === 'RUNNING');
    expect(controller.held()).toEqual([]);
    expect(runtime.running().map((k) => k.task)).toEqual(['/new/task-0']);
  });

  it('a preempted task is not placed again, nor anything else, until its earlier attempt is gone', async () => {
    gate = stubbornGate();
    h = harness([workerSpec('w1'), workerSpec('w2')], stubborn);
    const { store, controller, runtime, until } = h;
    store.submit(spec('/p', { command: LONG, maxPreemptions: 1, ...FULL }));
    store.submit(spec('/q', { command: LONG, ...FULL }));
    controller.start();
    await until(() => store.task('/p/task-0')!.state === 'RUNNING' && store.task('/q/task-0')!.state === 'RUNNING');
    const worker = store.task('/p/task-0')!.workerId!;
    controller.applyStopOrders(store.drainWorker(worker));
    await afterPass(h);
    // The drained worker's attempt still runs there; the other worker is full: nothing new starts.
    expect(store.task('/p/task-0')!.state).toBe('PENDING');
    expect(runtime.launches.length).toBe(2);
    controller.applyStopOrders(store.cancel('/q', 'cancelled by user'));
    await afterPass(h);
    expect(store.task('/p/task-0')!.state).toBe('PENDING');
    gate.open();
    await until(() => store.task('/p/task-0')!.state === 'RUNNING');
    expect(store.task('/p/task-0')!.attempt).toBe(1);
  });
});
