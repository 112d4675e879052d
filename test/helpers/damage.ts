/**
 * Ways a state database gets damaged, applied in place to a file that holds a good iris state
 * (no WAL beside it: a cleanly closed store). Used by the store's unit tests and by the hostile
 * suite on the built binary.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';

export type Damage =
  | 'truncated'
  | 'header-flipped'
  | 'page-flipped'
  | 'random'
  | 'zero-bytes'
  | 'other-schema'
  | 'column-missing';

export const DAMAGES: readonly Damage[] = [
  'truncated',
  'header-flipped',
  'page-flipped',
  'random',
  'zero-bytes',
  'other-schema',
  'column-missing',
];

function overwrite(file: string, at: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

/** Read `file` without touching it (immutable: no lock, no -wal or -shm). */
function reading<T>(file: string, read: (db: DatabaseSync) => T): T {
  const url = pathToFileURL(file);
  url.searchParams.set('immutable', '1');
  const db = new DatabaseSync(url, { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Damage `file` (a good iris state.db) the way `kind` says. */
export function damage(file: string, kind: Damage): void {
  switch (kind) {
    case 'truncated':
      truncateSync(file, Math.floor(statSync(file).size / 2));
      return;
    case 'header-flipped':
      // Inside "SQLite format 3\0", the magic string every database starts with.
      overwrite(file, 3, Buffer.from([0xff, 0x00, 0xfe, 0x01]));
      return;
    case 'page-flipped': {
      // The b-tree page header of the jobs table's root page: its page type becomes invalid.
      const { page, size } = reading(file, (db) => ({
        page: (db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'jobs'").get() as { rootpage: number })
          .rootpage,
        size: (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size,
      }));
      overwrite(file, (page - 1) * size, Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]));
      return;
    }
    case 'random':
      writeFileSync(file, randomBytes(statSync(file).size));
      return;
    case 'zero-bytes':
      truncateSync(file, 0);
      return;
    case 'other-schema': {
      // A SQLite database of another program, at the same path.
      rmSync(file);
      const db = new DatabaseSync(file);
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('not iris')");
      db.close();
      return;
    }
    case 'column-missing': {
      // Iris's schema version, one column short (a table rebuilt by hand, or by another program).
      const db = new DatabaseSync(file);
      db.exec('ALTER TABLE tasks DROP COLUMN eligible_at');
      db.close();
      return;
    }
  }
}

/** What a refusal of `kind` says after `<path> is damaged: ` (a pattern: SQLite's words vary with the damage). */
export function damageDetail(kind: Damage): RegExp {
  switch (kind) {
    case 'truncated':
    case 'page-flipped':
      return /database disk image is malformed|quick_check found/;
    case 'header-flipped':
    case 'random':
      return /file is not a database/;
    case 'zero-bytes':
      return /it is empty/;
    case 'other-schema':
      return /it is not an iris database \(no iris schema version; it holds the tables notes\)/;
    case 'column-missing':
      return /table tasks has no column eligible_at/;
  }
}
