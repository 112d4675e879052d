import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';

function gang(store: ReturnType<typeof memStore>['store'], over = {}) {
  store.submit(spec('/g', { replicas: 3, coschedule: 'tpu-name', ...over }));
  start(store, '/g/task-0', 'w1');
  start(store, '/g/task-1', 'w2');
  start(store, '/g/task-2', 'w3');
}

describe('gangs (coscheduled jobs)', () => {
  it('a member failing for good makes its siblings COSCHED_FAILED and fails the job', () => {
    const { store } = memStore();
    gang(store, { maxTaskFailures: 5 });
    const stops = store.finishAttempt('/g/task-1', 0, { kind: 'exited', exitCode: 9 });
    expect(store.tasksOf('/g').map((t) => t.state)).toEqual(['COSCHED_FAILED', 'FAILED', 'COSCHED_FAILED']);
    expect(store.task('/g/task-0')!.reason).toBe('gang member /g/task-1 failed');
    expect(store.job('/g')).toMatchObject({ state: 'FAILED', reason: 'task /g/task-1 failed (exit 9)' });
    expect(stops.map((s) => [s.task, s.attempt, s.workerId])).toEqual([
      ['/g/task-0', 0, 'w1'],
      ['/g/task-2', 0, 'w3'],
    ]);
    expect(store.activeAttempts()).toEqual([]);
  });

  it('a member retried restarts the whole gang: others stopped (not counted) and all PENDING as new attempts', () => {
    const { store } = memStore();
    gang(store, { maxRetries: 1 });
    const stops = store.finishAttempt('/g/task-1', 0, { kind: 'exited', exitCode: 1 });
    expect(stops).toEqual([
      { task: '/g/task-0', attempt: 0, workerId: 'w1', reason: 'gang restarted' },
      { task: '/g/task-2', attempt: 0, workerId: 'w3', reason: 'gang restarted' },
    ]);
    expect(store.tasksOf('/g').map((t) => [t.state, t.attempt, t.failures, t.preemptions])).toEqual([
      ['PENDING', 1, 0, 0],
      ['PENDING', 1, 1, 0],
      ['PENDING', 1, 0, 0],
    ]);
    expect(store.attempt('/g/task-0', 0)).toMatchObject({ state: 'KILLED', reason: 'gang restarted' });
    expect(store.attempt('/g/task-1', 0)).toMatchObject({ state: 'FAILED' });
    expect(store.job('/g')!.state).toBe('PENDING');
    expect(store.pendingTasks()).toHaveLength(3);
    // the stopped members' real exits arrive later and change nothing
    store.finishAttempt('/g/task-0', 0, { kind: 'killed', reason: 'gang restarted' });
    expect(store.task('/g/task-0')!.state).toBe('PENDING');
  });

  it('a preempted member restarts the gang and only it counts a preemption', () => {
    const { store } = memStore();
    gang(store, { maxPreemptions: 1 });
    const stops = store.drainWorker('w2');
    expect(stops.map((s) => [s.task, s.reason])).toEqual([
      ['/g/task-1', 'worker w2 drained'],
      ['/g/task-0', 'gang restarted'],
      ['/g/task-2', 'gang restarted'],
    ]);
    expect(store.tasksOf('/g').map((t) => [t.state, t.attempt, t.preemptions])).toEqual([
      ['PENDING', 1, 0],
      ['PENDING', 1, 1],
      ['PENDING', 1, 0],
    ]);
  });

  it('a gang with members on the drained worker stops each member once', () => {
    const { store } = memStore();
    store.submit(spec('/g', { replicas: 2, coschedule: 'tpu-name', maxPreemptions: 3 }));
    start(store, '/g/task-0', 'w1');
    start(store, '/g/task-1', 'w1');
    const stops = store.drainWorker('w1');
    expect(stops.map((s) => s.task)).toEqual(['/g/task-0', '/g/task-1']);
    expect(store.tasksOf('/g').map((t) => t.preemptions)).toEqual([1, 0]);
  });

  it('a gang member succeeding does not restart others', () => {
    const { store } = memStore();
    gang(store);
    expect(store.finishAttempt('/g/task-0', 0, { kind: 'exited', exitCode: 0 })).toEqual([]);
    expect(store.task('/g/task-1')!.state).toBe('RUNNING');
  });
});
