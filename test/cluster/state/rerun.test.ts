import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';

/** A child job /p/c submitted by attempt `attempt` of /p/task-0, running. */
function child(store: ReturnType<typeof memStore>['store'], name: string, attempt: number): void {
  store.submit(spec(name, { submittedBy: { task: '/p/task-0', attempt } }));
  start(store, `${name}/task-0`, 'w2');
}

describe('re-run parents', () => {
  it('a retried parent task ends the children its failed attempt submitted, which may then be submitted again', () => {
    const { store } = memStore();
    store.submit(spec('/p', { maxRetries: 1 }));
    start(store, '/p/task-0');
    child(store, '/p/c', 0);
    store.submit(spec('/p/c/g'));
    start(store, '/p/c/g/task-0', 'w2');
    const stops = store.finishAttempt('/p/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.task('/p/task-0')).toMatchObject({ state: 'PENDING', attempt: 1 });
    expect(store.job('/p/c')).toMatchObject({
      state: 'KILLED',
      reason: 'parent task /p/task-0 is running again (attempt 1)',
    });
    expect(store.job('/p/c/g')).toMatchObject({ state: 'KILLED', reason: 'parent job ended' });
    expect(stops.map((s) => s.task).sort()).toEqual(['/p/c/g/task-0', '/p/c/task-0']);
    // The new attempt submits the same name: it replaces the ended child.
    start(store, '/p/task-0');
    store.submit(spec('/p/c', { submittedBy: { task: '/p/task-0', attempt: 1 } }));
    expect(store.job('/p/c')!.state).toBe('PENDING');
    expect(store.job('/p/c/g')).toBeUndefined();
  });

  it('a preempted parent task ends its children too; a restart of the cluster is such a preemption', () => {
    const { store } = memStore();
    store.submit(spec('/p', { maxPreemptions: 1 }));
    start(store, '/p/task-0');
    child(store, '/p/c', 0);
    store.transaction(() => {
      for (const a of store.activeAttempts()) store.preemptAttempt(a.task, a.attempt, 'cluster restarted');
    });
    expect(store.task('/p/task-0')).toMatchObject({ state: 'PENDING', attempt: 1 });
    expect(store.job('/p/c')).toMatchObject({
      state: 'KILLED',
      reason: 'parent task /p/task-0 is running again (attempt 1)',
    });
    expect(store.attemptsOf('/p/c/task-0').map((a) => a.state)).toEqual(['KILLED']);
  });

  it('keeps children of other tasks, of the current attempt and those submitted from outside', () => {
    const { store } = memStore();
    store.submit(spec('/p', { replicas: 2, maxRetries: 2 }));
    start(store, '/p/task-0');
    start(store, '/p/task-1', 'w2');
    store.submit(spec('/p/mine', { submittedBy: { task: '/p/task-0', attempt: 0 } }));
    store.submit(spec('/p/sibling', { submittedBy: { task: '/p/task-1', attempt: 0 } }));
    store.submit(spec('/p/outside'));
    store.finishAttempt('/p/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.job('/p/mine')!.state).toBe('KILLED');
    expect(store.job('/p/sibling')!.state).toBe('PENDING');
    expect(store.job('/p/outside')!.state).toBe('PENDING');
    start(store, '/p/task-0');
    store.submit(spec('/p/next', { submittedBy: { task: '/p/task-0', attempt: 1 } }));
    store.finishAttempt('/p/task-1', 0, { kind: 'exited', exitCode: 1 });
    expect(store.job('/p/sibling')!.state).toBe('KILLED');
    expect(store.job('/p/next')!.state).toBe('PENDING');
  });
});
