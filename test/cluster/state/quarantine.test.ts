/**
 * Loading cannot fail because of one job's rows (load-check.ts): rows written into state.db between
 * two opens that the store cannot make sense of quarantine their job (FAILED, `quarantined at
 * start-up: …`, with its subtree and the jobs waiting on it), the rest loads as it was, and the
 * repaired job is written back so the next open finds nothing wrong.
 */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { spec, start, useStoreFile, workerSpec } from './helpers.js';

const { open, clock } = useStoreFile();

/** The store's file (the one `open()` opens), for writing rows behind its back. */
function fileOf(store: ClusterStore): string {
  return (store as unknown as { path: string }).path;
}

/** Close `store`, run `sql` on its file with node:sqlite directly, and open it again. */
function damage(store: ClusterStore, ...sql: string[]): ClusterStore {
  const file = fileOf(store);
  store.close();
  const db = new DatabaseSync(file);
  for (const statement of sql) db.exec(statement);
  db.close();
  return open();
}

/** /a running (a child /a/c, a job /after waiting on it), /other running beside it. */
function cluster(): ClusterStore {
  const store = open();
  store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
  store.submit(spec('/a', { replicas: 2 }));
  start(store, '/a/task-0', 'w1');
  store.submit(spec('/a/c'));
  store.submit(spec('/after', { after: [{ job: '/a', condition: 'ok' }] }));
  store.submit(spec('/other'));
  start(store, '/other/task-0', 'w2');
  clock.tick(1000);
  return store;
}

function expectQuarantined(store: ClusterStore, problem: RegExp): void {
  const reason = store.job('/a')!.reason!;
  expect(store.job('/a')!.state).toBe('FAILED');
  expect(reason).toMatch(/^quarantined at start-up: /);
  expect(reason.slice('quarantined at start-up: '.length)).toMatch(problem);
  expect(store.tasksOf('/a').every((t) => ['KILLED', 'FAILED', 'SUCCEEDED'].includes(t.state))).toBe(true);
  expect(store.job('/a/c')).toMatchObject({ state: 'KILLED', reason: 'parent job ended' });
  expect(store.job('/after')).toMatchObject({ state: 'FAILED', reason: 'dependency /a failed' });
  // The rest is as it was.
  expect(store.job('/other')!.state).toBe('RUNNING');
  expect(store.activeAttempts().map((a) => a.task)).toEqual(['/other/task-0']);
  expect(store.quarantined.map((q) => q.job)).toEqual(['/a']);
}

/** Opened again: nothing to quarantine any more, the job as the quarantine left it. */
function expectClean(store: ClusterStore): void {
  const reason = store.job('/a')!.reason;
  const again = (() => {
    store.close();
    return open();
  })();
  expect(again.quarantined).toEqual([]);
  expect(again.job('/a')).toMatchObject({ state: 'FAILED', reason });
  again.close();
}

describe('quarantine at load', () => {
  it('a healthy state has nothing to quarantine', () => {
    const store = cluster();
    store.close();
    const again = open();
    expect(again.quarantined).toEqual([]);
    expect(again.job('/a')!.state).toBe('RUNNING');
    again.close();
  });

  it(
    'a spec that is not JSON: the job loads with a placeholder spec and ends FAILED, with its subtree and ' +
      'dependents',
    () => {
      const store = damage(cluster(), "UPDATE jobs SET spec = '{not json' WHERE name = '/a'");
      expectQuarantined(store, /^spec is not JSON/);
      expect(store.job('/a')!.spec).toMatchObject({ name: '/a', command: [], user: '', replicas: 2 });
      expectClean(store);
    },
  );

  it.each([
    [
      'a spec of the wrong shape',
      "UPDATE jobs SET spec = json_set(spec, '$.replicas', 'many') WHERE name = '/a'",
      /^spec\.replicas "many" is not a positive integer/,
    ],
    [
      'a dependency of the wrong shape',
      "UPDATE jobs SET spec = json_set(spec, '$.after', json('[7]')) WHERE name = '/a'",
      /^spec\.after holds 7/,
    ],
    [
      'an unknown job state',
      "UPDATE jobs SET state = 'DANCING' WHERE name = '/a'",
      /^state "DANCING" is not a job state/,
    ],
    ['a cause that is not JSON', "UPDATE jobs SET cause = '{' WHERE name = '/a'", /^cause is not JSON/],
    [
      'an unknown task state',
      "UPDATE tasks SET state = 'BOGUS' WHERE id = '/a/task-1'",
      /^task \/a\/task-1: state "BOGUS" is not a stored task state/,
    ],
    [
      'a task left PREEMPTED',
      "UPDATE tasks SET state = 'PREEMPTED' WHERE id = '/a/task-0'",
      /^task \/a\/task-0: state "PREEMPTED"/,
    ],
    [
      'a task index out of range',
      "UPDATE tasks SET idx = 99, id = '/a/task-99' WHERE id = '/a/task-1'",
      /^task row "\/a\/task-99" \(index 99\) is not one of its 2 task\(s\)/,
    ],
    ['a task row missing', "DELETE FROM tasks WHERE id = '/a/task-1'", /^1 of its 2 task row\(s\) missing/],
    [
      'an attempt of an unknown state',
      "UPDATE attempts SET state = 'WEIRD' WHERE task = '/a/task-0'",
      /^attempt \/a\/task-0#0: state "WEIRD" is not an attempt state/,
    ],
    [
      'a placement that is not JSON',
      "UPDATE attempts SET placement = '[' WHERE task = '/a/task-0'",
      /^attempt \/a\/task-0#0: placement is not JSON/,
    ],
  ])('%s: the job is quarantined, the rest loads, and it is written back readable', (_what, sql, problem) => {
    const store = damage(cluster(), sql);
    expectQuarantined(store, problem);
    expectClean(store);
  });

  it('a task row out of range is deleted; a missing one is added, KILLED', () => {
    const store = damage(cluster(), "UPDATE tasks SET idx = 5, id = '/a/task-5' WHERE id = '/a/task-1'");
    expect(store.tasksOf('/a').map((t) => [t.id, t.state])).toEqual([
      ['/a/task-0', 'KILLED'],
      ['/a/task-1', 'KILLED'],
    ]);
    const file = fileOf(store);
    store.close();
    const db = new DatabaseSync(file);
    expect(
      db
        .prepare("SELECT id FROM tasks WHERE job = '/a' ORDER BY id")
        .all()
        .map((r) => r.id),
    ).toEqual(['/a/task-0', '/a/task-1']);
    db.close();
  });

  it('a job that had ended keeps its state, takes the reason and is written back', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/done'));
    start(store, '/done/task-0');
    store.finishAttempt('/done/task-0', 0, { kind: 'exited', exitCode: 0 });
    const again = damage(store, "UPDATE jobs SET spec = 'null' WHERE name = '/done'");
    expect(again.job('/done')).toMatchObject({
      state: 'SUCCEEDED',
      reason: 'quarantined at start-up: spec null is not an object',
    });
    again.close();
    const third = open();
    expect(third.quarantined).toEqual([]);
    third.close();
  });

  it('a worker row that cannot be read is skipped and reported; the configured workers are written again', () => {
    const store = damage(cluster(), "UPDATE workers SET spec = 'x' WHERE id = 'w2'");
    expect(store.quarantined).toEqual([
      { job: null, problem: expect.stringMatching(/^worker "w2": spec is not JSON .*; skipped$/) },
    ]);
    store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
    store.close();
    const again = open();
    expect(again.quarantined).toEqual([]);
    again.close();
  });

  it('a read-only open shows the quarantine and writes nothing', () => {
    const store = cluster();
    const file = fileOf(store);
    store.close();
    const db = new DatabaseSync(file);
    db.exec("UPDATE jobs SET spec = '{' WHERE name = '/a'");
    db.close();
    const reader = ClusterStore.open({ path: file, readOnly: true });
    expectQuarantined(reader, /^spec is not JSON/);
    reader.close();
    const check = new DatabaseSync(file);
    expect(check.prepare("SELECT spec, state FROM jobs WHERE name = '/a'").get()).toEqual({
      spec: '{',
      state: 'RUNNING',
    });
    check.close();
  });

  it('ClusterStore.quarantine (a recovery that failed) ends the job the same way and lists it', () => {
    const store = cluster();
    expect(store.quarantine('/a', 'its recovery failed: boom')).toBe(true);
    expect(store.job('/a')).toMatchObject({
      state: 'FAILED',
      reason: 'quarantined at start-up: its recovery failed: boom',
    });
    expect(store.job('/after')).toMatchObject({ state: 'FAILED', reason: 'dependency /a failed' });
    expect(store.quarantined).toEqual([{ job: '/a', problem: 'its recovery failed: boom' }]);
    store.close();
  });
});
