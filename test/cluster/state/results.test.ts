import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../../src/cluster/state/store.js';
import { countingAttempts, current } from '../../../src/cluster/state/results.js';
import { IrisError } from '../../../src/model/errors.js';
import { spec, start, useStoreFile, workerSpec } from './helpers.js';

const { clock, open } = useStoreFile();
const idle = { busy: () => false, dryRun: false, limit: 100 };

/** The results that count for the job's live run, as [index, key, value]. */
function resultsOf(store: ClusterStore, job: string): [number, string, string][] {
  const live = store.job(job)!;
  const attempts = new Map(store.tasksOf(job).map((t) => [t.index, t.attempt]));
  return current(store.resultRows(live.run), attempts).map((r) => [r.index, r.key, r.value]);
}

describe('task results in the store', () => {
  it('are durable, overwrite by key, and belong to the running attempt only', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/train', { replicas: 2 }));
    const n0 = start(store, '/train/task-0');
    const n1 = start(store, '/train/task-1');
    store.setResults('/train/task-0', n0, { checkpoint: '/ckpt/1', loss: '0.9' });
    store.setResults('/train/task-0', n0, { checkpoint: '/ckpt/2' });
    store.setResults('/train/task-1', n1, { loss: '0.8' });
    store.finishAttempt('/train/task-0', n0, { kind: 'exited', exitCode: 0 });
    let refused: unknown;
    try {
      store.setResults('/train/task-0', n0, { late: 'x' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(IrisError);
    expect((refused as IrisError).code).toBe('conflict');
    store.close();

    const again = open();
    expect(resultsOf(again, '/train')).toEqual([
      [0, 'checkpoint', '/ckpt/2'],
      [0, 'loss', '0.9'],
      [1, 'loss', '0.8'],
    ]);
    again.close();
  });

  it('caps the keys of one attempt at 256, a key set again not counting twice', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/many'));
    const n = start(store, '/many/task-0');
    const entries = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, 'v']));
    store.setResults('/many/task-0', n, entries);
    store.setResults('/many/task-0', n, { k0: 'again' });
    expect(() => store.setResults('/many/task-0', n, { k256: 'v' })).toThrow('would hold 257 results, more than 256');
    expect(resultsOf(store, '/many')).toHaveLength(256);
    store.close();
  });

  it('a retried task starts clean: only its latest attempt counts', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/flaky', { maxRetries: 1 }));
    const first = start(store, '/flaky/task-0');
    store.setResults('/flaky/task-0', first, { checkpoint: '/ckpt/bad' });
    store.finishAttempt('/flaky/task-0', first, { kind: 'exited', exitCode: 1 });
    expect(resultsOf(store, '/flaky')).toEqual([]); // requeued: attempt 1 has set nothing yet
    const second = start(store, '/flaky/task-0');
    store.setResults('/flaky/task-0', second, { loss: '0.1' });
    expect(resultsOf(store, '/flaky')).toEqual([[0, 'loss', '0.1']]);
    store.close();
  });

  it('stay readable with an archived run and are pruned with it', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const firstRun = store.submit(spec('/x')).run;
    const a = start(store, '/x/task-0');
    store.setResults('/x/task-0', a, { checkpoint: '/ckpt/run1' });
    store.finishAttempt('/x/task-0', a, { kind: 'exited', exitCode: 0 });
    clock.tick(10);
    const secondRun = store.submit(spec('/x')).run; // archives the first run
    const b = start(store, '/x/task-0');
    store.setResults('/x/task-0', b, { checkpoint: '/ckpt/run2' });
    store.finishAttempt('/x/task-0', b, { kind: 'exited', exitCode: 0 });
    store.close();

    const reopened = open();
    expect(reopened.archive.get(firstRun)).not.toBeNull();
    expect(reopened.resultRows(firstRun).map((r) => r.value)).toEqual(['/ckpt/run1']);
    expect(reopened.resultRows(secondRun).map((r) => r.value)).toEqual(['/ckpt/run2']);
    clock.tick(100);
    reopened.prune(clock.now(), idle);
    expect(reopened.resultRows(firstRun)).toEqual([]);
    expect(reopened.resultRows(secondRun)).toEqual([]);
    reopened.close();
  });
});

describe('countingAttempts: a preempted task keeps what it published before its stop', () => {
  const counts = [
    { index: 0, attempt: 0, n: 2 },
    { index: 1, attempt: 0, n: 1 },
    { index: 2, attempt: 0, n: 1 },
    { index: 2, attempt: 1, n: 1 },
  ];
  const preemptedAttempts = new Set(['0:0', '2:0']);
  const preempted = (index: number, attempt: number) => preemptedAttempts.has(`${index}:${attempt}`);

  it.each([
    ['attempt 0 was preempted and attempt 1 published nothing: attempt 0 counts', 0, 1, 0],
    ['attempt 0 failed (a retry): attempt 1 starts clean', 1, 1, 1],
    ['attempt 1 published its own: it counts', 2, 1, 1],
    ['the current attempt is the first', 3, 0, 0],
  ])('%s', (_what, index, attempt, expected) => {
    expect(countingAttempts([{ index, attempt }], counts, preempted).get(index)).toBe(expected);
  });
});
