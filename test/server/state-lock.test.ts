/**
 * The state lock on a real directory: the store's own connection to state.db, with a real second
 * process holding the database the same way; the rule against starting afresh by accident; and
 * `--fresh`, which moves the saved state aside under the old database's lock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/server/state-lock.js';
import { stateHolderPid } from '../../src/api/lock-holder.js';
import { spec } from '../cluster/state/helpers.js';
import { refusal as refusalOf } from '../helpers/refusal.js';

let home: string;
let child: ChildProcess | null = null;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'iris-lock-'));
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
  rmSync(home, { recursive: true, force: true });
});

const refusal = (opts: { fresh?: boolean } = {}) => refusalOf(() => openStateStore(home, opts).store.close());

/**
 * Another process holds state.db the way a controller's store does (same VFS, same locking mode); it writes no pid
 * file.
 */
function otherHolder(): Promise<ChildProcess> {
  const code = `
    const { DatabaseSync } = require('node:sqlite');
    const { pathToFileURL } = require('node:url');
    const url = pathToFileURL(${JSON.stringify(path.join(home, 'state.db'))});
    url.searchParams.set('vfs', 'unix-excl');
    const db = new DatabaseSync(url, { timeout: 0 });
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', () => resolve(proc));
    proc.once('exit', (status) => reject(new Error(`holder exited with ${status}`)));
  });
}

/** A state directory that ran a job: a database holding it and its log. */
function earlierRun(): void {
  const { store } = openStateStore(home);
  store.submit(spec('/old'));
  store.close();
  mkdirSync(path.join(home, 'logs', 'old', '@1', 'task-0'), { recursive: true });
  writeFileSync(path.join(home, 'logs', 'old', '@1', 'task-0', 'attempt-0.log'), 'old output\n');
}

describe('state lock', () => {
  it(
    'is exclusive within one process, writes the pid file once ready, and can be taken again after the store ' +
      'closes',
    () => {
      const { store, lock } = openStateStore(home);
      expect(existsSync(path.join(home, 'cluster.pid'))).toBe(false);
      lock.ready();
      expect(readFileSync(path.join(home, 'cluster.pid'), 'utf8')).toBe(`${process.pid}\n`);
      const error = refusal();
      expect(error.code).toBe('conflict');
      expect(error.exitCode).toBe(4);
      expect(error.message).toBe(`another iris controller is already running on the state directory ${home}`);
      lock.release();
      lock.release();
      expect(existsSync(path.join(home, 'cluster.pid'))).toBe(false);
      store.close();
      openStateStore(home).store.close();
    },
  );

  it(
    'refuses while another process holds state.db, naming that pid (from /proc/locks); free again once the holder ' +
      'is killed',
    async () => {
      child = await otherHolder();
      const error = refusal();
      expect(error.code).toBe('conflict');
      expect(error.message).toBe(
        `another iris controller (pid ${child.pid}) is already running on the state directory ${home}`,
      );
      expect(error.hint).toContain(`kill ${child.pid}`);
      // --fresh moves nothing while another controller holds the state.
      expect(refusal({ fresh: true }).code).toBe('conflict');
      expect(readdirSync(home).filter((name) => name.startsWith('aside-'))).toEqual([]);
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      child = null;
      const { store } = openStateStore(home);
      expect(stateHolderPid(home)).toBe(process.pid);
      store.close();
      expect(stateHolderPid(home)).toBeNull();
    },
  );

  it('release leaves a pid file that is not its own', () => {
    const { store, lock } = openStateStore(home);
    lock.ready();
    writeFileSync(path.join(home, 'cluster.pid'), '999999\n');
    lock.release();
    store.close();
    expect(readFileSync(path.join(home, 'cluster.pid'), 'utf8')).toBe('999999\n');
  });
});

describe('a state directory with earlier runs', () => {
  it('is never started afresh when its database is missing or empty', () => {
    earlierRun();
    const db = path.join(home, 'state.db');
    truncateSync(db, 0);
    const empty = refusal();
    expect(empty.exitCode).toBe(6);
    expect(empty.message).toBe(
      `${db} is damaged: it is empty, but ${path.join(home, 'logs')} holds the logs of earlier runs`,
    );
    expect(empty.hint).toContain('iris cluster start --fresh');
    expect(readFileSync(db).length).toBe(0);
    rmSync(db);
    const missing = refusal();
    expect(missing.message).toBe(`${db} is missing, but ${path.join(home, 'logs')} holds the logs of earlier runs`);
    expect(existsSync(db)).toBe(false);
  });

  it('--fresh moves the database and the logs aside (deleting nothing) and starts empty', () => {
    earlierRun();
    const logs: string[] = [];
    const { store } = openStateStore(home, { fresh: true, log: (m) => logs.push(m) });
    expect([...store.jobs()]).toEqual([]);
    store.close();
    const [aside, ...more] = readdirSync(home).filter((name) => name.startsWith('aside-'));
    expect(more).toEqual([]);
    expect(logs).toEqual([`--fresh: moved the saved state (state.db and logs) into ${path.join(home, aside!)}`]);
    expect(readFileSync(path.join(home, aside!, 'logs', 'old', '@1', 'task-0', 'attempt-0.log'), 'utf8')).toBe(
      'old output\n',
    );
    expect(existsSync(path.join(home, 'logs'))).toBe(false);
    const { store: old } = openStateStore(path.join(home, aside!));
    expect([...old.jobs()].map((j) => j.name)).toEqual(['/old']);
    old.close();
  });
});
