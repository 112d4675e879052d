import { describe, expect, it } from 'vitest';
import { jobReason, NOT_YET_CONSIDERED, taskReason } from '../../src/server/pending-reason.js';
import { memStore, spec, start } from '../cluster/state/helpers.js';

describe('pending reasons in the views', () => {
  it('a partly running array: the job says how many tasks wait and why, each waiting task the reason', () => {
    const { store, clock } = memStore();
    store.submit(spec('/arr', { replicas: 3 }));
    start(store, '/arr/task-0', 'w1');
    start(store, '/arr/task-1', 'w2');
    const job = store.job('/arr')!;
    expect(job.state).toBe('RUNNING');
    expect(taskReason(store, job, store.task('/arr/task-2')!, clock.t)).toBe(NOT_YET_CONSIDERED);
    store.setPendingReasons(new Map([['/arr', 'need 2 CPU, largest free worker has 1']]));
    expect(jobReason(store, job, store.tasksOf('/arr'), clock.t)).toBe(
      '1 pending: need 2 CPU, largest free worker has 1',
    );
    expect(taskReason(store, job, store.task('/arr/task-2')!, clock.t)).toBe('need 2 CPU, largest free worker has 1');
    expect(taskReason(store, job, store.task('/arr/task-0')!, clock.t)).toBeNull();
  });

  it('a job whose only pending task waits out a backoff says so, not a stale scheduler reason', () => {
    const { store, clock } = memStore();
    store.submit(spec('/j', { maxRetries: 3, retryBackoffMs: 4000 }));
    store.setPendingReasons(new Map([['/j', 'need 2 CPU, largest free worker has 1']]));
    start(store, '/j/task-0');
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    const job = store.job('/j')!;
    expect(jobReason(store, job, store.tasksOf('/j'), clock.t + 1500)).toBe('retry 1/3 in 3s (backoff)');
    // Once the wait is over, the scheduler's reason for the job is the one shown.
    expect(jobReason(store, job, store.tasksOf('/j'), clock.t + 4000)).toBe('need 2 CPU, largest free worker has 1');
  });
});
