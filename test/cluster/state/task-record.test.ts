// The store's compact tasks (state/task-record.ts) read as plain tasks everywhere they leave the
// store: field by field, as JSON, in change events, after a reopen, and after a rollback.
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { StoreEvent } from '../../../src/cluster/state/events.js';
import { plainTask, TaskGroup, TaskRecord } from '../../../src/cluster/state/task-record.js';
import { Clock, memStore, spec, start, tempDir, workerSpec } from './helpers.js';

const FIELDS = [
  'id',
  'job',
  'index',
  'state',
  'attempt',
  'submittedAt',
  'seq',
  'failures',
  'preemptions',
  'workerId',
  'exitCode',
  'reason',
  'startedAt',
  'finishedAt',
  'eligibleAt',
];

describe('TaskRecord', () => {
  it('a submitted task reads as a pending task with every field, derived ones included', () => {
    const { store, clock } = memStore();
    store.submit(spec('/first'));
    store.submit(spec('/train', { replicas: 3 }));
    const t = store.task('/train/task-2')!;
    expect(t).toBeInstanceOf(TaskRecord);
    expect(plainTask(t)).toEqual({
      id: '/train/task-2',
      job: '/train',
      index: 2,
      state: 'PENDING',
      attempt: 0,
      submittedAt: clock.t,
      seq: store.job('/train')!.seq + 3,
      failures: 0,
      preemptions: 0,
      workerId: null,
      exitCode: null,
      reason: null,
      startedAt: null,
      finishedAt: null,
      eligibleAt: null,
    });
    expect(Object.keys(plainTask(t))).toEqual(FIELDS);
    expect(JSON.parse(JSON.stringify(t))).toEqual(plainTask(t));
    expect(Object.keys(JSON.parse(JSON.stringify(t)))).toEqual(FIELDS);
  });

  it('the tasks of one submission hold one group, and seq follows the index', () => {
    const { store } = memStore();
    store.submit(spec('/j', { replicas: 4 }));
    const tasks = store.tasksOf('/j') as TaskRecord[];
    expect(new Set(tasks.map((t) => t.group)).size).toBe(1);
    expect(tasks.map((t) => t.seq - tasks[0]!.seq)).toEqual([0, 1, 2, 3]);
  });

  it('derived fields cannot be written; writing a default to a never-started task keeps it compact', () => {
    const t = new TaskRecord(new TaskGroup('/j', 5, 10), 1);
    expect(() => {
      (t as { id: string }).id = '/x/task-0';
    }).toThrow(TypeError);
    expect(() => {
      (t as { seq: number }).seq = 3;
    }).toThrow(TypeError);
    t.workerId = null;
    t.failures = 0;
    expect(Object.keys(t)).not.toContain('failures');
    expect((t as unknown as { details: unknown }).details).toBeNull();
    t.reason = 'backoff';
    t.eligibleAt = 99;
    expect([t.reason, t.eligibleAt, t.failures, t.workerId]).toEqual(['backoff', 99, 0, null]);
    t.reason = null;
    expect(t.reason).toBeNull();
  });

  it('a retry keeps submittedAt and seq, and change events carry plain copies of the task as it is now', () => {
    const { store, clock, events } = memStore();
    store.submit(spec('/j', { maxRetries: 1 }));
    const before = plainTask(store.task('/j/task-0')!);
    start(store, '/j/task-0');
    clock.tick(10);
    events.length = 0;
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 2 });
    const ev = events.find((e): e is Extract<StoreEvent, { type: 'task' }> => e.type === 'task')!;
    expect(ev.task).not.toBeInstanceOf(TaskRecord);
    expect(ev.task).toEqual({
      ...before,
      attempt: 1,
      failures: 1,
      state: 'PENDING',
      reason: ev.task.reason,
      exitCode: ev.task.exitCode,
      eligibleAt: ev.task.eligibleAt,
    });
    expect(ev.task).toEqual(plainTask(store.task('/j/task-0')!));
    expect(Object.keys(ev.task)).toEqual(FIELDS);
  });
});

describe('TaskRecord across a reopen', () => {
  let dir: string;
  let cleanup: () => void;
  let path: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    path = join(dir, 'cluster.db');
  });
  afterEach(() => cleanup());

  it('reads back what was stored, also a task whose submittedAt or seq differs from its job’s other tasks', () => {
    const store = ClusterStore.open({ path, now: new Clock().now });
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/j', { replicas: 3 }));
    start(store, '/j/task-0');
    const stored = store.tasksOf('/j').map(plainTask);
    store.close();
    // Rows written by another version may not follow the submission's pattern: each is read as stored.
    const db = new DatabaseSync(path);
    db.prepare('UPDATE tasks SET submitted_at = 777, seq = 900 WHERE id = ?').run('/j/task-1');
    db.close();
    const again = ClusterStore.open({ path, now: new Clock().now });
    const expected = stored.map((t) => (t.index === 1 ? { ...t, submittedAt: 777, seq: 900 } : t));
    expect(again.tasksOf('/j').map(plainTask)).toEqual(expected);
    const groups = (again.tasksOf('/j') as TaskRecord[]).map((t) => t.group);
    expect(groups[0]).not.toBe(groups[1]);
    expect(groups[2]).not.toBe(groups[1]);
    again.close();
  });
});
