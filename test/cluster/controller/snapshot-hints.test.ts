import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { memStore, spec, start } from '../state/helpers.js';

const HOUR = 3_600_000;

describe('snapshot: context-reuse hints', () => {
  it('are filled only when a pending job uses keys: fresh hints and the keys of running tasks (loading)', () => {
    const { store, clock } = memStore(3);
    store.submit(spec('/done', { uses: ['llama-3'] }));
    start(store, '/done/task-0', 'w2');
    store.finishAttempt('/done/task-0', 0, { kind: 'exited', exitCode: 0 });
    const ended = clock.t;
    store.submit(spec('/busy', { uses: ['mistral'] }));
    start(store, '/busy/task-0', 'w3');
    store.submit(spec('/plain'));

    // Only a job without uses is pending: no hints are built.
    expect(buildSnapshot(store, new Map(), clock.t).cacheHints).toBeUndefined();

    store.submit(spec('/next', { uses: ['llama-3'] }));
    clock.tick(1000);
    const hints = buildSnapshot(store, new Map(), clock.t).cacheHints!;
    expect(Object.fromEntries([...hints].map(([w, keys]) => [w, [...keys.values()]]))).toEqual({
      w2: [{ key: 'llama-3', expiresAt: ended + HOUR, loading: false }],
      w3: [{ key: 'mistral', expiresAt: clock.t + HOUR, loading: true }],
    });

    // Past the TTL the stored hint is gone from the snapshot; the loading one stays.
    clock.t = ended + HOUR;
    expect([...buildSnapshot(store, new Map(), clock.t).cacheHints!.keys()]).toEqual(['w3']);
  });
});
