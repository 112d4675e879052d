import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';
import { plainTask } from '../../../src/cluster/state/task-record.js';

describe('attempts and retries', () => {
  it('assign moves PENDING -> ASSIGNED, creates attempt task.attempt and makes the job RUNNING', () => {
    const { store, clock } = memStore();
    store.submit(spec('/j'));
    const a = store.assign('/j/task-0', 'w1', '/logs/a');
    expect(a).toMatchObject({
      task: '/j/task-0',
      attempt: 0,
      workerId: 'w1',
      state: 'RUNNING',
      startedAt: clock.t,
      logPath: '/logs/a',
      pid: null,
    });
    expect(store.task('/j/task-0')).toMatchObject({ state: 'ASSIGNED', workerId: 'w1' });
    expect(store.job('/j')!.state).toBe('RUNNING');
    expect(store.job('/j')!.startedAt).toBe(clock.t);
    expect(store.pendingTasks()).toEqual([]);
    expect(store.activeAttempts()).toEqual([a]);
  });

  it('markRunning records the pid and moves the task to RUNNING', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    store.assign('/j/task-0', 'w1', '/l');
    store.markRunning('/j/task-0', 0, 99);
    expect(store.task('/j/task-0')!.state).toBe('RUNNING');
    expect(store.attempt('/j/task-0', 0)!.pid).toBe(99);
  });

  it('exit 0 succeeds the attempt, the task and (all tasks done) the job', () => {
    const { store, clock } = memStore();
    store.submit(spec('/j', { replicas: 2 }));
    start(store, '/j/task-0');
    start(store, '/j/task-1', 'w2');
    clock.tick(5);
    expect(store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 0 })).toEqual([]);
    expect(store.job('/j')!.state).toBe('RUNNING');
    store.finishAttempt('/j/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.attempt('/j/task-0', 0)).toMatchObject({ state: 'SUCCEEDED', exitCode: 0, finishedAt: clock.t });
    expect(store.task('/j/task-0')).toMatchObject({ state: 'SUCCEEDED', exitCode: 0 });
    expect(store.job('/j')).toMatchObject({ state: 'SUCCEEDED', finishedAt: clock.t });
    expect(store.activeAttempts()).toEqual([]);
  });

  it('a failed attempt within maxRetries requeues the task with attempt+1, keeping submittedAt and seq', () => {
    const { store, clock } = memStore();
    store.submit(spec('/j', { maxRetries: 2 }));
    const before = plainTask(store.task('/j/task-0')!);
    start(store, '/j/task-0');
    clock.tick(50);
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 3 });
    const t = store.task('/j/task-0')!;
    expect(t).toMatchObject({
      state: 'PENDING',
      attempt: 1,
      failures: 1,
      submittedAt: before.submittedAt,
      seq: before.seq,
      workerId: null,
    });
    expect(store.attempt('/j/task-0', 0)).toMatchObject({ state: 'FAILED', exitCode: 3, reason: 'exit 3' });
    expect(store.job('/j')!.state).toBe('PENDING');
    expect(store.pendingTasks()).toEqual([t]);
    // second attempt gets number 1
    expect(store.assign('/j/task-0', 'w2', '/l').attempt).toBe(1);
  });

  it('timeout and launch_failed count as failures', () => {
    const { store } = memStore();
    store.submit(spec('/j', { maxRetries: 1 }));
    start(store, '/j/task-0');
    store.finishAttempt('/j/task-0', 0, { kind: 'timeout' });
    expect(store.task('/j/task-0')).toMatchObject({ state: 'PENDING', failures: 1 });
    expect(store.attempt('/j/task-0', 0)!.reason).toBe('time-limit');
    store.assign('/j/task-0', 'w1', '/l');
    store.finishAttempt('/j/task-0', 1, { kind: 'launch_failed', reason: 'ENOENT' });
    expect(store.task('/j/task-0')).toMatchObject({ state: 'FAILED', failures: 2 });
    expect(store.job('/j')).toMatchObject({ state: 'FAILED', reason: 'task /j/task-0 failed (launch failed: ENOENT)' });
  });

  it('a task that spends its retries fails for good; over maxTaskFailures the job FAILS and kills the others', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 3 }));
    start(store, '/j/task-0', 'w1');
    start(store, '/j/task-1', 'w2');
    start(store, '/j/task-2', 'w3');
    const stops = store.finishAttempt('/j/task-2', 0, { kind: 'exited', exitCode: 3 });
    expect(store.job('/j')).toMatchObject({
      state: 'FAILED',
      failedTasks: 1,
      reason: 'task /j/task-2 failed (exit 3)',
    });
    expect(store.task('/j/task-2')).toMatchObject({ state: 'FAILED', failures: 1 });
    expect(
      store
        .tasksOf('/j')
        .slice(0, 2)
        .map((t) => [t.state, t.reason]),
    ).toEqual([
      ['KILLED', 'job failed'],
      ['KILLED', 'job failed'],
    ]);
    expect(stops).toEqual([
      { task: '/j/task-0', attempt: 0, workerId: 'w1', reason: 'job failed' },
      { task: '/j/task-1', attempt: 0, workerId: 'w2', reason: 'job failed' },
    ]);
    expect(store.attempt('/j/task-0', 0)).toMatchObject({ state: 'KILLED', reason: 'job failed' });
    expect(store.activeAttempts()).toEqual([]);
  });

  it('tolerates failed tasks up to maxTaskFailures and succeeds when the rest succeed', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 3, maxTaskFailures: 1 }));
    for (const [i, w] of [
      [0, 'w1'],
      [1, 'w2'],
      [2, 'w3'],
    ] as const)
      start(store, `/j/task-${i}`, w);
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.job('/j')).toMatchObject({ state: 'RUNNING', failedTasks: 1 });
    store.finishAttempt('/j/task-1', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/j/task-2', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/j')!.state).toBe('SUCCEEDED');
  });

  it('a second failure beyond maxTaskFailures fails the job', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 3, maxTaskFailures: 1 }));
    for (const [i, w] of [
      [0, 'w1'],
      [1, 'w2'],
      [2, 'w3'],
    ] as const)
      start(store, `/j/task-${i}`, w);
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    const stops = store.finishAttempt('/j/task-1', 0, { kind: 'exited', exitCode: 2 });
    expect(store.job('/j')).toMatchObject({
      state: 'FAILED',
      failedTasks: 2,
      reason: 'task /j/task-1 failed (exit 2)',
    });
    expect(stops.map((s) => s.task)).toEqual(['/j/task-2']);
  });

  it('a killed outcome for an attempt the store already ended only records the exit', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    start(store, '/j/task-0');
    store.cancel('/j', 'user cancelled');
    expect(store.finishAttempt('/j/task-0', 0, { kind: 'killed', reason: 'stopped' })).toEqual([]);
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 143 });
    expect(store.attempt('/j/task-0', 0)).toMatchObject({ state: 'KILLED', reason: 'user cancelled', exitCode: 143 });
    expect(store.task('/j/task-0')!.state).toBe('KILLED');
    // a later exit does not overwrite the recorded one
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.attempt('/j/task-0', 0)!.exitCode).toBe(143);
  });

  it('finishing an attempt twice is a no-op', () => {
    const { store } = memStore();
    store.submit(spec('/j', { maxRetries: 3 }));
    start(store, '/j/task-0');
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    const snapshot = plainTask(store.task('/j/task-0')!);
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(plainTask(store.task('/j/task-0')!)).toEqual(snapshot);
  });

  it('a killed outcome for a live attempt (stopped without a StopOrder) counts as a failure', () => {
    const { store } = memStore();
    store.submit(spec('/j', { maxRetries: 1 }));
    start(store, '/j/task-0');
    store.finishAttempt('/j/task-0', 0, { kind: 'killed', reason: 'OOM' });
    expect(store.task('/j/task-0')).toMatchObject({ state: 'PENDING', failures: 1, attempt: 1 });
  });

  it('markRunning after the attempt was stopped is ignored', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    store.assign('/j/task-0', 'w1', '/l');
    store.cancel('/j', 'bye');
    store.markRunning('/j/task-0', 0, 7);
    expect(store.task('/j/task-0')!.state).toBe('KILLED');
  });

  it('refuses illegal transitions with an internal error and changes nothing', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    start(store, '/j/task-0');
    expect(() => store.assign('/j/task-0', 'w2', '/l')).toThrow(expect.objectContaining({ code: 'internal' }));
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(() => store.assign('/j/task-0', 'w2', '/l')).toThrow(/illegal task transition SUCCEEDED -> ASSIGNED/);
    expect(store.attemptsOf('/j/task-0')).toHaveLength(1);
  });

  it('refuses to assign to unknown or drained workers and unknown tasks', () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    expect(() => store.assign('/j/task-0', 'nope', '/l')).toThrow(expect.objectContaining({ code: 'not_found' }));
    store.drainWorker('w1');
    expect(() => store.assign('/j/task-0', 'w1', '/l')).toThrow(expect.objectContaining({ code: 'conflict' }));
    expect(() => store.assign('/j/task-9', 'w2', '/l')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(store.task('/j/task-0')!.state).toBe('PENDING');
  });
});
