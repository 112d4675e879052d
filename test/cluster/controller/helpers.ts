import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, type ControllerOptions } from '../../../src/cluster/controller/controller.js';
import type { Timers } from '../../../src/cluster/controller/timers.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { WorkerSpec } from '../../../src/model/types.js';
import { FakeRuntime } from '../../runtime/fake/runtime.js';
import type { TaskRuntime } from '../../../src/runtime/types.js';
import { Clock, workerSpec as stateWorkerSpec } from '../state/helpers.js';

export { spec } from '../state/helpers.js';

/** A worker with 4 CPUs and 8 GiB (the state helpers' worker has no memory to place tasks in). */
export function workerSpec(id: string, over: Partial<WorkerSpec> = {}): WorkerSpec {
  return stateWorkerSpec(id, { memoryBytes: 8 * 1024 ** 3, ...over });
}

/** Timers a test fires by hand: `advance(ms)` moves the clock and runs what fell due, in order. */
export class ManualTimers implements Timers {
  private pending: Array<{ at: number; fn: () => void; live: boolean }> = [];

  constructor(private readonly clock: Clock) {}

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.clock.t + ms, fn, live: true };
    this.pending.push(timer);
    return () => (timer.live = false);
  }

  get count(): number {
    return this.pending.filter((t) => t.live).length;
  }

  advance(ms: number): void {
    this.clock.tick(ms);
    const due = this.pending.filter((t) => t.live && t.at <= this.clock.t).sort((a, b) => a.at - b.at);
    this.pending = this.pending.filter((t) => t.live && t.at > this.clock.t);
    for (const t of due) t.fn();
  }
}

export interface Harness {
  store: ClusterStore;
  runtime: FakeRuntime;
  controller: Controller;
  clock: Clock;
  timers: ManualTimers;
  /** Resolves once `pred` holds (checked now and after every store change). */
  until(pred: () => boolean): Promise<void>;
  close(): Promise<void>;
}

/** A controller on a real in-memory store, the FakeRuntime, a hand-driven clock and timers. */
/**
 * `home`: the state directory for logs (default: a fresh temporary one, removed at close); `over`: more controller
 * options.
 */
export function harness(
  workers: WorkerSpec[] = [workerSpec('w1'), workerSpec('w2')],
  wrap: (runtime: FakeRuntime) => TaskRuntime = (r) => r,
  given?: string,
  over: Partial<ControllerOptions> = {},
): Harness {
  const clock = new Clock();
  const timers = new ManualTimers(clock);
  const store = ClusterStore.open({ path: ':memory:', now: clock.now });
  store.syncWorkers(workers);
  const runtime = new FakeRuntime({ now: clock.now });
  const home = given ?? mkdtempSync(join(tmpdir(), 'iris-controller-'));
  const controller = new Controller({
    store,
    runtime: wrap(runtime),
    quotas: new Map(),
    stopGraceMs: 1000,
    now: clock.now,
    timers,
    launchContext: {
      clusterId: 'c-test',
      home,
      socketPath: join(home, 'iris.sock'),
      cliBinDir: join(home, 'bin'),
      baseEnv: { PATH: '/usr/bin:/bin' },
    },
    ...over,
  });
  const until = (pred: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (pred()) return resolve();
      const check = () => {
        if (!pred()) return;
        store.events.off('change', check);
        resolve();
      };
      store.events.on('change', check);
    });
  return {
    store,
    runtime,
    controller,
    clock,
    timers,
    until,
    async close() {
      await controller.shutdown('test over');
      await runtime.close();
      store.close();
      if (given === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A command that runs until the test ends it (runtime.exit) or iris stops it. */
export const LONG = ['sh', '-c', 'sleep 1000'];
