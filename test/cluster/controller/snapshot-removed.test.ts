import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { memStore, workerSpec } from '../state/helpers.js';

describe('snapshot: workers removed from the config', () => {
  it('are marked removed (drained for good); a drained worker still configured is not', () => {
    const { store, clock } = memStore(3);
    store.drainWorker('w2');
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    const views = buildSnapshot(store, new Map(), clock.t).workers;
    expect(views.map((w) => [w.id, w.schedulable, w.removed ?? false])).toEqual([
      ['w1', true, false],
      ['w2', false, false],
      ['w3', false, true],
    ]);
    // A configuration that names it again brings it back as it was left: drained, not removed.
    store.syncWorkers([workerSpec('w1'), workerSpec('w2'), workerSpec('w3')]);
    expect(buildSnapshot(store, new Map(), clock.t).workers.find((w) => w.id === 'w3')!.removed).toBeUndefined();
  });
});
