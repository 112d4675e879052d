import { describe, expect, it } from 'vitest';
import { memStore, spec, start, workerSpec } from './helpers.js';

describe('preemption', () => {
  it('a preempted attempt requeues the task without counting a failure', () => {
    const { store } = memStore();
    const job = store.submit(spec('/j', { maxPreemptions: 2 }));
    start(store, '/j/task-0');
    const stops = store.finishAttempt('/j/task-0', 0, { kind: 'preempted', reason: 'spot reclaimed' });
    expect(stops).toEqual([]);
    expect(store.attempt('/j/task-0', 0)).toMatchObject({ state: 'PREEMPTED', reason: 'spot reclaimed' });
    expect(store.task('/j/task-0')).toMatchObject({
      state: 'PENDING',
      attempt: 1,
      preemptions: 1,
      failures: 0,
      seq: store.tasksOf('/j')[0]!.seq,
    });
    expect(store.job('/j')).toMatchObject({ state: 'PENDING', failedTasks: 0, seq: job.seq });
  });

  it('preemptions past maxPreemptions make the task and the job WORKER_FAILED and kill the others', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 2, maxPreemptions: 1 }));
    start(store, '/j/task-0', 'w1');
    start(store, '/j/task-1', 'w2');
    store.preemptAttempt('/j/task-0', 0, 'lost');
    start(store, '/j/task-0', 'w3');
    const stops = store.preemptAttempt('/j/task-0', 1, 'lost again');
    expect(store.task('/j/task-0')).toMatchObject({ state: 'WORKER_FAILED', preemptions: 2, failures: 0 });
    expect(store.job('/j')!.state).toBe('WORKER_FAILED');
    expect(store.job('/j')!.reason).toMatch(/task \/j\/task-0 preempted 2 times/);
    expect(store.task('/j/task-1')).toMatchObject({ state: 'KILLED' });
    expect(stops).toEqual([
      { task: '/j/task-0', attempt: 1, workerId: 'w3', reason: 'lost again' },
      { task: '/j/task-1', attempt: 0, workerId: 'w2', reason: 'job failed (worker failures)' },
    ]);
  });

  it('preemptAttempt on an attempt that already ended does nothing', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    start(store, '/j/task-0');
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.preemptAttempt('/j/task-0', 0, 'late')).toEqual([]);
    expect(store.task('/j/task-0')!.state).toBe('SUCCEEDED');
  });

  it('drainWorker drains the worker and preempts its active attempts with stop orders', () => {
    const { store, events } = memStore();
    store.submit(spec('/a', { maxPreemptions: 1 }));
    store.submit(spec('/b', { maxPreemptions: 1 }));
    start(store, '/a/task-0', 'w1');
    start(store, '/b/task-0', 'w2');
    events.length = 0;
    const stops = store.drainWorker('w1');
    expect(stops).toEqual([{ task: '/a/task-0', attempt: 0, workerId: 'w1', reason: 'worker w1 drained' }]);
    expect(store.worker('w1')!.state).toBe('DRAINED');
    expect(store.task('/a/task-0')).toMatchObject({ state: 'PENDING', preemptions: 1, attempt: 1 });
    expect(store.task('/b/task-0')!.state).toBe('RUNNING');
    expect(events.filter((e) => e.type === 'worker')).toHaveLength(1);
    expect(store.history('w1').map((h) => h.state)).toEqual(['READY', 'DRAINING', 'DRAINED']);
  });

  it('syncWorkers keeps DRAINED workers drained; a worker no longer configured and idle leaves the cluster', () => {
    const { store } = memStore(3);
    store.drainWorker('w2');
    store.syncWorkers([workerSpec('w1'), workerSpec('w2'), workerSpec('w9', { cpuMillis: 1000 })]);
    expect(store.workers().map((w) => [w.id, w.state])).toEqual([
      ['w1', 'READY'],
      ['w2', 'DRAINED'],
      ['w9', 'READY'],
    ]);
    expect(store.worker('w3')).toMatchObject({ state: 'DRAINED', left: { by: 'config' } });
    expect(store.worker('w9')!.cpuMillis).toBe(1000);
  });

  it('resumeWorker makes a DRAINED worker READY again; other states and removed workers are refused', () => {
    const { store } = memStore(3);
    expect(() => store.resumeWorker('w1')).toThrow(
      expect.objectContaining({ code: 'conflict', message: 'worker w1 is not drained (it is READY)' }),
    );
    expect(() => store.resumeWorker('w9')).toThrow(expect.objectContaining({ code: 'not_found' }));
    store.drainWorker('w1');
    store.resumeWorker('w1');
    expect(store.worker('w1')!.state).toBe('READY');
    expect(store.history('w1').map((h) => h.state)).toEqual(['READY', 'DRAINING', 'DRAINED', 'READY']);
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    expect(store.worker('w3')!.state).toBe('DRAINED');
    expect(() => store.resumeWorker('w3')).toThrow(
      expect.objectContaining({
        code: 'conflict',
        message: "worker w3 has left the cluster: it is no longer in the cluster's configuration",
      }),
    );
  });

  it('syncWorkers emits no event for an unchanged worker', () => {
    const { store, events } = memStore(2);
    events.length = 0;
    store.syncWorkers([workerSpec('w1'), workerSpec('w2', { attributes: { zone: 'b' } })]);
    expect(events).toEqual([
      { type: 'worker', worker: expect.objectContaining({ id: 'w2', attributes: { zone: 'b' } }) },
    ]);
  });
});
