import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../../src/cluster/state/store.js';
import { spec, start, useStoreFile, workerSpec } from './helpers.js';

const { clock, open } = useStoreFile();
const idle = { busy: () => false, dryRun: false, limit: 100 };

function finish(store: ClusterStore, name: string, exitCode = 0): void {
  const n = start(store, `${name}/task-0`);
  store.finishAttempt(`${name}/task-0`, n, { kind: 'exited', exitCode });
}

describe('retention (store.prune)', () => {
  it('prunes whole finished trees and archived runs that ended before the cutoff, with their events, durably', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const firstX = store.submit(spec('/x')).run;
    finish(store, '/x', 3); // the first run of /x fails and is archived by the second
    clock.tick(10);
    const secondX = store.submit(spec('/x')).run;
    finish(store, '/x');
    store.submit(spec('/tree'));
    store.submit(spec('/tree/kid'));
    finish(store, '/tree/kid');
    finish(store, '/tree');
    clock.tick(100);
    const cutoff = clock.now();
    clock.tick(100);
    store.submit(spec('/late'));
    finish(store, '/late');
    expect(store.archive.history(secondX).length).toBeGreaterThan(0);

    const pruned = store.prune(cutoff, idle);
    expect(pruned.map((r) => [r.name, r.run, r.state]).sort()).toEqual(
      [
        ['/tree', 3, 'SUCCEEDED'],
        ['/tree/kid', 4, 'SUCCEEDED'],
        ['/x', firstX, 'FAILED'],
        ['/x', secondX, 'SUCCEEDED'],
      ].sort(),
    );
    expect(pruned.find((r) => r.run === secondX)!.logPaths).toHaveLength(1);
    expect(store.job('/x')).toBeUndefined();
    expect(store.job('/tree/kid')).toBeUndefined();
    expect(store.job('/late')!.state).toBe('SUCCEEDED');
    store.close();

    const again = open();
    expect(again.job('/x')).toBeUndefined();
    expect(again.job('/tree')).toBeUndefined();
    expect(again.archive.get(firstX)).toBeNull();
    expect(again.archive.history(secondX)).toEqual([]);
    expect(again.archive.history(firstX)).toEqual([]);
    expect([...again.jobs()].map((j) => j.name)).toEqual(['/late']);
    again.close();
  });

  it(
    'keeps a finished child of a running parent, a tree that is still stopping, and changes nothing on a dry ' + 'run',
    () => {
      const store = open();
      store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
      store.submit(spec('/parent'));
      start(store, '/parent/task-0');
      store.submit(spec('/parent/kid'));
      finish(store, '/parent/kid');
      store.submit(spec('/held'));
      finish(store, '/held');
      store.submit(spec('/old'));
      finish(store, '/old');
      clock.tick(1000);

      const dry = store.prune(clock.now(), { ...idle, dryRun: true, busy: (job) => job === '/held' });
      expect(dry.map((r) => r.name)).toEqual(['/old']);
      expect(store.job('/old')).toBeDefined();

      const done = store.prune(clock.now(), { ...idle, busy: (job) => job === '/held' });
      expect(done.map((r) => r.name)).toEqual(['/old']);
      expect(store.job('/old')).toBeUndefined();
      expect(store.job('/parent/kid')!.state).toBe('SUCCEEDED');
      expect(store.job('/held')!.state).toBe('SUCCEEDED');
      store.close();
    },
  );

  it('takes at most `limit` archived runs per call, oldest first; the next call takes the rest', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      runs.push(store.submit(spec('/again')).run);
      finish(store, '/again');
      clock.tick(10);
    }
    // Four archived runs and the live one; keep the live one out with a cutoff before it ended.
    const cutoff = clock.now() - 15;
    expect(store.prune(cutoff, { ...idle, limit: 3 }).map((r) => r.run)).toEqual(runs.slice(0, 3));
    expect(store.prune(cutoff, { ...idle, limit: 3 }).map((r) => r.run)).toEqual([runs[3]]);
    expect(store.prune(cutoff, { ...idle, limit: 3 })).toEqual([]);
    expect(store.job('/again')!.run).toBe(runs[4]);
    store.close();
  });
});
