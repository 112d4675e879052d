/**
 * One controller per state directory. `acquireStateLock(home)` takes an exclusive lock on
 * `<home>/controller.lock` and holds it until `release()` or the end of the process; a second
 * controller on the same directory (in this process or any other) is refused with
 * IrisError('conflict') naming the holder's pid.
 *
 * Mechanism: an fcntl (POSIX record) lock, taken through node:sqlite, the one file-locking
 * primitive Node 24 offers without native addons (it has no flock, and `open(..., 'wx')` lock
 * files outlive a crash). The lock file is a SQLite database opened in EXCLUSIVE locking mode with
 * an open `BEGIN EXCLUSIVE` transaction and no busy timeout: the kernel drops the lock when the
 * process dies however it dies (kill -9 included), so there is never a stale lock to clean up,
 * and SQLite also refuses a second connection inside the same process. Task processes do not
 * inherit fcntl locks.
 *
 * A refused controller names the holder by its pid, read from /proc/locks (the kernel's record of
 * who holds the lock, so it is right even while the holder is still starting). The holder writes
 * its pid to `<home>/cluster.pid` once it answers on its socket (`ready()`): a live pid there means
 * "running", none means "starting" (or gone); on release it removes that file only while it still
 * holds its own pid. Both files are owner-only (0600) and never followed through a symlink.
 */
import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pidFileFor } from '../api/address.js';
import { ensurePrivateFile } from '../api/state-dir.js';
import { IrisError } from '../model/errors.js';
import { LOCK_FILE, lockHolderPid } from '../api/lock-holder.js';


export interface StateLock {
  readonly home: string;
  /** The controller answers on its socket: write `<home>/cluster.pid`. */
  ready(): void;
  /** Give the lock back and remove the pid file if it is still this process's. Idempotent. */
  release(): void;
}

function refused(home: string): IrisError {
  const pid = lockHolderPid(path.join(home, LOCK_FILE));
  const who = pid !== null && pid !== process.pid ? `another iris controller (pid ${pid})` : 'another iris controller';
  return new IrisError(
    'conflict',
    `${who} is already running on the state directory ${home}`,
    `use it (\`iris cluster status\`), stop it with \`iris cluster stop\`${pid !== null ? ` (or \`kill ${pid}\` if its socket no longer answers)` : ''}, or set IRIS_HOME to another directory`,
  );
}

/** Take the state lock of `home` (which must exist) or throw IrisError('conflict'). */
export function acquireStateLock(home: string): StateLock {
  const file = path.join(home, LOCK_FILE);
  let db: DatabaseSync;
  // Created 0600 without following a symlink before SQLite opens it (which would follow one).
  ensurePrivateFile(file);
  try {
    db = new DatabaseSync(file, { timeout: 0 });
  } catch (error) {
    throw new IrisError('unavailable', `cannot open the lock file ${file}: ${(error as Error).message}`, 'check the permissions of IRIS_HOME');
  }
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (/locked|busy/i.test((error as Error).message)) throw refused(home);
    throw new IrisError('unavailable', `cannot lock ${file}: ${(error as Error).message}`, 'check the permissions of IRIS_HOME');
  }
  const pidFile = pidFileFor(home);
  let held = true;
  return {
    home,
    ready() {
      if (!held) return;
      try {
        const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = constants;
        const fd = openSync(pidFile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600);
        try {
          writeSync(fd, `${process.pid}\n`);
        } finally {
          closeSync(fd);
        }
      } catch {
        // A full disk must not stop a controller that already answers: clients reach it through
        // the socket; only the "holder is up" hint of a refused start is missing meanwhile.
      }
    },
    release() {
      if (!held) return;
      held = false;
      try {
        if (readFileSync(pidFile, 'utf8').trim() === String(process.pid)) rmSync(pidFile, { force: true });
      } catch {
        // already gone
      }
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}
