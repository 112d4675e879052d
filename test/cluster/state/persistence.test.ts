import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { StoreEvent } from '../../../src/cluster/state/events.js';
import { Clock, spec, start, tempDir, workerSpec } from './helpers.js';
import { plainTask } from '../../../src/cluster/state/task-record.js';

let dir: string;
let cleanup: () => void;
let path: string;
const open = (clock = new Clock()) => ClusterStore.open({ path, now: clock.now });

/**
 * The database files as a crash would leave them, while the store still holds them (and their
 * lock): state.db and its WAL copied into a directory of their own; returns the copy's path.
 */
function crashCopy(): string {
  const copy = join(mkdtempSync(join(dir, 'crash-')), 'cluster.db');
  copyFileSync(path, copy);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  return copy;
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'cluster.db');
});
afterEach(() => cleanup());

describe('persistence', () => {
  it('an attempt keeps its placement decision across a reopen; an unscored attempt has none', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    store.submit(spec('/p', { replicas: 2 }));
    const decision = {
      mode: 'adaptive',
      pool: 2,
      lambda: 0.8,
      score: 0.61,
      runnerUp: { workerId: 'w2', score: 0.12 },
      reuseHit: true,
    };
    store.assign('/p/task-0', 'w1', join(dir, 'p0.log'), [], decision);
    store.assign('/p/task-1', 'w2', join(dir, 'p1.log'));
    store.close();
    const again = open();
    expect(again.attemptsOf('/p/task-0')[0]!.placement).toEqual(decision);
    expect(again.attemptsOf('/p/task-1')[0]!.placement).toBeNull();
    again.close();
  });

  it('reopen after close restores jobs, tasks, attempts, workers, endpoints and meta', () => {
    const store = open();
    store.setMeta('cluster-id', 'c-123');
    store.syncWorkers([workerSpec('w1', { attributes: { 'tpu-name': 's1' } }), workerSpec('w2')]);
    store.drainWorker('w2');
    store.submit(spec('/a', { replicas: 2, maxRetries: 1, env: { K: 'v' } }));
    store.submit(spec('/a/b'));
    start(store, '/a/task-0');
    store.markLogCut('/a/task-0', 0, 1024 ** 3);
    store.recordUsage('/a/task-0', 0, { cpuSeconds: 0.75, peakMemoryBytes: 3 * 1024 ** 2 });
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 4 });
    start(store, '/a/task-0');
    start(store, '/a/task-1');
    store.registerEndpoint({ name: 'ep', address: 'h:1', task: '/a/task-1', attempt: 0, job: '/a' });
    const snap = {
      jobs: [...store.jobs()].map((j) => ({ ...j })),
      tasks: [...store.tasksOf('/a'), ...store.tasksOf('/a/b')].map(plainTask),
      attempts: store.attemptsOf('/a/task-0').map((a) => ({ ...a })),
      workers: store.workers().map((w) => ({ ...w })),
      endpoints: store.endpoints(),
    };
    store.close();

    const again = open();
    expect([...again.jobs()]).toEqual(expect.arrayContaining(snap.jobs));
    expect([...again.tasksOf('/a'), ...again.tasksOf('/a/b')].map(plainTask)).toEqual(snap.tasks);
    expect(again.attemptsOf('/a/task-0')).toEqual(snap.attempts);
    expect(again.attemptsOf('/a/task-0').map((a) => a.logCutBytes)).toEqual([1024 ** 3, null]);
    expect(again.attemptsOf('/a/task-0').map((a) => [a.cpuSeconds, a.peakMemoryBytes])).toEqual([
      [0.75, 3 * 1024 ** 2],
      [null, null],
    ]);
    expect(again.workers()).toEqual(snap.workers);
    expect(again.endpoints()).toEqual(snap.endpoints);
    expect(again.getMeta('cluster-id')).toBe('c-123');
    expect(again.getMeta('missing')).toBeNull();
    expect(again.pendingTasks().map((t) => t.id)).toEqual(['/a/b/task-0']);
    expect(again.activeAttempts().map((a) => [a.task, a.attempt])).toEqual([
      ['/a/task-0', 1],
      ['/a/task-1', 0],
    ]);
    expect(again.children('/a').map((j) => j.name)).toEqual(['/a/b']);
    // the reloaded model keeps working
    again.finishAttempt('/a/task-0', 1, { kind: 'exited', exitCode: 0 });
    again.finishAttempt('/a/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(again.job('/a')!.state).toBe('SUCCEEDED');
    again.close();
  });

  it('seq keeps increasing across restarts, even after the newest job was replaced', () => {
    const store = open();
    const first = store.submit(spec('/a', { replicas: 3 }));
    store.cancel('/a', 'x');
    store.close();
    const again = open();
    const second = again.submit(spec('/a'));
    expect(second.seq).toBeGreaterThan(first.seq + 3);
    again.close();
  });

  it('a submitted job is in the database files as soon as submit returns', () => {
    const store = open();
    store.submit(spec('/durable', { replicas: 2 }));
    const other = new DatabaseSync(crashCopy(), { readOnly: true });
    const row = other.prepare('SELECT state FROM jobs WHERE name = ?').get('/durable');
    const tasks = other.prepare('SELECT COUNT(*) AS n FROM tasks WHERE job = ?').get('/durable');
    other.close();
    expect(row).toEqual({ state: 'PENDING' });
    expect(tasks).toEqual({ n: 2 });
    store.close();
  });

  it('a lazy (group-commit) transaction is committed to the database files, and rolls back whole on a throw', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/g', { replicas: 2 }));
    store.transaction(
      () => {
        store.assign('/g/task-0', 'w1', join(dir, 'g0.log'));
        store.markRunning('/g/task-0', 0, 4242);
      },
      false,
      true,
    );
    expect(() =>
      store.transaction(
        () => {
          store.assign('/g/task-1', 'w1', join(dir, 'g1.log'));
          throw new Error('boom');
        },
        false,
        true,
      ),
    ).toThrow('boom');
    const crashed = crashCopy();
    const other = new DatabaseSync(crashed, { readOnly: true });
    const states = other.prepare('SELECT id, state FROM tasks WHERE job = ? ORDER BY id').all('/g');
    other.close();
    expect(states).toEqual([
      { id: '/g/task-0', state: 'RUNNING' },
      { id: '/g/task-1', state: 'PENDING' },
    ]);
    // Not closed: what a crashed controller leaves is what a reopen reads.
    const again = ClusterStore.open({ path: crashed, now: new Clock().now });
    expect(again.task('/g/task-0')!.state).toBe('RUNNING');
    expect(again.attemptsOf('/g/task-0')[0]!.pid).toBe(4242);
    again.close();
    store.close();
  });

  it('replacing a finished job deletes its old rows', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/r', { replicas: 2 }));
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
    store.submit(spec('/r'));
    store.close();
    const db = new DatabaseSync(path);
    expect(db.prepare('SELECT id FROM tasks').all()).toEqual([{ id: '/r/task-0' }]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM attempts').get()).toEqual({ n: 0 });
    db.close();
  });

  it('uses WAL with synchronous=FULL and records the schema version', () => {
    open().close();
    const db = new DatabaseSync(path);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBeGreaterThan(0);
    db.exec('PRAGMA user_version = 999');
    db.close();
    expect(() => open()).toThrow(/newer than this iris understands/);
  });

  it('keeps a persisted history of state changes', () => {
    const clock = new Clock();
    const store = open(clock);
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/h', { maxRetries: 1 }));
    start(store, '/h/task-0');
    clock.tick(10);
    store.finishAttempt('/h/task-0', 0, { kind: 'exited', exitCode: 3 });
    store.close();
    const again = open(clock);
    const rows = again.history('/h').map((h) => [h.kind, h.name, h.state, h.reason]);
    expect(rows).toEqual([
      ['job', '/h', 'PENDING', 'submitted'],
      ['attempt', '/h/task-0#0', 'RUNNING', 'on w1'],
      ['task', '/h/task-0', 'ASSIGNED', null],
      ['job', '/h', 'RUNNING', null],
      ['task', '/h/task-0', 'RUNNING', null],
      ['attempt', '/h/task-0#0', 'FAILED', 'exit 3'],
      ['task', '/h/task-0', 'FAILED', 'exit 3'],
      ['requeue', '/h/task-0#0', 'retry', 'exit 3; retry 1 of 1'],
      ['task', '/h/task-0', 'PENDING', 'retrying after exit 3'],
      ['job', '/h', 'PENDING', null],
    ]);
    expect(again.history('/h/task-0').every((h) => h.name.startsWith('/h/task-0'))).toBe(true);
    again.close();
  });
});

describe('transactions', () => {
  it('groups several calls into one commit and emits events only after it', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    const seen: StoreEvent[] = [];
    store.events.on('change', (e) => seen.push(e));
    store.submit(spec('/t', { replicas: 2 }));
    seen.length = 0;
    store.transaction(() => {
      store.assign('/t/task-0', 'w1', '/l0');
      store.assign('/t/task-1', 'w2', '/l1');
      expect(seen).toEqual([]);
    });
    expect(seen.map((e) => e.type)).toEqual(['attempt', 'task', 'job', 'attempt', 'task']);
    const jobEvent = seen.find((e) => e.type === 'job');
    expect(jobEvent).toMatchObject({ job: { state: 'RUNNING' } });
    store.close();
  });

  it('a throwing transaction leaves memory and disk as before and emits nothing', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/t', { replicas: 2 }));
    const seen: StoreEvent[] = [];
    store.events.on('change', (e) => seen.push(e));
    expect(() =>
      store.transaction(() => {
        store.assign('/t/task-0', 'w1', '/l0');
        store.submit(spec('/u'));
        store.cancel('/t', 'oops');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(seen).toEqual([]);
    expect(store.job('/u')).toBeUndefined();
    expect(store.job('/t')!.state).toBe('PENDING');
    expect(store.tasksOf('/t').map((t) => t.state)).toEqual(['PENDING', 'PENDING']);
    expect(store.pendingTasks()).toHaveLength(2);
    expect(store.activeAttempts()).toEqual([]);
    expect(store.attemptsOf('/t/task-0')).toEqual([]);
    store.close();
    const again = open();
    expect(again.job('/u')).toBeUndefined();
    expect(again.attemptsOf('/t/task-0')).toEqual([]);
    expect(again.assign('/t/task-0', 'w1', '/l').attempt).toBe(0);
    again.close();
  });

  it('a failing nested call undoes only its own changes', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.transaction(() => {
      store.submit(spec('/ok'));
      expect(() => store.submit(spec('/ok'))).toThrow(/still PENDING/);
      expect(() =>
        store.transaction(() => {
          store.submit(spec('/inner'));
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(store.job('/ok')).toBeDefined();
    expect(store.job('/inner')).toBeUndefined();
    store.close();
    const again = open();
    expect([...again.jobs()].map((j) => j.name)).toEqual(['/ok']);
    again.close();
  });

  it('undoes a replacement when the transaction fails', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/r', { replicas: 2 }));
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
    const before = store.tasksOf('/r').map(plainTask);
    store.transaction(() => {
      expect(() =>
        store.transaction(() => {
          store.submit(spec('/r'));
          throw new Error('no');
        }),
      ).toThrow('no');
    });
    expect(store.tasksOf('/r').map(plainTask)).toEqual(before);
    expect(store.job('/r')!.state).toBe('FAILED');
    store.close();
    const again = open();
    expect(again.tasksOf('/r').map(plainTask)).toEqual(before);
    expect(again.attemptsOf('/r/task-0')).toHaveLength(1);
    again.close();
  });
});
