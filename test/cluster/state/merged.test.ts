/**
 * A merged batch in the store (lifecycle/attempts.ts assignMerged, mergedEnd): members follow the
 * lead's attempt; a failure fails each, counted against its own retries; cancelling a member only
 * detaches it; cancelling the lead requeues the members uncounted; the batch survives a reopen.
 */
import { describe, expect, it } from 'vitest';
import { memStore, spec, useStoreFile, workerSpec } from './helpers.js';
import type { ClusterStore } from '../../../src/cluster/state/store.js';

const TASKS = ['/a/task-0', '/b/task-0', '/c/task-0'];

function batch(store: ClusterStore, maxRetries = 0): number {
  for (const name of ['/a', '/b', '/c']) store.submit(spec(name, { maxRetries, mergeKey: 'k' }));
  const lead = store.assignMerged('/a/task-0', ['/b/task-0', '/c/task-0'], 'w1', '/logs/a.log', [], null);
  store.markRunning('/a/task-0', lead.attempt, 4242);
  return lead.attempt;
}

describe('a merged batch', () => {
  it('starts and succeeds together; members share the lead log and hold no process', () => {
    const { store } = memStore();
    batch(store);
    for (const id of TASKS) {
      expect(store.task(id)!.state).toBe('RUNNING');
      expect(store.attempt(id, 0)).toMatchObject({
        workerId: 'w1',
        logPath: '/logs/a.log',
        merged: { lead: '/a/task-0', tasks: TASKS },
      });
    }
    expect(store.attempt('/b/task-0', 0)!.pid).toBeNull();
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    for (const id of TASKS) expect(store.task(id)!.state).toBe('SUCCEEDED');
    expect(store.task('/b/task-0')!.reason).toBe('merged with /a/task-0');
    for (const name of ['/a', '/b', '/c']) expect(store.job(name)!.state).toBe('SUCCEEDED');
  });

  it('a failure fails every member naming the lead and counts against each one retries', () => {
    const { store } = memStore();
    batch(store, 1);
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 3 });
    for (const id of TASKS) {
      const task = store.task(id)!;
      expect(task).toMatchObject({ state: 'PENDING', failures: 1, attempt: 1 });
      expect(store.attempt(id, 0)!.state).toBe('FAILED');
    }
    expect(store.attempt('/c/task-0', 0)!.reason).toMatch(/^merged with \/a\/task-0: /);
    expect(store.attempt('/a/task-0', 0)!.reason).toMatch(/; merged children: \/b\/task-0, \/c\/task-0$/);
    expect(store.attempt('/c/task-0', 0)!.reason).not.toMatch(/merged children/);
  });

  it('a lead stopped by its time limit or killed for memory fails its members the same way', () => {
    for (const [outcome, state] of [
      [{ kind: 'timeout' }, 'TIMEOUT'],
      [{ kind: 'exited', exitCode: 137, signal: 'SIGKILL', reason: 'OOM killed', oom: true }, 'OUT_OF_MEMORY'],
    ] as const) {
      const { store } = memStore();
      batch(store);
      store.finishAttempt('/a/task-0', 0, outcome);
      for (const id of TASKS) expect(store.task(id)!.state).toBe(state);
      for (const name of ['/a', '/b', '/c']) expect(store.job(name)!.state).toBe(state);
    }
  });

  it('cancelling a member detaches it only: the attempt goes on and the others succeed', () => {
    const { store } = memStore();
    batch(store);
    const stops = store.cancel('/b', 'cancelled by user');
    // Only the member's own (processless) attempt is named; the lead's process is not stopped.
    expect(stops.map((s) => s.task)).toEqual(['/b/task-0']);
    expect(store.task('/b/task-0')!.state).toBe('KILLED');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.task('/c/task-0')!.state).toBe('SUCCEEDED');
    expect(store.task('/b/task-0')!.state).toBe('KILLED');
  });

  it('cancelling the lead stops the attempt and requeues the members, uncounted', () => {
    const { store } = memStore();
    batch(store);
    const stops = store.cancel('/a', 'cancelled by user');
    expect(stops.map((s) => s.task)).toEqual(['/a/task-0']);
    for (const id of ['/b/task-0', '/c/task-0']) {
      expect(store.task(id)).toMatchObject({ state: 'PENDING', failures: 0, preemptions: 0, attempt: 1 });
      expect(store.task(id)!.reason).toMatch(/merged with \/a\/task-0, which was stopped/);
    }
    // The lead's process then reports its end: nothing changes for the requeued members.
    store.finishAttempt('/a/task-0', 0, { kind: 'killed', reason: 'stopped' });
    expect(store.task('/b/task-0')!.state).toBe('PENDING');
  });
});

describe('a merged batch on disk', () => {
  const file = useStoreFile();
  it('keeps the batch on every attempt across a reopen, and the members follow the lead after it', () => {
    let store = file.open();
    store.syncWorkers([workerSpec('w1')]);
    batch(store);
    store.close();
    store = file.open();
    expect(store.attempt('/c/task-0', 0)!.merged).toEqual({ lead: '/a/task-0', tasks: TASKS });
    expect(store.job('/b')!.spec.mergeKey).toBe('k');
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    for (const id of TASKS) expect(store.task(id)!.state).toBe('SUCCEEDED');
    store.close();
  });
});
