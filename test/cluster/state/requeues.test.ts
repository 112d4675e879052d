import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';

/** The requeue events of `name`'s run as `task#attempt reason: detail` lines, oldest first. */
function requeues(
  store: ReturnType<typeof memStore>['store'],
  name: string,
  limit = 20,
): { counts: Record<string, number>; lines: string[] } {
  const { counts, recent } = store.archive.requeues(store.job(name)!.run, limit);
  return { counts, lines: recent.map((e) => `${e.name} ${e.state}: ${e.reason}`) };
}

const STICKY = 'sticky_worker_busy: waiting for worker w1 (where /p/train ran)';

describe('requeue events', () => {
  it('a retried failure records `retry` with the exit, the retry count and the backoff', () => {
    const { store } = memStore();
    store.submit(spec('/r', { maxRetries: 2, retryBackoffMs: 5000 }));
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 3 });
    expect(requeues(store, '/r')).toEqual({
      counts: { retry: 1 },
      lines: ['/r/task-0#0 retry: exit 3; retry 1 of 2, after 5s'],
    });
    // The failure that ends the task for good is not a requeue.
    for (const attempt of [1, 2]) {
      start(store, '/r/task-0');
      store.finishAttempt('/r/task-0', attempt, { kind: 'exited', exitCode: 3 });
    }
    expect(store.job('/r')!.state).toBe('FAILED');
    expect(requeues(store, '/r').counts).toEqual({ retry: 2 });
  });

  it('a preempted gang member records `preemption`, its siblings `gang_restart` naming it', () => {
    const { store } = memStore();
    store.submit(spec('/g', { replicas: 2, coschedule: 'tpu-name', maxPreemptions: 1 }));
    start(store, '/g/task-0', 'w1');
    start(store, '/g/task-1', 'w2');
    store.drainWorker('w2');
    expect(requeues(store, '/g')).toEqual({
      counts: { preemption: 1, gang_restart: 1 },
      lines: [
        '/g/task-1#0 preemption: worker w2 drained',
        '/g/task-0#0 gang_restart: gang member /g/task-1 was preempted',
      ],
    });
  });

  it('a task that fails without retries left records nothing', () => {
    const { store } = memStore();
    store.submit(spec('/once'));
    start(store, '/once/task-0');
    store.finishAttempt('/once/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(requeues(store, '/once')).toEqual({ counts: {}, lines: [] });
  });

  it('a sticky wait is recorded once when it starts, however many passes it lasts, and again after it ended', () => {
    const { store } = memStore();
    store.submit(spec('/p/eval', { replicas: 1 }));
    const passes = [STICKY, STICKY, STICKY];
    for (const reason of passes) store.setPendingReasons(new Map([['/p/eval', reason]]));
    expect(requeues(store, '/p/eval')).toEqual({
      counts: { sticky_worker_busy: 1 },
      lines: ['/p/eval sticky_worker_busy: waiting for worker w1 (where /p/train ran)'],
    });
    // Another reason ends the wait; a new sticky wait is a new event.
    store.setPendingReasons(new Map([['/p/eval', 'no worker has room']]));
    store.setPendingReasons(new Map([['/p/eval', STICKY]]));
    expect(requeues(store, '/p/eval').counts).toEqual({ sticky_worker_busy: 2 });
    // Placed (no PENDING task left): the wait ended even though no pass gave another reason.
    start(store, '/p/eval/task-0');
    store.setPendingReasons(new Map());
    store.finishAttempt('/p/eval/task-0', 0, { kind: 'preempted', reason: 'worker w1 drained' });
    store.setPendingReasons(new Map([['/p/eval', STICKY]]));
    expect(requeues(store, '/p/eval').counts).toEqual({ sticky_worker_busy: 3 });
  });

  it('counts cover every event while the list keeps the latest `limit`, oldest first', () => {
    const { store } = memStore();
    store.submit(spec('/many', { maxRetries: 5 }));
    for (let attempt = 0; attempt < 4; attempt++) {
      start(store, '/many/task-0');
      store.finishAttempt('/many/task-0', attempt, { kind: 'exited', exitCode: attempt + 1 });
    }
    const { counts, lines } = requeues(store, '/many', 2);
    expect(counts).toEqual({ retry: 4 });
    expect(lines).toEqual(['/many/task-0#2 retry: exit 3; retry 3 of 5', '/many/task-0#3 retry: exit 4; retry 4 of 5']);
  });
});

describe('requeue notices', () => {
  it('the store announces each requeue after its transaction commits, and none of a rolled-back one', () => {
    const { store } = memStore();
    const notices: string[] = [];
    store.events.on('requeue', (n) => notices.push(`${n.reason} ${n.job}`));
    store.submit(spec('/r', { maxRetries: 3 }));
    start(store, '/r/task-0');
    store.transaction(() => {
      store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
      expect(notices).toEqual([]);
    });
    expect(notices).toEqual(['retry /r']);
    start(store, '/r/task-0');
    expect(() =>
      store.transaction(() => {
        store.finishAttempt('/r/task-0', 1, { kind: 'exited', exitCode: 1 });
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(notices).toEqual(['retry /r']);
    store.setPendingReasons(new Map([['/r', STICKY]]));
    expect(notices).toEqual(['retry /r', 'sticky_worker_busy /r']);
  });
});
