/**
 * One controller per state directory, and what it may open there. `openStateStore(home)` opens
 * the cluster store on `<home>/state.db`; the store's connection IS the lock
 * (cluster/state/database.ts): an fcntl write lock on the database file itself, taken by the
 * connection's first read and held until the store closes. So:
 *
 * - a second controller on the same state directory (in this process or any other) is refused
 *   with IrisError('conflict', exit 4) naming the holder's pid, whatever became of the sockets,
 *   `cluster.pid` or any other file: only the database file itself carries the lock, and
 *   replacing it would mean losing the state anyway;
 * - the kernel drops the lock when the holder dies however it dies (kill -9 included): never a
 *   stale lock; task processes do not inherit fcntl locks;
 * - taking it writes no page, so a controller starts on a full disk (the store then refuses new
 *   work until space returns);
 * - nothing is read or written in the state directory by a refused controller beyond creating
 *   an empty state.db where none was.
 *
 * It also never starts afresh by accident: a state.db that is missing or empty while the
 * directory holds traces of earlier runs (saved-state.ts) is refused (exit 6), as is a damaged
 * one (cluster/state/integrity.ts). `fresh` (`iris cluster start --fresh`) first moves the saved
 * state aside, under the old database's lock.
 *
 * A refused controller names the holder by its pid, read from /proc/locks (the kernel's record of
 * who holds the lock, so it is right even while the holder is still starting). The holder writes
 * its pid to `<home>/cluster.pid` once it answers on its socket (`ready()`): a live pid there means
 * "running", none means "starting" (or gone); on release it removes that file only while it still
 * holds its own pid. The pid file is owner-only (0600) and never followed through a symlink.
 */
import { closeSync, constants, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pidFileFor } from '../api/address.js';
import { STATE_FILE, stateHolderPid } from '../api/lock-holder.js';
import { ensurePrivateFile, tightenIfPresent } from '../api/state-dir.js';
import { lockDatabase } from '../cluster/state/database.js';
import { ClusterStore } from '../cluster/state/store.js';
import { IrisError } from '../model/errors.js';
import { damagedError, isLocked, missingError } from '../model/storage.js';
import { earlierRuns, moveAside } from './saved-state.js';

export interface StateLock {
  readonly home: string;
  /** The controller answers on its socket: write `<home>/cluster.pid`. */
  ready(): void;
  /** Remove the pid file if it is still this process's. Idempotent. The lock itself goes with the store's close. */
  release(): void;
}

export interface StateStoreOptions {
  /** Config `placement.cache-ttl` for the store. */
  cacheTtlMs?: number;
  /** Move the saved state aside first and start an empty cluster (`iris cluster start --fresh`). */
  fresh?: boolean;
  log?: (message: string) => void;
}

function refused(home: string): IrisError {
  const pid = stateHolderPid(home);
  const who = pid !== null && pid !== process.pid ? `another iris controller (pid ${pid})` : 'another iris controller';
  return new IrisError(
    'conflict',
    `${who} is already running on the state directory ${home}`,
    `use it (\`iris cluster status\`), stop it with \`iris cluster ` +
      `stop\`${pid !== null ? ` (or \`kill ${pid}\` if its socket no longer answers)` : ''}, or set IRIS_HOME to ` +
      `another directory`,
  );
}

/** `open()`, with SQLite's "another connection holds the lock" as the refusal of a second controller. */
function locked<T>(home: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (isLocked(error)) throw refused(home);
    throw error;
  }
}

/** `--fresh`: the saved state goes aside while its database's lock is held, so no controller is using it. */
function putAside(home: string, file: string, log: (message: string) => void): void {
  const old = existsSync(file) ? locked(home, () => lockDatabase(file, true)) : null;
  let aside: string | null;
  try {
    aside = moveAside(home);
  } finally {
    // Moved: SQLite neither checkpoints into it nor deletes its WAL at close (the file has moved).
    old?.close();
  }
  if (aside !== null) log(`--fresh: moved the saved state (state.db and logs) into ${aside}`);
}

/** The store of `home` (which must exist), holding the state lock; see the header. */
export function openStateStore(home: string, opts: StateStoreOptions = {}): { store: ClusterStore; lock: StateLock } {
  const file = path.join(home, STATE_FILE);
  if (opts.fresh) putAside(home, file, opts.log ?? (() => {}));
  const evidence = earlierRuns(home);
  if (evidence !== null && !existsSync(file)) throw missingError(file, evidence);
  // state.db is created 0600 without following a symlink; SQLite gives its -wal the database
  // file's mode; files left by an older iris are tightened.
  ensurePrivateFile(file);
  tightenIfPresent(home, [`${STATE_FILE}-wal`, `${STATE_FILE}-shm`, `${STATE_FILE}-journal`]);
  const ifEmpty = evidence === null ? undefined : damagedError(file, `it is empty, but ${evidence}`);
  const ttl = opts.cacheTtlMs !== undefined ? { cacheTtlMs: opts.cacheTtlMs } : {};
  const store = locked(home, () => ClusterStore.open({ path: file, ifEmpty, ...ttl }));
  return { store, lock: pidFile(home) };
}

function pidFile(home: string): StateLock {
  const file = pidFileFor(home);
  let held = true;
  return {
    home,
    ready() {
      if (!held) return;
      try {
        const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = constants;
        const fd = openSync(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600);
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
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
      } catch {
        // already gone
      }
    },
  };
}
