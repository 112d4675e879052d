import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { JobSpec, WorkerSpec } from '../../../src/model/types.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { StoreEvent } from '../../../src/cluster/state/events.js';

export function spec(name: string, over: Partial<JobSpec> = {}): JobSpec {
  return {
    name,
    user: 'alice',
    command: ['true'],
    env: {},
    cwd: null,
    image: null,
    replicas: 1,
    resources: { cpuMillis: 1000, memoryBytes: 1 << 28, device: null },
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 0,
    timeoutMs: null,
    schedulingTimeoutMs: null,
    ...over,
  };
}

export function workerSpec(id: string, over: Partial<WorkerSpec> = {}): WorkerSpec {
  return {
    id,
    cpuMillis: 4000,
    memoryBytes: 8 << 30,
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: {},
    ...over,
  };
}

/** A controllable clock: starts at 1000, `tick()` advances it. */
export class Clock {
  t = 1000;
  now = (): number => this.t;
  tick(ms = 1): number {
    this.t += ms;
    return this.t;
  }
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'iris-state-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** In-memory store with a fake clock and workers w1..wN. */
export function memStore(workers = 4): { store: ClusterStore; clock: Clock; events: StoreEvent[] } {
  const clock = new Clock();
  const store = ClusterStore.open({ path: ':memory:', now: clock.now });
  store.syncWorkers(Array.from({ length: workers }, (_, i) => workerSpec(`w${i + 1}`)));
  const events: StoreEvent[] = [];
  store.events.on('change', (e) => events.push(e));
  return { store, clock, events };
}

/** Assign and start task `id` on `worker`; returns the attempt number. */
export function start(store: ClusterStore, id: string, worker = 'w1'): number {
  const a = store.assign(id, worker, `/logs/${id.replaceAll('/', '_')}`);
  store.markRunning(id, a.attempt, 4242);
  return a.attempt;
}

/**
 * For a test file: each test gets a store file in a fresh temporary directory (removed after it)
 * and the returned clock, reset to 1000. `open()` opens (or reopens) that test's store.
 */
export function useStoreFile(): { clock: Clock; open: () => ClusterStore } {
  const clock = new Clock();
  let temp: { dir: string; cleanup: () => void } | null = null;
  let file = '';
  beforeEach(() => {
    temp = tempDir();
    file = join(temp.dir, 'cluster.db');
    clock.t = 1000;
  });
  afterEach(() => temp?.cleanup());
  return { clock, open: () => ClusterStore.open({ path: file, now: clock.now, reserveBytes: 0 }) };
}
