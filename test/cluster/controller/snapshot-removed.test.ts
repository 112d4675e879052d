import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { memStore, spec, start, workerSpec } from '../state/helpers.js';

describe('snapshot: workers removed from the config', () => {
  it('an idle one is in no snapshot, a busy one is marked removed, a drained one configured is not', () => {
    const { store, clock } = memStore(4);
    store.submit(spec('/a'));
    start(store, '/a/task-0', 'w4');
    store.drainWorker('w2');
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    const views = buildSnapshot(store, new Map(), clock.t).workers;
    expect(views.map((w) => [w.id, w.schedulable, w.removed ?? false])).toEqual([
      ['w1', true, false],
      ['w2', false, false],
      ['w4', false, true],
    ]);
    // A configuration that names it again brings it back new: READY, not removed.
    store.syncWorkers([workerSpec('w1'), workerSpec('w2'), workerSpec('w3')]);
    const back = buildSnapshot(store, new Map(), clock.t).workers.find((w) => w.id === 'w3')!;
    expect(back.removed).toBeUndefined();
    expect(back.schedulable).toBe(true);
  });
});
