import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';

describe('cancelling one task of a job (iris cancel JOB/task-N)', () => {
  it('ends the task CANCELLED and stops its attempt; the job goes on and ends SUCCEEDED by its other tasks', () => {
    const { store } = memStore();
    store.submit(spec('/arr', { replicas: 3 }));
    for (const i of [0, 1, 2]) start(store, `/arr/task-${i}`, `w${i + 1}`);
    const stops = store.cancelTask('/arr/task-1', 'cancelled by user');
    expect(stops).toEqual([{ task: '/arr/task-1', attempt: 0, workerId: 'w2', reason: 'cancelled by user' }]);
    expect(store.task('/arr/task-1')).toMatchObject({ state: 'CANCELLED', reason: 'cancelled by user' });
    expect(store.attempt('/arr/task-1', 0)!.state).toBe('KILLED');
    expect(store.job('/arr')!.state).toBe('RUNNING');
    store.finishAttempt('/arr/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/arr/task-2', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/arr')!.state).toBe('SUCCEEDED');
    expect(store.job('/arr')!.failedTasks).toBe(0);
  });

  it('is no failure under maxTaskFailures: a job tolerating none still succeeds', () => {
    const { store } = memStore();
    store.submit(spec('/arr', { replicas: 2, maxTaskFailures: 0 }));
    start(store, '/arr/task-0');
    store.cancelTask('/arr/task-1', 'cancelled by user');
    expect(store.job('/arr')!.state).toBe('RUNNING');
    store.finishAttempt('/arr/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/arr')!.state).toBe('SUCCEEDED');
  });

  it('a job whose other tasks fail still fails by its own rules', () => {
    const { store } = memStore();
    store.submit(spec('/arr', { replicas: 2 }));
    start(store, '/arr/task-0');
    store.cancelTask('/arr/task-1', 'cancelled by user');
    store.finishAttempt('/arr/task-0', 0, { kind: 'exited', exitCode: 2 });
    expect(store.job('/arr')!.state).toBe('FAILED');
  });

  it('a job whose every task was cancelled one by one ends KILLED', () => {
    const { store } = memStore();
    store.submit(spec('/arr', { replicas: 2 }));
    store.cancelTask('/arr/task-0', 'cancelled by user');
    expect(store.job('/arr')!.state).toBe('PENDING');
    store.cancelTask('/arr/task-1', 'cancelled by user');
    expect(store.job('/arr')!).toMatchObject({ state: 'KILLED', reason: 'every task was cancelled' });
  });

  it('a gang cannot run without a member: cancelling one ends the whole job KILLED', () => {
    const { store } = memStore();
    store.submit(spec('/gang', { replicas: 2, coschedule: 'pod' }));
    start(store, '/gang/task-0', 'w1');
    start(store, '/gang/task-1', 'w2');
    const stops = store.cancelTask('/gang/task-0', 'cancelled by user');
    expect(stops.map((s) => s.task).sort()).toEqual(['/gang/task-0', '/gang/task-1']);
    expect(store.task('/gang/task-0')!.state).toBe('CANCELLED');
    expect(store.task('/gang/task-1')!.state).toBe('KILLED');
    expect(store.job('/gang')!).toMatchObject({
      state: 'KILLED',
      reason: 'gang member /gang/task-0 cancelled (a gang cannot run without it)',
    });
  });

  it('kills the jobs the cancelled task submitted, and leaves an ended task as it is', () => {
    const { store } = memStore();
    store.submit(spec('/p', { replicas: 2 }));
    start(store, '/p/task-0', 'w1');
    start(store, '/p/task-1', 'w2');
    store.submit(spec('/p/kid', { submittedBy: { task: '/p/task-0', attempt: 0 } }));
    store.submit(spec('/p/other', { submittedBy: { task: '/p/task-1', attempt: 0 } }));
    store.cancelTask('/p/task-0', 'cancelled by user');
    expect(store.job('/p/kid')!).toMatchObject({ state: 'KILLED', reason: 'parent task /p/task-0 cancelled' });
    expect(store.job('/p/other')!.state).toBe('PENDING');
    store.finishAttempt('/p/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.cancelTask('/p/task-1', 'cancelled by user')).toEqual([]);
    expect(store.task('/p/task-1')!.state).toBe('SUCCEEDED');
  });
});
