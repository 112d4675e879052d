import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { memStore, spec } from '../state/helpers.js';

// Issue 36: a pending job is in every pass's snapshot until it starts; its scheduler view (and the
// placement keys kept per view, placement/fit.ts) is made once, not once per pass.
describe('snapshot: scheduler views of pending jobs', () => {
  it('keeps one view per job across passes, and makes a new one when its spec is replaced', () => {
    const { store, clock } = memStore(1);
    store.submit(spec('/a', { replicas: 3 }));
    store.submit(spec('/b'));
    const first = buildSnapshot(store, new Map(), clock.t).jobs;
    const second = buildSnapshot(store, new Map(), clock.t + 1000).jobs;
    expect(second.get('/a')).toBe(first.get('/a'));
    expect(second.get('/b')).toBe(first.get('/b'));
    // A band change replaces the job's spec: the next view says so.
    store.setBand('/a', 'batch');
    const third = buildSnapshot(store, new Map(), clock.t + 2000).jobs;
    expect(third.get('/a')).not.toBe(first.get('/a'));
    expect(third.get('/a')!.band).toBe('batch');
    expect(third.get('/b')).toBe(first.get('/b'));
  });
});
