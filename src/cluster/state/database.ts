/**
 * The SQLite connection of the store, on a disk that may be full.
 *
 * - `openDatabase` opens with WAL (schema.ts configure). When that fails for lack of room (the
 *   WAL index file cannot be created), it gives up the space reserve and tries again; without a
 *   reserve it opens in exclusive locking mode, which keeps the WAL index in memory: enough to
 *   load the state and serve it. A write failure in that mode sticks to the connection, so the
 *   store reopens normally (`reopenShared`) before it writes again. Any other failure on a full
 *   filesystem is reported as `no space left on <database>`.
 * - `writeInTransaction` runs a write in BEGIN IMMEDIATE … COMMIT and returns its error instead
 *   of throwing, after rolling back.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { isNoSpace, noSpaceError } from '../../model/storage.js';
import { fullDisk, type SpaceReserve } from './reserve.js';
import { configure } from './schema.js';

export function openDatabase(path: string, reserve: SpaceReserve | null): { db: DatabaseSync; exclusive: boolean } {
  const memory = path === ':memory:';
  let db = new DatabaseSync(path);
  try {
    configure(db, memory);
    return { db, exclusive: false };
  } catch (error) {
    db.close();
    if (memory) throw error;
  }
  try {
    db = new DatabaseSync(path);
    if (reserve?.release()) {
      configure(db, false);
      return { db, exclusive: false };
    }
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    configure(db, false);
    return { db, exclusive: true };
  } catch (error) {
    db.close();
    if (!isNoSpace(error) && fullDisk(path)) throw noSpaceError(path);
    throw error;
  }
}

/** A normal (shared, WAL-index file) connection, or null while there is no room for it yet. */
export function reopenShared(path: string): DatabaseSync | null {
  const db = new DatabaseSync(path);
  try {
    configure(db, false);
    return db;
  } catch {
    db.close();
    return null;
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

  constructor(private readonly db: DatabaseSync, private readonly sql: Readonly<Record<K, string>>) {}

  get(name: K): StatementSync {
    let s = this.cache.get(name);
    if (!s) this.cache.set(name, (s = this.db.prepare(this.sql[name])));
    return s;
  }
}
