import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { MIGRATIONS } from '../../../src/cluster/state/schema.js';
import { Clock, spec, start, tempDir, workerSpec } from './helpers.js';

let cleanup: () => void;
let path: string;
const clock = new Clock();
const open = () => ClusterStore.open({ path, now: clock.now, reserveBytes: 0 });

beforeEach(() => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'cluster.db');
});
afterEach(() => cleanup());

/** Submit `name`, run its one task to `exitCode`; returns the job's run. */
function runOnce(store: ClusterStore, name: string, exitCode: number): number {
  const job = store.submit(spec(name));
  const n = start(store, `${name}/task-0`);
  store.finishAttempt(`${name}/task-0`, n, { kind: 'exited', exitCode });
  return job.run;
}

/** A store with worker w1 where each [name, exit code] ran once, 100 ms apart; the runs, in order. */
function runEach(list: ReadonlyArray<readonly [string, number]>): { store: ClusterStore; runs: number[] } {
  const store = open();
  store.syncWorkers([workerSpec('w1')]);
  const runs = list.map(([name, code]) => {
    clock.tick(100);
    return runOnce(store, name, code);
  });
  return { store, runs };
}

describe('runs and the run archive', () => {
  it('gives every submission, children included, a new run id that survives a restart', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    expect(store.submit(spec('/a')).run).toBe(1);
    expect(store.submit(spec('/a/kid')).run).toBe(2);
    expect(store.submit(spec('/b')).run).toBe(3);
    store.close();
    const again = open();
    expect(again.job('/a/kid')!.run).toBe(2);
    expect(again.submit(spec('/c')).run).toBe(4);
    again.close();
  });

  it('archives a replaced run with its tasks, attempts and finished subtree instead of deleting it', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const first = store.submit(spec('/x'));
    store.submit(spec('/x/kid'));
    const n = start(store, '/x/task-0');
    store.finishAttempt('/x/task-0', n, { kind: 'exited', exitCode: 5 });
    expect(store.job('/x/kid')!.state).toBe('KILLED');
    const second = store.submit(spec('/x'));
    expect(second.run).toBeGreaterThan(first.run);
    expect(store.job('/x/kid')).toBeUndefined();
    store.close();

    const again = open();
    const old = again.archive.get(first.run)!;
    expect(old.job).toMatchObject({ name: '/x', run: first.run, state: 'FAILED' });
    expect(old.tasks.map((t) => [t.id, t.state, t.exitCode])).toEqual([['/x/task-0', 'FAILED', 5]]);
    expect(old.attempts[0]!.map((a) => [a.attempt, a.exitCode, a.logPath])).toEqual([[0, 5, '/logs/_x_task-0']]);
    expect(old.children).toHaveLength(1);
    expect(again.archive.get(old.children[0]!)!.job).toMatchObject({ name: '/x/kid', state: 'KILLED' });
    expect(again.archive.runsOf('/x')).toEqual([first.run]);
    // The live name is the new run, with none of the old run's attempts or events.
    expect(again.job('/x')!.run).toBe(second.run);
    expect(again.attemptsOf('/x/task-0')).toEqual([]);
    expect(new Set(again.history('/x').map((h) => h.run))).toEqual(new Set([second.run]));
    expect(again.archive.history(first.run).map((h) => `${h.name} ${h.state}`)).toContain('/x FAILED');
    again.close();
  });

  it('lists archived runs newest first, filtered in SQL by name prefix, user, state and time', () => {
    const { store, runs } = runEach([
      ['/p', 0],
      ['/p', 1],
      ['/q', 0],
      ['/q', 0],
    ]);
    runOnce(store, '/p', 0); // archives the second /p
    runOnce(store, '/q', 0); // archives the second /q
    expect(store.archive.list({ limit: 10 }).map((r) => r.job.run)).toEqual([runs[3], runs[2], runs[1], runs[0]]);
    expect(store.archive.list({ limit: 10, prefix: '/p' }).map((r) => r.job.run)).toEqual([runs[1], runs[0]]);
    expect(store.archive.list({ limit: 10, states: ['FAILED'] }).map((r) => r.job.run)).toEqual([runs[1]]);
    expect(store.archive.list({ limit: 10, user: 'bob' })).toEqual([]);
    expect(store.archive.list({ limit: 1 }).map((r) => r.job.run)).toEqual([runs[3]]);
    const thirdStart = store.archive.get(runs[2]!)!.job.submittedAt;
    expect(store.archive.list({ limit: 10, since: thirdStart }).map((r) => r.job.run)).toEqual([runs[3], runs[2]]);
    expect(store.archive.list({ limit: 10, until: thirdStart - 1 }).map((r) => r.job.run)).toEqual([runs[1], runs[0]]);
    // The store's connection holds the database's lock: the plan is read once it is closed.
    store.close();
    const plan = new DatabaseSync(path)
      .prepare('EXPLAIN QUERY PLAN SELECT record FROM runs WHERE user = ? ORDER BY run DESC LIMIT 5')
      .all('x');
    expect(JSON.stringify(plan)).toMatch(/runs_by_user/);
  });

  it('indexes by state only the runs that did not succeed, and lists runs of any state', () => {
    const { store, runs } = runEach([
      ['/a', 0],
      ['/b', 1],
      ['/c', 0],
    ]);
    for (const name of ['/a', '/b', '/c']) runOnce(store, name, 0); // archives the first three
    expect(store.archive.list({ limit: 10, states: ['FAILED'] }).map((r) => r.job.run)).toEqual([runs[1]]);
    expect(store.archive.list({ limit: 10, states: ['SUCCEEDED'] }).map((r) => r.job.run)).toEqual([runs[2], runs[0]]);
    expect(store.archive.list({ limit: 10, states: ['SUCCEEDED', 'FAILED'] }).map((r) => r.job.run)).toEqual([
      runs[2],
      runs[1],
      runs[0],
    ]);
    store.close();
    const db = new DatabaseSync(path);
    // Succeeded runs (most of them) stay out of the state index.
    const index = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'runs_by_state'").get() as { sql: string };
    expect(index.sql).toMatch(/WHERE state <> 'SUCCEEDED'/);
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT record FROM runs WHERE state IN ('FAILED') AND state <> 'SUCCEEDED'")
      .all();
    expect(JSON.stringify(plan)).toMatch(/runs_by_state/);
    db.close();
  });

  it('gives the jobs of a database from before run ids their run ids in submission order', () => {
    const db = new DatabaseSync(path);
    for (const m of MIGRATIONS.slice(0, 4)) db.exec(m);
    db.exec('PRAGMA user_version = 4');
    const row = (name: string, seq: number) =>
      `INSERT INTO jobs VALUES ('${name}', NULL, 1, '${JSON.stringify(spec(name))}', 1, 1, ${seq}, 'SUCCEEDED', ` +
      `NULL, 1, 2, 0)`;
    db.exec(row('/later', 9));
    db.exec(row('/earlier', 3));
    db.close();
    const store = open();
    expect(store.job('/earlier')!.run).toBe(1);
    expect(store.job('/later')!.run).toBe(2);
    expect(store.submit(spec('/new')).run).toBe(3);
    store.close();
  });
});
