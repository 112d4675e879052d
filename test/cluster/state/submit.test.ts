import { describe, expect, it } from 'vitest';
import type { IrisError } from '../../../src/model/errors.js';
import { memStore, spec, start } from './helpers.js';

describe('ClusterStore.submit', () => {
  it('creates a PENDING job with tasks task-0..N-1, increasing seq and submittedAt=now', () => {
    const { store, clock } = memStore();
    const job = store.submit(spec('/train', { replicas: 3 }));
    expect(job).toMatchObject({
      name: '/train',
      state: 'PENDING',
      depth: 1,
      parent: null,
      submittedAt: clock.t,
      rootSubmittedAt: clock.t,
      failedTasks: 0,
    });
    const tasks = store.tasksOf('/train');
    expect(tasks.map((t) => t.id)).toEqual(['/train/task-0', '/train/task-1', '/train/task-2']);
    expect(tasks.every((t) => t.state === 'PENDING' && t.attempt === 0 && t.submittedAt === clock.t)).toBe(true);
    const seqs = [job.seq, ...tasks.map((t) => t.seq)];
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(store.pendingTasks()).toHaveLength(3);
  });

  it('gives later submissions higher seq', () => {
    const { store } = memStore();
    const a = store.submit(spec('/a', { replicas: 2 }));
    const b = store.submit(spec('/b'));
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(store.tasksOf('/b')[0]!.seq).toBeGreaterThan(store.tasksOf('/a')[1]!.seq);
  });

  it('refuses a name held by a non-final job with a conflict', () => {
    const { store } = memStore();
    store.submit(spec('/x'));
    start(store, '/x/task-0');
    expect(() => store.submit(spec('/x'))).toThrow(/job \/x is still RUNNING/);
    try {
      store.submit(spec('/x'));
    } catch (e) {
      expect((e as IrisError).code).toBe('conflict');
    }
  });

  it('refuses at once, changing nothing, the name of a succeeded job while its child runs (submit, retry)', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    const n = start(store, '/p/task-0');
    store.submit(spec('/p/bg'));
    start(store, '/p/bg/task-0', 'w2');
    store.finishAttempt('/p/task-0', n, { kind: 'exited', exitCode: 0 });
    expect(store.job('/p')!.state).toBe('SUCCEEDED');
    const run = store.job('/p')!.run;
    // The checks the service makes before it waits for processes, and the submit's own: the same refusal.
    expect(() => store.replacedBySubmit('/p')).toThrow(/job \/p\/bg under \/p is still RUNNING/);
    expect(() => store.submit(spec('/p'))).toThrow(/job \/p\/bg under \/p is still RUNNING/);
    expect(() => store.retryNames('/p', false)).toThrow(/job \/p succeeded/);
    expect(() => store.retryNames('/p/bg', false)).toThrow(/job \/p\/bg is still RUNNING/);
    expect(store.job('/p')!.run).toBe(run);
    expect(store.job('/p/bg')!.state).toBe('RUNNING');
    expect(store.replacedBySubmit('/new')).toEqual([]);
  });

  it('replaces a finished job of the same name together with its subtree', () => {
    const { store, clock } = memStore();
    store.submit(spec('/x', { replicas: 2 }));
    store.submit(spec('/x/child'));
    const n = start(store, '/x/task-0');
    store.finishAttempt('/x/task-0', n, { kind: 'exited', exitCode: 5 });
    expect(store.job('/x')!.state).toBe('FAILED');
    expect(store.job('/x/child')!.state).toBe('KILLED');
    clock.tick(10);
    const fresh = store.submit(spec('/x'));
    expect(fresh.state).toBe('PENDING');
    expect(fresh.submittedAt).toBe(clock.t);
    expect(store.tasksOf('/x').map((t) => t.state)).toEqual(['PENDING']);
    expect(store.attemptsOf('/x/task-0')).toEqual([]);
    expect(store.task('/x/task-1')).toBeUndefined();
    expect(store.job('/x/child')).toBeUndefined();
    expect(store.children('/x')).toEqual([]);
  });

  it('refuses a child of a parent that has ended', () => {
    const { store } = memStore();
    store.submit(spec('/p'));
    store.cancel('/p', 'user');
    expect(() => store.submit(spec('/p/c'))).toThrow('parent job /p has ended (KILLED)');
  });

  it('accepts an orphan (unknown parent) as its own tree root', () => {
    const { store, clock } = memStore();
    const j = store.submit(spec('/nowhere/child'));
    expect(j).toMatchObject({ parent: '/nowhere', depth: 2, rootSubmittedAt: clock.t });
  });

  it('children inherit the root submission time and get depth = components', () => {
    const { store, clock } = memStore();
    const root = store.submit(spec('/r'));
    clock.tick(100);
    store.submit(spec('/r/a'));
    clock.tick(100);
    const leaf = store.submit(spec('/r/a/b'));
    expect(leaf.depth).toBe(3);
    expect(leaf.rootSubmittedAt).toBe(root.submittedAt);
    expect(store.children('/r').map((j) => j.name)).toEqual(['/r/a']);
    expect(store.descendants('/r').map((j) => j.name)).toEqual(['/r/a', '/r/a/b']);
  });

  it('rejects non-canonical names and bad counts as invalid arguments', () => {
    const { store } = memStore();
    expect(() => store.submit(spec('x'))).toThrow(/not canonical/);
    expect(() => store.submit(spec('/x', { replicas: 0 }))).toThrow(/replicas/);
    expect(() => store.submit(spec('/x', { maxRetries: -1 }))).toThrow(/maxRetries/);
    expect(store.job('/x')).toBeUndefined();
  });

  it('emits the job and task events after commit', () => {
    const { store, events } = memStore();
    events.length = 0;
    store.submit(spec('/e', { replicas: 2 }));
    expect(events.map((e) => e.type)).toEqual(['job', 'task', 'task']);
  });
});
