// TIMEOUT and OUT_OF_MEMORY through the store (the lifecycle applied): a task stopped by its time
// limit or killed for memory ends so, its job takes the state of its deciding task, and both are
// failures for retries, `--after JOB:failed`, cascades, gangs, merged batches and `iris retry`.
import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../../src/model/states.js';
import { memStore, spec, start, useStoreFile, workerSpec } from './helpers.js';

const TIMEOUT: AttemptOutcome = { kind: 'timeout' };
const OOM: AttemptOutcome = {
  kind: 'exited',
  exitCode: 137,
  signal: 'SIGKILL',
  reason: 'OOM killed (memory limit 8MiB)',
  oom: true,
};

describe('TIMEOUT and OUT_OF_MEMORY', () => {
  it.each([
    ['TIMEOUT', TIMEOUT, 'timed out'],
    ['OUT_OF_MEMORY', OOM, 'ran out of memory'],
  ] as const)(
    'a task that ends %s without retries left ends its job so, and its children KILLED',
    (state, outcome, words) => {
      const { store } = memStore();
      store.submit(spec('/j'));
      store.submit(spec('/j/child'));
      start(store, '/j/task-0');
      store.finishAttempt('/j/task-0', 0, outcome);
      expect(store.task('/j/task-0')!.state).toBe(state);
      expect(store.job('/j')!.state).toBe(state);
      expect(store.job('/j')!.reason).toMatch(new RegExp(`^task /j/task-0 ${words} \\(`));
      expect(store.job('/j/child')!.state).toBe('KILLED');
    },
  );

  it('counts against --max-retries: the task is retried, then ends TIMEOUT', () => {
    const { store } = memStore();
    store.submit(spec('/r', { maxRetries: 1 }));
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 0, TIMEOUT);
    expect(store.task('/r/task-0')).toMatchObject({ state: 'PENDING', attempt: 1, failures: 1 });
    expect(store.job('/r')!.state).not.toBe('TIMEOUT');
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 1, TIMEOUT);
    expect(store.task('/r/task-0')).toMatchObject({ state: 'TIMEOUT', failures: 2 });
    expect(store.job('/r')!.state).toBe('TIMEOUT');
  });

  it('the job takes the state of the task whose failure was one too many', () => {
    const { store } = memStore();
    store.submit(spec('/m', { replicas: 3, maxTaskFailures: 1 }));
    for (const t of [0, 1, 2]) start(store, `/m/task-${t}`, `w${t + 1}`);
    store.finishAttempt('/m/task-0', 0, OOM); // within the tolerance
    expect(store.job('/m')!.state).toBe('RUNNING');
    store.finishAttempt('/m/task-1', 0, TIMEOUT);
    expect(store.job('/m')!.state).toBe('TIMEOUT');
    expect(store.task('/m/task-2')!.state).toBe('KILLED');
  });

  it('within the tolerance the job succeeds by its other tasks', () => {
    const { store } = memStore();
    store.submit(spec('/t', { replicas: 2, maxTaskFailures: 1 }));
    start(store, '/t/task-0', 'w1');
    start(store, '/t/task-1', 'w2');
    store.finishAttempt('/t/task-0', 0, TIMEOUT);
    store.finishAttempt('/t/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/t')!.state).toBe('SUCCEEDED');
  });

  it('a gang member that times out fails the gang TIMEOUT, its siblings COSCHED_FAILED', () => {
    const { store } = memStore();
    store.submit(spec('/g', { replicas: 2, coschedule: 'tpu-name' }));
    start(store, '/g/task-0', 'w1');
    start(store, '/g/task-1', 'w2');
    store.finishAttempt('/g/task-1', 0, TIMEOUT);
    expect(store.job('/g')!.state).toBe('TIMEOUT');
    expect(store.task('/g/task-0')!.state).toBe('COSCHED_FAILED');
  });

  it('--after JOB:failed is met by TIMEOUT, --after JOB (ok) can never be, and retry runs it again', () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    store.submit(spec('/on-fail', { after: [{ job: '/a', condition: 'failed' }] }));
    store.submit(spec('/on-ok', { after: [{ job: '/a', condition: 'ok' }] }));
    start(store, '/a/task-0');
    store.finishAttempt('/a/task-0', 0, TIMEOUT);
    expect(store.job('/a')!.state).toBe('TIMEOUT');
    expect(store.dependencyWait('/on-fail')).toBeNull();
    expect([...store.queuedTasks()].map((t) => t.id)).toContain('/on-fail/task-0');
    expect(store.job('/on-ok')).toMatchObject({ state: 'FAILED', reason: 'dependency /a ended TIMEOUT' });
    const retried = store.retry('/a', true).map((j) => j.name);
    expect(retried).toEqual(['/a', '/on-ok']);
    expect(store.job('/a')!.state).toBe('PENDING');
  });

  describe('stored', () => {
    const file = useStoreFile();

    it('keep their states across a restart', () => {
      let store = file.open();
      store.syncWorkers([workerSpec('w1')]);
      store.submit(spec('/t'));
      store.submit(spec('/o'));
      start(store, '/t/task-0');
      store.finishAttempt('/t/task-0', 0, TIMEOUT);
      start(store, '/o/task-0');
      store.finishAttempt('/o/task-0', 0, OOM);
      store.close();
      store = file.open();
      expect([store.job('/t')!.state, store.task('/t/task-0')!.state]).toEqual(['TIMEOUT', 'TIMEOUT']);
      expect([store.job('/o')!.state, store.task('/o/task-0')!.state]).toEqual(['OUT_OF_MEMORY', 'OUT_OF_MEMORY']);
      store.close();
    });
  });
});
