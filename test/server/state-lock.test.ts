/** The state lock on a real directory, with a real second process holding the same fcntl lock. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireStateLock } from '../../src/server/state-lock.js';
import { lockHolderPid, LOCK_FILE } from '../../src/api/lock-holder.js';
import { IrisError } from '../../src/model/errors.js';

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

function refusal(): IrisError {
  try {
    acquireStateLock(home).release();
  } catch (error) {
    expect(error).toBeInstanceOf(IrisError);
    return error as IrisError;
  }
  throw new Error('expected the lock to be refused');
}

/** Another process takes the lock the way a controller does (same file, same SQLite locking); it writes no pid file. */
function otherHolder(): Promise<ChildProcess> {
  const code = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(${JSON.stringify(path.join(home, LOCK_FILE))}, { timeout: 0 });
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', () => resolve(proc));
    proc.once('exit', (status) => reject(new Error(`holder exited with ${status}`)));
  });
}

describe('state lock', () => {
  it('is exclusive within one process, writes the pid file once ready, and can be taken again after release', () => {
    const lock = acquireStateLock(home);
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
    acquireStateLock(home).release();
  });

  it('refuses while another process holds it, naming that pid (from /proc/locks); free again once the holder is killed', async () => {
    child = await otherHolder();
    const error = refusal();
    expect(error.code).toBe('conflict');
    expect(error.message).toBe(`another iris controller (pid ${child.pid}) is already running on the state directory ${home}`);
    expect(error.hint).toContain(`kill ${child.pid}`);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;
    const lock = acquireStateLock(home);
    expect(lockHolderPid(path.join(home, LOCK_FILE))).toBe(process.pid);
    lock.release();
    expect(lockHolderPid(path.join(home, LOCK_FILE))).toBeNull();
  });

  it('release leaves a pid file that is not its own', () => {
    const lock = acquireStateLock(home);
    lock.ready();
    writeFileSync(path.join(home, 'cluster.pid'), '999999\n');
    lock.release();
    expect(readFileSync(path.join(home, 'cluster.pid'), 'utf8')).toBe('999999\n');
  });
});
