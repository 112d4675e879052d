/**
 * The SQLite connections to the state database: the store's own, which is also the lock that
 * makes its controller the only one on the state directory, and the reader's, which changes
 * nothing on disk.
 *
 * - `lockDatabase` opens the file with SQLite's `unix-excl` VFS in EXCLUSIVE locking mode: the
 *   first read takes an fcntl write lock on the database file itself and holds it until the
 *   connection closes (the kernel drops it when the process dies, kill -9 included). Any other
 *   connection, in this process or another, gets SQLITE_BUSY (`isLocked`) at its first read,
 *   whatever happened to other files of the state directory. The WAL index lives in this
 *   process's memory: no `-shm` file exists, and taking the lock writes no page, so it works on
 *   a full disk. The lock is on the file's inode, so `/proc/locks` names its holder.
 * - `openSaved` reads the database without a lock and without writing anything: no `-wal` or
 *   `-shm` is created and no file's mtime changes. A database without changes waiting in a WAL
 *   (a cluster that stopped cleanly leaves none) is opened `immutable`; one with a WAL (left by
 *   a crash) is copied with its WAL into a private temporary directory, and the copy is read.
 * - `openWritable` (the store's) and `openReadable` (a reader's) add the checks of integrity.ts,
 *   the schema (configure, migrate or checkVersion) and, for the store, a full disk.
 * - `writeInTransaction` runs a write in BEGIN IMMEDIATE … COMMIT and returns its error instead
 *   of throwing, after rolling back.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { IrisError } from '../../model/errors.js';
import { isDamage, isLocked, isNoSpace, noSpaceToOpen } from '../../model/storage.js';
import { asDamage, inspect } from './integrity.js';
import { fullDisk, type SpaceReserve } from './reserve.js';
import { checkVersion, configure, migrate } from './schema.js';

/** The size of a WAL file's header: a WAL no longer than this holds no change. */
const WAL_HEADER_BYTES = 32;

function uri(path: string, params: Record<string, string>): URL {
  const url = pathToFileURL(path);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url;
}

/** Reads the header, which takes the lock (a connection's first read; nothing is written). */
function touchHeader(db: DatabaseSync): void {
  db.prepare('SELECT count(*) FROM sqlite_schema').get();
}

/**
 * A connection to `path` that holds the database's lock (see the header), not configured yet.
 * Throws SQLite's error (and closes the connection): SQLITE_BUSY when another connection holds
 * the lock, SQLITE_NOTADB or SQLITE_CORRUPT when the header is damaged. With `keepOnDamage`, a
 * connection whose header read failed for damage is returned all the same: it holds the lock
 * (`iris cluster start --fresh` moves the damaged file aside under it).
 */
export function lockDatabase(path: string, keepOnDamage = false): DatabaseSync {
  const db = new DatabaseSync(uri(path, { vfs: 'unix-excl' }), { timeout: 0 });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    touchHeader(db);
  } catch (error) {
    if (keepOnDamage && isDamage(error)) return db;
    db.close();
    throw error;
  }
  return db;
}

/** A file's size; 0 when it is missing or cannot be read. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** `path` for reading, changing nothing on disk (see the header). */
export function openSaved(path: string): DatabaseSync {
  if (fileSize(`${path}-wal`) <= WAL_HEADER_BYTES)
    return new DatabaseSync(uri(path, { immutable: '1' }), { readOnly: true });
  const dir = mkdtempSync(join(tmpdir(), 'iris-saved-'));
  try {
    const copy = join(dir, 'state.db');
    try {
      copyFileSync(path, copy);
      copyFileSync(`${path}-wal`, `${copy}-wal`);
    } catch (error) {
      throw new IrisError(
        'unavailable',
        `cannot read ${path} without changing it: its last changes wait in its WAL, and a private copy ` +
          `to read them from does not fit in ${tmpdir()} (${(error as Error).message})`,
        'free space there or set TMPDIR to another directory; ' +
          'or start the cluster (`iris cluster start`), which writes them into the database',
      );
    }
    // The copy is opened as the store opens its database (no -shm), then unlinked: the open
    // files keep serving this connection, and nothing is left behind however the process ends.
    const db = lockDatabase(copy);
    try {
      db.exec('PRAGMA query_only = 1');
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The store's connection to `path` (':memory:' for tests): locked, checked (integrity.ts, with
 * `quick_check`), configured and migrated. An empty database is initialised, or `ifEmpty` is
 * thrown. On a full disk, the space `reserve` is given up once when opening needs room (a new
 * database's first pages, a migration); if that is not enough, `noSpaceToOpen`.
 */
export function openWritable(path: string, reserve: SpaceReserve | null, ifEmpty?: Error): DatabaseSync {
  if (path === ':memory:') {
    const db = new DatabaseSync(path);
    configure(db, true);
    migrate(db);
    return db;
  }
  const full = (error: unknown): boolean =>
    !(error instanceof IrisError) && !isLocked(error) && (isNoSpace(error) || fullDisk(path));
  try {
    return openChecked(path, ifEmpty);
  } catch (error) {
    if (!full(error)) throw error;
    if (!reserve?.release()) throw noSpaceToOpen(path);
  }
  try {
    return openChecked(path, ifEmpty);
  } catch (error) {
    throw full(error) ? noSpaceToOpen(path) : error;
  }
}

function openChecked(path: string, ifEmpty: Error | undefined): DatabaseSync {
  return openInspected(path, ifEmpty, lockDatabase, (db) => {
    if (inspect(db, path, { quick: true }) === 'empty' && ifEmpty) throw ifEmpty;
    configure(db, false);
    migrate(db);
    return db;
  });
}

/**
 * A reader's connection to `path` (`openSaved`), checked (integrity.ts, without `quick_check`)
 * and at SCHEMA_VERSION; `empty` when it holds nothing (then `ifEmpty` is thrown if given).
 */
export function openReadable(path: string, ifEmpty?: Error): { db: DatabaseSync; empty: boolean } {
  return openInspected(path, ifEmpty, openSaved, (db) => {
    const empty = inspect(db, path, { quick: false }) === 'empty';
    if (empty && ifEmpty) throw ifEmpty;
    if (!empty) checkVersion(db);
    return { db, empty };
  });
}

/**
 * The one way a connection is opened and checked: a 0-byte file is refused with `ifEmpty` before
 * SQLite opens it (SQLite would delete a WAL beside it); an error opening or checking is read as
 * damage where it is one (asDamage), and a connection whose check failed is closed.
 */
function openInspected<T>(
  path: string,
  ifEmpty: Error | undefined,
  open: (path: string) => DatabaseSync,
  check: (db: DatabaseSync) => T,
): T {
  if (ifEmpty && fileSize(path) === 0) throw ifEmpty;
  let db: DatabaseSync;
  try {
    db = open(path);
  } catch (error) {
    throw asDamage(error, path) ?? error;
  }
  try {
    return check(db);
  } catch (error) {
    db.close();
    throw asDamage(error, path) ?? error;
  }
}

export function writeInTransaction(db: DatabaseSync, write: () => void): unknown {
  try {
    db.exec('BEGIN IMMEDIATE');
    write();
    db.exec('COMMIT');
    return null;
  } catch (error) {
    try {
      if (db.isTransaction) db.exec('ROLLBACK');
    } catch {
      // SQLite rolls back on its own when the connection next sees the journal
    }
    return error;
  }
}

/** The prepared statements of one connection, by name: each prepared on first use, then kept. */
export class Statements<K extends string> {
  private readonly cache = new Map<K, StatementSync>();

  constructor(
    private readonly db: DatabaseSync,
    private readonly sql: Readonly<Record<K, string>>,
  ) {}

  get(name: K): StatementSync {
    let s = this.cache.get(name);
    if (!s) this.cache.set(name, (s = this.db.prepare(this.sql[name])));
    return s;
  }
}
