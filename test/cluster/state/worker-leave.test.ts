/**
 * Workers that leave the cluster (worker-sync.ts, lifecycle/workers.ts): gone from the live views
 * when idle, DRAINING until their last attempt ends otherwise, refused by disable/enable/resume
 * with how they come back, READY again when named again; their history stays.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memStore, spec, start, useStoreFile, workerSpec } from './helpers.js';

const ids = (store: ReturnType<typeof memStore>['store']) => store.workers().map((w) => w.id);

describe('workers that leave the cluster', () => {
  it('an idle worker no longer configured is gone from the live views; its history stays', () => {
    const { store } = memStore(3);
    store.submit(spec('/a'));
    start(store, '/a/task-0', 'w3');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    expect(ids(store)).toEqual(['w1', 'w2']);
    expect(store.worker('w3')).toMatchObject({ state: 'DRAINED', left: { by: 'config' } });
    expect(store.attemptsOf('/a/task-0')[0]!.workerId).toBe('w3');
    expect(store.history('w3').map((h) => [h.state, h.reason])).toEqual([
      ['READY', null],
      ['DRAINED', 'left the cluster: no longer in the configuration'],
    ]);
  });

  it('one still running tasks drains (no new work, its tasks go on) and is gone once the last ends', () => {
    const { store, events } = memStore(2);
    store.submit(spec('/a', { replicas: 2 }));
    start(store, '/a/task-0', 'w2');
    start(store, '/a/task-1', 'w2');
    store.syncWorkers([workerSpec('w1')]);
    expect(store.worker('w2')).toMatchObject({ state: 'DRAINING', left: { by: 'config' } });
    expect(ids(store)).toEqual(['w1', 'w2']);
    expect(store.task('/a/task-0')!.state).toBe('RUNNING');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.worker('w2')!.state).toBe('DRAINING');
    events.length = 0;
    store.finishAttempt('/a/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.worker('w2')!.state).toBe('DRAINED');
    expect(ids(store)).toEqual(['w1']);
    expect(events).toContainEqual({ type: 'worker', worker: expect.objectContaining({ id: 'w2', state: 'DRAINED' }) });
    expect(store.history('w2').map((h) => h.state)).toEqual(['READY', 'DRAINING', 'DRAINED']);
  });

  it('disable, enable and resume refuse a worker that left, saying how it comes back; drain stops its tasks', () => {
    const { store } = memStore(3);
    store.submit(spec('/a', { maxPreemptions: 3 }));
    start(store, '/a/task-0', 'w3');
    store.disableWorker('w2', 'user', 'broken fan');
    store.syncWorkers([workerSpec('w1')]);
    for (const op of [
      () => store.resumeWorker('w2'),
      () => store.enableWorker('w2'),
      () => store.disableWorker('w2', 'user', ''),
      () => store.drainWorker('w2'),
      () => store.disableWorker('w3', 'user', ''),
    ]) {
      expect(op).toThrow(
        expect.objectContaining({
          code: 'conflict',
          message: expect.stringMatching(/^worker w[23] has left the cluster: it is no longer in the cluster's/),
          hint: expect.stringContaining('declare it again under `workers:` (or `slices:`) in the config file'),
        }),
      );
    }
    const stops = store.drainWorker('w3');
    expect(stops.map((s) => s.task)).toEqual(['/a/task-0']);
    expect(store.task('/a/task-0')!.state).toBe('PENDING');
    expect(ids(store)).toEqual(['w1']);
  });

  it('a worker named again comes back READY, its drain, disable and departure forgotten', () => {
    const { store } = memStore(2);
    store.drainWorker('w2');
    store.syncWorkers([workerSpec('w1')]);
    store.syncWorkers([workerSpec('w1'), workerSpec('w2', { cpuMillis: 500 })]);
    expect(store.worker('w2')).toEqual({ ...workerSpec('w2', { cpuMillis: 500 }), state: 'READY' });
    expect(ids(store)).toEqual(['w1', 'w2']);
  });

  it('saying the same workers again changes nothing (no event, no history)', () => {
    const { store, events } = memStore(2);
    store.syncWorkers([workerSpec('w1')]);
    const before = store.history('w2').length;
    events.length = 0;
    store.syncWorkers([workerSpec('w1')]);
    expect(store.history('w2')).toHaveLength(before);
    expect(events).toEqual([]);
  });

  it('property: the live workers are the configured ones plus those that left with tasks still running', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        (keep, busy) => {
          const { store } = memStore(4);
          const all = ['w1', 'w2', 'w3', 'w4'];
          all.forEach((id, i) => {
            if (!busy[i]) return;
            store.submit(spec(`/j${i}`));
            start(store, `/j${i}/task-0`, id);
          });
          store.syncWorkers(all.filter((_, i) => keep[i]).map((id) => workerSpec(id)));
          expect(ids(store)).toEqual(all.filter((_, i) => keep[i] || busy[i]));
          all.forEach((id, i) => {
            if (busy[i]) store.finishAttempt(`/j${i}/task-0`, 0, { kind: 'exited', exitCode: 0 });
          });
          expect(ids(store)).toEqual(all.filter((_, i) => keep[i]));
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('a worker that left, saved', () => {
  const file = useStoreFile();

  it('stays gone after a reopen, with when and why it left', () => {
    const store = file.open();
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    file.clock.t = 5000;
    store.syncWorkers([workerSpec('w1')]);
    store.close();
    const again = file.open();
    try {
      expect(again.workers().map((w) => w.id)).toEqual(['w1']);
      expect(again.worker('w2')).toMatchObject({ state: 'DRAINED', left: { by: 'config', at: 5000 } });
    } finally {
      again.close();
    }
  });
});
