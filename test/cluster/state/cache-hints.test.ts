import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { Clock, memStore, spec, start, useStoreFile, workerSpec } from './helpers.js';

const HOUR = 3_600_000;
const USES = { uses: ['llama-3', 'wiki'] };

/** worker -> key -> [expiresAt, loading], for readable expectations. */
function hints(store: ClusterStore): Record<string, Record<string, [number, boolean]>> {
  const out: Record<string, Record<string, [number, boolean]>> = {};
  for (const [worker, keys] of store.cacheHints()) {
    out[worker] = Object.fromEntries([...keys.values()].map((h) => [h.key, [h.expiresAt, h.loading]]));
  }
  return out;
}

describe('context-reuse cache hints in the store', () => {
  it(
    'an attempt of a job that uses keys leaves a hint per key on its worker, expiring end time + TTL (default ' + '1h)',
    () => {
      const { store, clock } = memStore();
      store.submit(spec('/a', USES));
      start(store, '/a/task-0', 'w2');
      clock.tick(5000);
      store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
      const end = clock.t;
      expect(hints(store)).toEqual({ w2: { 'llama-3': [end + HOUR, false], wiki: [end + HOUR, false] } });
      clock.t = end + HOUR - 1;
      expect(Object.keys(hints(store))).toEqual(['w2']);
      clock.t = end + HOUR; // lapsed: no longer in force
      expect(hints(store)).toEqual({});
    },
  );

  it('failed, killed and preempted attempts that ran leave hints too; one that never started leaves none', () => {
    const { store } = memStore();
    store.submit(spec('/f', { uses: ['f'] }));
    start(store, '/f/task-0', 'w1');
    store.finishAttempt('/f/task-0', 0, { kind: 'exited', exitCode: 3 });
    store.submit(spec('/k', { uses: ['k'] }));
    start(store, '/k/task-0', 'w2');
    store.cancel('/k', 'cancelled by alice');
    store.submit(spec('/p', { uses: ['p'], maxPreemptions: 1 }));
    start(store, '/p/task-0', 'w3');
    store.preemptAttempt('/p/task-0', 0, 'worker lost');
    // launch failure: assigned, never marked running
    store.submit(spec('/l', { uses: ['l'] }));
    store.assign('/l/task-0', 'w4', '/logs/l');
    store.finishAttempt('/l/task-0', 0, { kind: 'launch_failed', reason: 'no such file' });
    // cancelled while still assigned
    store.submit(spec('/c', { uses: ['c'] }));
    store.assign('/c/task-0', 'w4', '/logs/c');
    store.cancel('/c', 'cancelled by alice');
    expect(Object.fromEntries(Object.entries(hints(store)).map(([w, keys]) => [w, Object.keys(keys)]))).toEqual({
      w1: ['f'],
      w2: ['k'],
      w3: ['p'],
    });
  });

  it('a job without uses leaves no hint', () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    start(store, '/a/task-0');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(hints(store)).toEqual({});
  });

  it('a later run on the same worker refreshes the expiry', () => {
    const { store, clock } = memStore();
    store.submit(spec('/a', USES));
    start(store, '/a/task-0', 'w1');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    clock.tick(30 * 60_000);
    store.submit(spec('/b', { uses: ['llama-3'] }));
    start(store, '/b/task-0', 'w1');
    store.finishAttempt('/b/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(hints(store).w1).toEqual({ 'llama-3': [clock.t + HOUR, false], wiki: [1000 + HOUR, false] });
  });

  it('while a task using a key is assigned or running on a worker, the worker is loading it (not stored)', () => {
    const { store, clock } = memStore();
    store.submit(spec('/a', { uses: ['llama-3'] }));
    store.assign('/a/task-0', 'w3', '/logs/a');
    expect(hints(store)).toEqual({ w3: { 'llama-3': [clock.t + HOUR, true] } });
    store.markRunning('/a/task-0', 0, 7);
    clock.tick(10);
    expect(hints(store)).toEqual({ w3: { 'llama-3': [clock.t + HOUR, true] } });
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(hints(store)).toEqual({ w3: { 'llama-3': [clock.t + HOUR, false] } });
  });

  it('the TTL comes from the store options (config placement.cache-ttl)', () => {
    const clock = new Clock();
    const store = ClusterStore.open({ path: ':memory:', now: clock.now, cacheTtlMs: 60_000 });
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/a', { uses: ['m'] }));
    start(store, '/a/task-0');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(hints(store)).toEqual({ w1: { m: [clock.t + 60_000, false] } });
  });

  it('a rolled-back transaction leaves no hint', () => {
    const { store } = memStore();
    store.submit(spec('/a', USES));
    start(store, '/a/task-0');
    expect(() =>
      store.transaction(() => {
        store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    // still running: loading only
    expect(hints(store)).toEqual({ w1: { 'llama-3': [1000 + HOUR, true], wiki: [1000 + HOUR, true] } });
    store.cancel('/a', 'x'); // kills it after it ran: now a stored hint
    expect(Object.values(hints(store).w1!).map(([, loading]) => loading)).toEqual([false, false]);
  });

  it('a worker that leaves the configuration loses its hints; the others keep theirs', () => {
    const { store } = memStore(2);
    store.submit(spec('/a', { uses: ['m'] }));
    start(store, '/a/task-0', 'w1');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.submit(spec('/b', { uses: ['m'] }));
    start(store, '/b/task-0', 'w2');
    store.finishAttempt('/b/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.syncWorkers([workerSpec('w2')]);
    expect(Object.keys(hints(store))).toEqual(['w2']);
  });
});

describe('cache hints on disk', () => {
  const { clock, open } = useStoreFile();

  it('persist across a reopen; a rollback, a removed worker and pruned expired hints stay gone after it', () => {
    let store = open();
    store.syncWorkers([workerSpec('w1'), workerSpec('w2'), workerSpec('w3')]);
    for (const [job, worker, key] of [
      ['/a', 'w1', 'm'],
      ['/b', 'w2', 'n'],
      ['/c', 'w3', 'o'],
    ] as const) {
      store.submit(spec(job, { uses: [key] }));
      start(store, `${job}/task-0`, worker);
    }
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/b/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(() =>
      store.transaction(() => {
        store.finishAttempt('/c/task-0', 0, { kind: 'exited', exitCode: 0 });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    store.close();

    store = open();
    // /c still runs after the reopen: w3 is loading o, from the live attempt, not from a row.
    expect(hints(store)).toEqual({
      w1: { m: [1000 + HOUR, false] },
      w2: { n: [1000 + HOUR, false] },
      w3: { o: [1000 + HOUR, true] },
    });
    store.syncWorkers([workerSpec('w1'), workerSpec('w3')]);
    store.cancel('/c', 'x');
    store.close();

    store = open();
    expect(hints(store)).toEqual({ w1: { m: [1000 + HOUR, false] }, w3: { o: [1000 + HOUR, false] } });
    clock.t = 1000 + HOUR + 1;
    store.prune(0, { dryRun: false, busy: () => false, limit: 100 });
    store.close();

    store = open();
    clock.t = 0; // rows that were pruned do not come back even where the clock would make them fresh
    expect(hints(store)).toEqual({});
    store.close();
  });
});
