import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/cluster/state/schema.js';
import { packSpec } from '../../../src/cluster/state/stored-row.js';
import { Clock, spec, tempDir, workerSpec } from './helpers.js';

let cleanup: () => void;
let path: string;
const open = () => ClusterStore.open({ path, now: new Clock().now });

beforeEach(() => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'cluster.db');
});
afterEach(() => cleanup());

describe('schema migrations', () => {
  it('attempt devices survive a reopen', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1', { device: { type: 'gpu', variant: 'H100', count: 8 } })]);
    store.submit(spec('/g', { replicas: 2 }));
    store.assign('/g/task-0', 'w1', '/logs/0', [2, 5]);
    store.assign('/g/task-1', 'w1', '/logs/1');
    store.close();
    const again = open();
    expect(again.attempt('/g/task-0', 0)!.devices).toEqual([2, 5]);
    expect(again.attempt('/g/task-1', 0)!.devices).toEqual([]);
    again.close();
  });

  it('loads a database written before attempts had a devices column', () => {
    const db = new DatabaseSync(path);
    db.exec(MIGRATIONS[0]!);
    db.exec('PRAGMA user_version = 1');
    db.exec(`INSERT INTO workers VALUES ('w1', '${JSON.stringify(workerSpec('w1'))}', 'READY')`);
    const s = JSON.stringify(spec('/old'));
    db.exec(`INSERT INTO jobs VALUES ('/old', NULL, 1, '${s}', 1, 1, 1, 'RUNNING', NULL, 1, NULL, 0)`);
    db.exec(`INSERT INTO tasks VALUES ('/old/task-0', '/old', 0, 'RUNNING', 0, 1, 1, 0, 0, 'w1', NULL, NULL, 1, NULL)`);
    db.exec(`INSERT INTO attempts VALUES ('/old/task-0', 0, 'w1', 'RUNNING', 77, NULL, NULL, 1, NULL, '/logs/old')`);
    db.close();

    const store = open();
    expect(store.activeAttempts()).toEqual([
      expect.objectContaining({ task: '/old/task-0', attempt: 0, pid: 77, devices: [] }),
    ]);
    store.finishAttempt('/old/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/old')!.state).toBe('SUCCEEDED');
    store.close();

    const check = new DatabaseSync(path);
    expect((check.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(SCHEMA_VERSION);
    expect(check.prepare('SELECT state, devices FROM attempts').get()).toEqual({ state: 'SUCCEEDED', devices: '' });
    check.close();
  });
});

describe('migration 13 (compact rows)', () => {
  it('compacts the specs and placements of a version-12 database in place; they read the same', () => {
    const db = new DatabaseSync(path);
    for (const m of MIGRATIONS.slice(0, 12)) db.exec(m);
    db.exec('PRAGMA user_version = 12');
    db.exec(`INSERT INTO workers VALUES ('w1', '${JSON.stringify(workerSpec('w1'))}', 'READY')`);
    const full = spec('/old', { cwd: '/work', maxPreemptions: 100, band: 'interactive' });
    const placement = { mode: 'adaptive', pool: 3, lambda: 0.5, score: -0.25, runnerUp: null, reuseHit: false };
    db.exec(
      `INSERT INTO jobs (name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, started_at, ` +
        `finished_at, failed_tasks, run) VALUES ('/old', NULL, 1, '${JSON.stringify(full)}', 1, 1, 1, 'SUCCEEDED', ` +
        `NULL, 1, 2, 0, 1)`,
    );
    db.exec(
      `INSERT INTO jobs (name, parent, depth, spec, submitted_at, root_submitted_at, seq, state, reason, started_at, ` +
        `finished_at, failed_tasks, run) VALUES ('/bad', NULL, 1, 'not json', 1, 1, 2, 'SUCCEEDED', NULL, 1, 2, 0, 2)`,
    );
    db.exec(
      `INSERT INTO tasks VALUES ('/old/task-0', '/old', 0, 'SUCCEEDED', 0, 1, 1, 0, 0, 'w1', 0, NULL, 1, 2, NULL)`,
    );
    db.exec(
      `INSERT INTO attempts (task, attempt, worker_id, state, pid, exit_code, started_at, finished_at, log_path, ` +
        `placement) VALUES ('/old/task-0', 0, 'w1', 'SUCCEEDED', 7, 0, 1, 2, '/logs/old', ` +
        `'${JSON.stringify(placement)}')`,
    );
    const before = (db.prepare("SELECT spec FROM jobs WHERE name = '/old'").get() as { spec: string }).spec.length;
    db.close();

    const store = open();
    expect(store.job('/old')!.spec).toEqual(full);
    expect(store.attempt('/old/task-0', 0)!.placement).toEqual(placement);
    expect(store.attempt('/old/task-0', 0)!.logPath).toBe('/logs/old');
    // A row that is not JSON does not stop the migration (load-check.ts reads it as before).
    expect(store.job('/bad')).toBeDefined();
    store.close();

    const check = new DatabaseSync(path);
    expect((check.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(SCHEMA_VERSION);
    const row = check.prepare("SELECT spec FROM jobs WHERE name = '/old'").get() as { spec: string };
    // Exactly what this build writes for that spec (stored-row.ts).
    expect(row.spec).toBe(packSpec(full));
    expect(row.spec.length).toBeLessThan(before - 100);
    expect(
      JSON.parse((check.prepare('SELECT placement FROM attempts').get() as { placement: string }).placement),
    ).toEqual({ mode: 'adaptive', pool: 3, lambda: 0.5, score: -0.25 });
    check.close();
  });
  it("gives a version-13 database's archived JSON records their runtime column; they read the same", () => {
    const db = new DatabaseSync(path);
    for (const m of MIGRATIONS.slice(0, 13)) db.exec(m);
    db.exec('PRAGMA user_version = 13');
    const attempt = (task: string, n: number, state: string, start: number, end: number | null) => ({
      task,
      attempt: n,
      workerId: 'w1',
      state,
      pid: 7,
      exitCode: state === 'SUCCEEDED' ? 0 : 1,
      reason: null,
      startedAt: start,
      finishedAt: end,
      logPath: '/logs/x',
      devices: [],
      logCutBytes: null,
      cpuSeconds: null,
      peakMemoryBytes: null,
    });
    // Two tasks: the first succeeded on its second attempt (10 ms), the second in 30 ms: 20 ms a task.
    const record = {
      job: { name: '/old', run: 1, spec: spec('/old'), state: 'SUCCEEDED' },
      tasks: [{ id: '/old/task-0' }, { id: '/old/task-1' }],
      attempts: [
        [attempt('/old/task-0', 0, 'FAILED', 0, 500), attempt('/old/task-0', 1, 'SUCCEEDED', 1000, 1010)],
        [attempt('/old/task-1', 0, 'SUCCEEDED', 1000, 1030)],
      ],
      children: [],
    };
    db.prepare(
      'INSERT INTO runs (run, name, user, state, submitted_at, started_at, finished_at, record) ' +
        'VALUES (?,?,?,?,?,?,?,?)',
    ).run(1, '/old', 'alice', 'SUCCEEDED', 0, 0, 1030, JSON.stringify(record));
    db.close();

    const store = open();
    expect(store.archive.get(1)?.attempts[0]?.[1]?.finishedAt).toBe(1010);
    // The prediction's runtime history reads the column (archive.ts succeededRuntimes).
    expect(store.runtimes.runsOf('alice\u0000/old')).toEqual([20]);
    store.close();
    const check = new DatabaseSync(path);
    expect((check.prepare('SELECT runtime FROM runs').get() as { runtime: number }).runtime).toBe(20);
    check.close();
  });
});
