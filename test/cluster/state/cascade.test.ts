import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';

describe('job end cascade, cancel, unschedulable', () => {
  // Before issue 31 a success killed the subtree too; seed 000 cancels descendants only when a
  // parent ends non-successfully (the next test).
  it('a job ending FAILED kills its pending and running descendants ("parent job ended")', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    start(store, '/p/task-0', 'w1');
    store.submit(spec('/p/c', { replicas: 2 }));
    start(store, '/p/c/task-0', 'w2');
    store.submit(spec('/p/c/g'));
    const stops = store.finishAttempt('/p/task-0', 0, { kind: 'exited', exitCode: 3 });
    expect(store.job('/p')!.state).toBe('FAILED');
    for (const name of ['/p/c', '/p/c/g'])
      expect(store.job(name)).toMatchObject({ state: 'KILLED', reason: 'parent job ended' });
    expect(store.tasksOf('/p/c').map((t) => [t.state, t.reason])).toEqual([
      ['KILLED', 'parent job ended'],
      ['KILLED', 'parent job ended'],
    ]);
    expect(stops).toEqual([{ task: '/p/c/task-0', attempt: 0, workerId: 'w2', reason: 'parent job ended' }]);
  });

  it('a job that SUCCEEDED leaves its running and pending descendants running; they end on their own', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    start(store, '/p/task-0', 'w1');
    store.submit(spec('/p/c', { replicas: 2 }));
    start(store, '/p/c/task-0', 'w2');
    store.submit(spec('/p/c/g'));
    const stops = store.finishAttempt('/p/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(stops).toEqual([]);
    expect(store.job('/p')!.state).toBe('SUCCEEDED');
    expect(store.job('/p/c')).toMatchObject({ state: 'RUNNING', reason: null });
    expect(store.tasksOf('/p/c').map((t) => t.state)).toEqual(['RUNNING', 'PENDING']);
    expect(store.job('/p/c/g')!.state).toBe('PENDING');
    expect(store.subtreeEnded('/p')).toBe(false);
    // The child still runs its tasks, and succeeds by them.
    start(store, '/p/c/task-1', 'w3');
    store.finishAttempt('/p/c/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/p/c/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/p/c')!.state).toBe('SUCCEEDED');
    expect(store.job('/p/c/g')!.state).toBe('PENDING');
    // Cancelling the ended root still kills what is left of its tree.
    store.cancel('/p', 'cancelled by alice');
    expect(store.job('/p')!.state).toBe('SUCCEEDED');
    expect(store.job('/p/c')!.state).toBe('SUCCEEDED');
    expect(store.job('/p/c/g')).toMatchObject({ state: 'KILLED', reason: 'cancelled by alice' });
    expect(store.subtreeEnded('/p')).toBe(true);
  });

  it('finished descendants keep their state', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    store.submit(spec('/p/done'));
    start(store, '/p/done/task-0');
    store.finishAttempt('/p/done/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.cancel('/p', 'user');
    expect(store.job('/p/done')!.state).toBe('SUCCEEDED');
    expect(store.job('/p')!.state).toBe('KILLED');
  });

  it('cancel kills the job and its subtree with the given reason and returns stop orders', () => {
    const { store } = memStore();
    store.submit(spec('/p', { replicas: 2 }));
    start(store, '/p/task-1', 'w3');
    store.submit(spec('/p/c'));
    start(store, '/p/c/task-0', 'w2');
    const stops = store.cancel('/p', 'cancelled by alice');
    expect(store.job('/p')).toMatchObject({ state: 'KILLED', reason: 'cancelled by alice' });
    expect(store.tasksOf('/p').map((t) => [t.state, t.reason])).toEqual([
      ['KILLED', 'cancelled by alice'],
      ['KILLED', 'cancelled by alice'],
    ]);
    expect(store.job('/p/c')).toMatchObject({ state: 'KILLED', reason: 'cancelled by alice' });
    expect(stops.map((s) => [s.task, s.workerId, s.reason])).toEqual([
      ['/p/task-1', 'w3', 'cancelled by alice'],
      ['/p/c/task-0', 'w2', 'cancelled by alice'],
    ]);
    expect(store.pendingTasks()).toEqual([]);
    expect(store.activeAttempts()).toEqual([]);
  });

  it('cancel of an unknown job is not_found; of a finished job is a no-op', () => {
    const { store } = memStore();
    expect(() => store.cancel('/nope', 'x')).toThrow(expect.objectContaining({ code: 'not_found' }));
    store.submit(spec('/j'));
    store.cancel('/j', 'first');
    expect(store.cancel('/j', 'second')).toEqual([]);
    expect(store.job('/j')!.reason).toBe('first');
  });

  it('markUnschedulable makes the job and its pending tasks UNSCHEDULABLE and cascades', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 2 }));
    store.submit(spec('/j/c'));
    start(store, '/j/c/task-0');
    const stops = store.markUnschedulable('/j', 'needs 8 GPUs, largest worker has 4');
    expect(store.job('/j')).toMatchObject({ state: 'UNSCHEDULABLE', reason: 'needs 8 GPUs, largest worker has 4' });
    expect(store.tasksOf('/j').map((t) => t.state)).toEqual(['UNSCHEDULABLE', 'UNSCHEDULABLE']);
    expect(store.job('/j/c')!.state).toBe('KILLED');
    expect(stops.map((s) => s.task)).toEqual(['/j/c/task-0']);
  });

  it('a job failing cascades to its children', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    start(store, '/j/task-0');
    store.submit(spec('/j/c'));
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 2 });
    expect(store.job('/j/c')).toMatchObject({ state: 'KILLED', reason: 'parent job ended' });
    expect(store.task('/j/c/task-0')!.state).toBe('KILLED');
  });
});

describe('pending reasons and endpoints', () => {
  it('setPendingReasons updates PENDING jobs only and emits only on change', () => {
    const { store, events } = memStore();
    store.submit(spec('/a'));
    store.submit(spec('/b'));
    start(store, '/b/task-0');
    events.length = 0;
    store.setPendingReasons(
      new Map([
        ['/a', 'no free cpu'],
        ['/b', 'ignored'],
        ['/zzz', 'unknown'],
      ]),
    );
    expect(store.job('/a')!.reason).toBe('no free cpu');
    expect(store.job('/b')!.reason).toBeNull();
    expect(events).toHaveLength(1);
    store.setPendingReasons(new Map([['/a', 'no free cpu']]));
    expect(events).toHaveLength(1);
  });

  it('registers endpoints for a running attempt and removes them when the attempt ends', () => {
    const { store, clock, events } = memStore();
    store.submit(spec('/svc', { replicas: 2, maxRetries: 1 }));
    start(store, '/svc/task-0', 'w1');
    start(store, '/svc/task-1', 'w2');
    const e = store.registerEndpoint({
      name: 'svc/http',
      address: '127.0.0.1:8080',
      task: '/svc/task-0',
      attempt: 0,
      job: '/svc',
    });
    store.registerEndpoint({
      name: 'svc/http-1',
      address: '127.0.0.1:8081',
      task: '/svc/task-1',
      attempt: 0,
      job: '/svc',
    });
    store.registerEndpoint({ name: 'other', address: 'x', task: '/svc/task-1', attempt: 0, job: '/svc' });
    expect(e.registeredAt).toBe(clock.t);
    expect(store.endpoints('svc/').map((x) => x.name)).toEqual(['svc/http', 'svc/http-1']);
    events.length = 0;
    store.finishAttempt('/svc/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.endpoints().map((x) => x.name)).toEqual(['svc/http-1', 'other']);
    expect(events.find((x) => x.type === 'endpoint')).toEqual({ type: 'endpoint', endpoint: e, removed: true });
    store.removeEndpointsOf('/svc/task-1');
    expect(store.endpoints()).toEqual([]);
  });

  it('refuses endpoints of attempts that are not running', () => {
    const { store } = memStore();
    store.submit(spec('/svc'));
    expect(() =>
      store.registerEndpoint({ name: 'x', address: 'y', task: '/svc/task-0', attempt: 0, job: '/svc' }),
    ).toThrow(expect.objectContaining({ code: 'conflict' }));
  });
});
