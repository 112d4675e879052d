// store.task(id) finds a task through its job's entry (state/model.ts TaskLookup), with no map
// entry per task: exact ids only, nested jobs, a replaced job with fewer tasks.
import { describe, expect, it } from 'vitest';
import { memStore, spec, start, useStoreFile } from './helpers.js';

describe('ClusterStore.task (lookup through the job)', () => {
  it('finds every task of a job by its exact id, and nothing for ids that only resemble one', () => {
    const { store } = memStore();
    store.submit(spec('/train', { replicas: 12 }));
    expect(store.task('/train/task-0')?.index).toBe(0);
    expect(store.task('/train/task-11')?.index).toBe(11);
    for (const id of [
      '/train/task-12',
      '/train/task-01',
      '/train/task-',
      '/train/task-1e1',
      '/train/task- 1',
      '/train',
      '/other/task-0',
      'task-0',
      '/task-0',
    ]) {
      expect(store.task(id), id).toBeUndefined();
    }
  });

  it('finds tasks of nested jobs whose names contain "task", each under its own job', () => {
    const { store } = memStore();
    store.submit(spec('/a', { replicas: 2 }));
    start(store, '/a/task-1');
    store.submit(spec('/a/task-x', { replicas: 1 }));
    store.submit(spec('/a/task-x/tasks', { replicas: 2 }));
    expect(store.task('/a/task-1')).toMatchObject({ job: '/a', index: 1, state: 'RUNNING' });
    expect(store.task('/a/task-x/task-0')).toMatchObject({ job: '/a/task-x', index: 0, state: 'PENDING' });
    expect(store.task('/a/task-x/tasks/task-1')).toMatchObject({ job: '/a/task-x/tasks', index: 1 });
    expect(store.task('/a/task-x/tasks/task-2')).toBeUndefined();
  });

  describe('a replaced job with fewer tasks', () => {
    const file = useStoreFile();

    it('forgets the tasks the new run does not have, in memory and on disk', () => {
      let store = file.open();
      store.submit(spec('/x', { replicas: 3 }));
      store.cancel('/x', 'test');
      store.submit(spec('/x', { replicas: 1 }));
      expect(store.task('/x/task-0')?.state).toBe('PENDING');
      expect(store.task('/x/task-2')).toBeUndefined();
      store.close();
      store = file.open();
      expect(store.tasksOf('/x').map((t) => t.id)).toEqual(['/x/task-0']);
      expect(store.task('/x/task-1')).toBeUndefined();
      store.close();
    });
  });
});
