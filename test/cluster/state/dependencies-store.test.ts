import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { JobDependency } from '../../../src/model/types.js';
import { memStore, spec, start, tempDir, workerSpec } from './helpers.js';

const after = (...deps: Array<[string, JobDependency['condition']?]>) => ({
  after: deps.map(([job, condition]) => ({ job, condition: condition ?? 'ok' })),
});
const queued = (store: ClusterStore) => [...store.queuedTasks()].map((t) => t.id).sort();
const finish = (store: ClusterStore, task: string, exitCode: number) =>
  store.finishAttempt(task, 0, { kind: 'exited', exitCode });

describe('dependencies in the store', () => {
  it(
    'a waiting job is PENDING, counted among pending tasks, out of the queue, with the reason naming its ' +
      'dependency as it is now',
    () => {
      const { store } = memStore();
      store.submit(spec('/prep'));
      store.submit(spec('/train', { replicas: 2, ...after(['/prep']) }));
      expect(store.job('/train')!.state).toBe('PENDING');
      expect(queued(store)).toEqual(['/prep/task-0']);
      expect(
        store
          .pendingTasks()
          .map((t) => t.id)
          .sort(),
      ).toEqual(['/prep/task-0', '/train/task-0', '/train/task-1']);
      expect(store.dependencyWait('/train')).toBe('waiting for /prep (PENDING)');
      start(store, '/prep/task-0');
      expect(store.dependencyWait('/train')).toBe('waiting for /prep (RUNNING)');
      finish(store, '/prep/task-0', 0);
      expect(store.dependencyWait('/train')).toBeNull();
      expect(queued(store)).toEqual(['/train/task-0', '/train/task-1']);
    },
  );

  it(':any is met by a failure, :failed by a failure and not by a success', () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    store.submit(spec('/any', after(['/a', 'any'])));
    store.submit(spec('/notok', after(['/a', 'failed'])));
    store.submit(spec('/ok', after(['/a'])));
    start(store, '/a/task-0');
    finish(store, '/a/task-0', 3);
    expect(queued(store)).toEqual(['/any/task-0', '/notok/task-0']);
    expect(store.job('/ok')).toMatchObject({
      state: 'FAILED',
      reason: 'dependency /a failed',
      cause: { kind: 'dependency_failure', parent: '/a' },
    });
  });

  it('a failure cascades down a chain three deep in one transaction, each job naming its own parent', () => {
    const { store, events } = memStore();
    store.submit(spec('/prep'));
    store.submit(spec('/train', after(['/prep'])));
    store.submit(spec('/eval', after(['/train'])));
    store.submit(spec('/report', after(['/eval', 'failed'])));
    start(store, '/prep/task-0');
    events.length = 0;
    finish(store, '/prep/task-0', 1);
    expect(store.job('/train')).toMatchObject({
      state: 'FAILED',
      reason: 'dependency /prep failed',
      cause: { parent: '/prep' },
    });
    expect(store.job('/eval')).toMatchObject({
      state: 'FAILED',
      reason: 'dependency /train failed',
      cause: { parent: '/train' },
    });
    // /report waits for /eval to fail: it has, so it runs.
    expect(store.job('/report')!.state).toBe('PENDING');
    expect(queued(store)).toEqual(['/report/task-0']);
    expect(store.tasksOf('/eval').map((t) => [t.state, t.reason])).toEqual([['KILLED', 'dependency /train failed']]);
    // The history records each failure with its cause.
    const history = store
      .history('/eval')
      .filter((h) => h.kind === 'job')
      .map((h) => [h.state, h.reason]);
    expect(history).toContainEqual(['FAILED', 'dependency /train failed']);
  });

  it(
    'a cancelled dependency fails an :ok dependent; a dependency ending while another still runs keeps it ' + 'waiting',
    () => {
      const { store } = memStore();
      store.submit(spec('/a'));
      store.submit(spec('/b'));
      store.submit(spec('/c', after(['/a'], ['/b'])));
      start(store, '/a/task-0');
      finish(store, '/a/task-0', 0);
      expect(store.dependencyWait('/c')).toBe('waiting for /b (PENDING)');
      store.cancel('/b', 'cancelled by user');
      expect(store.job('/c')).toMatchObject({ state: 'FAILED', reason: 'dependency /b ended KILLED' });
    },
  );

  it('a child may depend on a sibling', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    start(store, '/p/task-0');
    store.submit(spec('/p/a'));
    store.submit(spec('/p/b', after(['/p/a'])));
    expect(queued(store)).toEqual(['/p/a/task-0']);
    start(store, '/p/a/task-0', 'w2');
    finish(store, '/p/a/task-0', 0);
    expect(queued(store)).toEqual(['/p/b/task-0']);
  });

  it('refuses a dependency that can no longer be met (conflict), and submits nothing', () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    start(store, '/a/task-0');
    finish(store, '/a/task-0', 1);
    expect(() => store.submit(spec('/b', after(['/a'])))).toThrow(/\/b can never start: dependency \/a failed/);
    expect(store.job('/b')).toBeUndefined();
  });

  it(
    'a waiting job still waits after a restart, and the end of its dependency still settles it (the cause is ' +
      'stored)',
    () => {
      const { dir, cleanup } = tempDir();
      try {
        const path = `${dir}/state.db`;
        let store = ClusterStore.open({ path });
        store.syncWorkers([workerSpec('w1')]);
        store.submit(spec('/a'));
        store.submit(spec('/b', after(['/a'])));
        store.close();
        store = ClusterStore.open({ path });
        expect(queued(store)).toEqual(['/a/task-0']);
        expect(store.dependencyWait('/b')).toBe('waiting for /a (PENDING)');
        start(store, '/a/task-0');
        finish(store, '/a/task-0', 1);
        store.close();
        store = ClusterStore.open({ path });
        expect(store.job('/b')).toMatchObject({ state: 'FAILED', cause: { kind: 'dependency_failure', parent: '/a' } });
        store.close();
      } finally {
        cleanup();
      }
    },
  );
});

describe('retry', () => {
  it(
    '--downstream runs the job again and re-arms the jobs its failure cascaded to, each waiting again as a new ' +
      'run',
    () => {
      const { store } = memStore();
      store.submit(spec('/prep'));
      store.submit(spec('/train', after(['/prep'])));
      store.submit(spec('/eval', after(['/train'])));
      store.submit(spec('/other', after(['/prep', 'any'])));
      start(store, '/prep/task-0');
      finish(store, '/prep/task-0', 1);
      const oldRuns = ['/prep', '/train', '/eval'].map((n) => store.job(n)!.run);
      const retried = store.retry('/prep', true);
      expect(retried.map((j) => j.name)).toEqual(['/prep', '/train', '/eval']);
      retried.forEach((j, i) => expect(j.run).toBeGreaterThan(oldRuns[i]!));
      expect(store.job('/train')).toMatchObject({ state: 'PENDING', reason: null });
      expect(store.job('/train')!.cause).toBeUndefined();
      expect(store.dependencyWait('/eval')).toBe('waiting for /train (PENDING)');
      // /other had run (its :any was met): it is not part of the cascade.
      expect(store.job('/other')!.state).toBe('PENDING');
      expect(queued(store)).toEqual(['/other/task-0', '/prep/task-0']);
      expect(store.archive.get(oldRuns[1]!)?.job.state).toBe('FAILED');
      start(store, '/prep/task-0');
      finish(store, '/prep/task-0', 0);
      expect(queued(store)).toEqual(['/other/task-0', '/train/task-0']);
    },
  );

  it(
    'without --downstream only the job; refuses a job not ended or succeeded (conflict) and an unknown one ' +
      '(not_found)',
    () => {
      const { store } = memStore();
      store.submit(spec('/a'));
      store.submit(spec('/b', after(['/a'])));
      expect(() => store.retry('/a', false)).toThrow(
        expect.objectContaining({ code: 'conflict', message: 'job /a is still PENDING' }),
      );
      expect(() => store.retry('/nope', false)).toThrow(expect.objectContaining({ code: 'not_found' }));
      start(store, '/a/task-0');
      finish(store, '/a/task-0', 1);
      expect(store.retry('/a', false).map((j) => j.name)).toEqual(['/a']);
      expect(store.job('/b')!.state).toBe('FAILED');
      start(store, '/a/task-0');
      finish(store, '/a/task-0', 0);
      expect(() => store.retry('/a', false)).toThrow(
        expect.objectContaining({ code: 'conflict', message: 'job /a succeeded' }),
      );
    },
  );
});
