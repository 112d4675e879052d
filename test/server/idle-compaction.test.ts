import { describe, expect, it } from 'vitest';
import { COMPACT_AFTER_GROWTH_BYTES, startIdleCompaction } from '../../src/server/idle-compaction.js';
import { memStore, spec, start } from '../cluster/state/helpers.js';

const MB = 1024 * 1024;
/** The compaction runs after the triggering event has reached everyone: at the next setImmediate. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A heap whose size the test sets, and a collection that counts its runs and shrinks it back. */
function fakeHeap(bytes = 30 * MB) {
  const heap = { bytes, runs: 0 };
  const collect = (): void => {
    heap.runs++;
    heap.bytes = 30 * MB;
  };
  return { heap, collect, heapBytes: () => heap.bytes };
}

describe('idle compaction', () => {
  it(
    'runs once when the last job ends with nothing queued or running, after the end event, and only after the heap ' +
      'grew enough',
    async () => {
      const { store } = memStore();
      const { heap, collect, heapBytes } = fakeHeap();
      const compaction = startIdleCompaction(store, { collect, heapBytes });
      store.submit(spec('/a'));
      store.submit(spec('/b'));
      start(store, '/a/task-0', 'w1');
      start(store, '/b/task-0', 'w2');
      heap.bytes += COMPACT_AFTER_GROWTH_BYTES + MB;
      store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
      expect(store.job('/a')!.state).toBe('SUCCEEDED');
      await settle();
      expect(heap.runs, 'job /b still runs: no compaction yet').toBe(0);
      store.finishAttempt('/b/task-0', 0, { kind: 'exited', exitCode: 1 });
      expect(store.job('/b')!.state).toBe('FAILED');
      expect(heap.runs, 'not inside the end event').toBe(0);
      await settle();
      expect(heap.runs).toBe(1);
      expect(compaction.count).toBe(1);

      // The next quiet moment, with the heap grown by less than the threshold: nothing.
      store.submit(spec('/c'));
      start(store, '/c/task-0', 'w1');
      heap.bytes += COMPACT_AFTER_GROWTH_BYTES - MB;
      store.finishAttempt('/c/task-0', 0, { kind: 'exited', exitCode: 0 });
      await settle();
      expect(heap.runs).toBe(1);
    },
  );

  it('a submission right after the end cancels the compaction (checked again when it would run)', async () => {
    const { store } = memStore();
    const { heap, collect, heapBytes } = fakeHeap();
    startIdleCompaction(store, { collect, heapBytes });
    store.submit(spec('/a'));
    start(store, '/a/task-0', 'w1');
    heap.bytes += 2 * COMPACT_AFTER_GROWTH_BYTES;
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.submit(spec('/next'));
    await settle();
    expect(heap.runs).toBe(0);
  });

  it('waits while tasks are still queued', async () => {
    const { store } = memStore(1);
    const { heap, collect, heapBytes } = fakeHeap();
    startIdleCompaction(store, { collect, heapBytes });
    store.submit(spec('/a'));
    store.submit(spec('/queued'));
    start(store, '/a/task-0', 'w1');
    heap.bytes += 2 * COMPACT_AFTER_GROWTH_BYTES;
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.task('/queued/task-0')!.state).toBe('PENDING');
    await settle();
    expect(heap.runs).toBe(0);
  });

  it(
    'compactNow runs one at once; a failing collection never reaches the store; without a collection nothing ' +
      'happens',
    async () => {
      const { store } = memStore();
      const { heap, collect, heapBytes } = fakeHeap();
      startIdleCompaction(store, { collect, heapBytes }).compactNow();
      expect(heap.runs).toBe(1);

      const failing = memStore();
      startIdleCompaction(failing.store, {
        collect: () => {
          throw new Error('no');
        },
        heapBytes: () => (heap.bytes += COMPACT_AFTER_GROWTH_BYTES),
      });
      failing.store.submit(spec('/a'));
      start(failing.store, '/a/task-0', 'w1');
      expect(() => failing.store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 })).not.toThrow();
      expect(failing.store.job('/a')!.state).toBe('SUCCEEDED');
      await settle();

      const none = startIdleCompaction(memStore().store, { collect: null });
      none.compactNow();
      expect(none.count).toBe(0);
    },
  );
  it('request (finished jobs left memory): one compaction once quiet, whatever the growth', async () => {
    const { store } = memStore();
    const { heap, collect, heapBytes } = fakeHeap();
    const compaction = startIdleCompaction(store, { collect, heapBytes });
    store.submit(spec('/busy'));
    start(store, '/busy/task-0', 'w1');
    compaction.request();
    await settle();
    expect(heap.runs, 'a task runs: not quiet').toBe(0);
    store.finishAttempt('/busy/task-0', 0, { kind: 'exited', exitCode: 0 });
    await settle();
    expect(heap.runs, 'no growth: a job end alone does not compact').toBe(0);
    compaction.request();
    compaction.request();
    await settle();
    expect(heap.runs).toBe(1);
    compaction.stop();
  });
});
