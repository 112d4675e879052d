/**
 * Whether a state database can be trusted, asked before the store loads it (store.ts). Every
 * answer other than "empty" or "iris" is `damagedError` (`<path> is damaged: <detail>`, exit 6):
 *
 * - SQLite's own word: a file that is not a database (SQLITE_NOTADB) or is malformed
 *   (SQLITE_CORRUPT), met on any read, and, with `quick`, `PRAGMA quick_check` (every page and
 *   b-tree of the file; ~35–75 ms on a 9 MB database holding 100,000 tasks, against ~0.8 s to
 *   load it, so the controller runs it at every start and readers do not);
 * - the schema's: a database with tables but no iris schema version is not an iris database;
 *   one whose version this iris knows must hold every table and column that version has
 *   (compared with the migrations applied to an empty database). A newer version is left to
 *   schema.ts, which refuses it with its own message.
 *
 * "empty": no schema object and version 0 — what SQLite makes of a 0-byte file, and what a
 * first start that died before its first commit leaves. The caller decides whether it may be
 * initialised (store.ts `ifEmpty`).
 */
import { DatabaseSync } from 'node:sqlite';
import { IrisError } from '../../model/errors.js';
import { damagedError, isDamage } from '../../model/storage.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export type Contents = 'empty' | 'iris';

type Tables = Map<string, Set<string>>;

function tablesOf(db: DatabaseSync): Tables {
  const rows = db
    .prepare(
      'SELECT m.name AS t, p.name AS c FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = ' +
        "'table'",
    )
    .all() as { t: string; c: string }[];
  const tables: Tables = new Map();
  for (const { t, c } of rows) {
    let columns = tables.get(t);
    if (!columns) tables.set(t, (columns = new Set()));
    columns.add(c);
  }
  return tables;
}

const expectedByVersion = new Map<number, Tables>();

/** The tables and columns of schema version `version`: the migrations applied to an empty database. */
function expectedTables(version: number): Tables {
  let tables = expectedByVersion.get(version);
  if (!tables) {
    const db = new DatabaseSync(':memory:');
    try {
      for (let v = 0; v < version; v++) db.exec(MIGRATIONS[v]!);
      tables = tablesOf(db);
    } finally {
      db.close();
    }
    expectedByVersion.set(version, tables);
  }
  return tables;
}

/** What version `version` lacks in `found`, as words; empty when nothing is missing. */
function missing(version: number, found: Tables): string[] {
  const out: string[] = [];
  for (const [table, columns] of expectedTables(version)) {
    const have = found.get(table);
    if (!have) out.push(`table ${table} is missing`);
    else for (const column of columns) if (!have.has(column)) out.push(`table ${table} has no column ${column}`);
  }
  return out;
}

function inspectOrThrow(db: DatabaseSync, path: string, quick: boolean): Contents {
  const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  const objects = (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n;
  if (version === 0 && objects === 0) return 'empty';
  if (quick) {
    const problems = (db.prepare('PRAGMA quick_check(3)').all() as { quick_check: string }[]).map((r) => r.quick_check);
    if (problems.join() !== 'ok') throw damagedError(path, `SQLite's quick_check found: ${problems.join('; ')}`);
  }
  const found = tablesOf(db);
  if (version === 0) {
    const names = [...found.keys()].slice(0, 5).join(', ');
    const holds = names ? `the tables ${names}` : 'no table';
    throw damagedError(path, `it is not an iris database (no iris schema version; it holds ${holds})`);
  }
  if (version > SCHEMA_VERSION) return 'iris';
  const lacks = missing(version, found);
  if (lacks.length > 0)
    throw damagedError(path, `its schema (version ${version}) is not iris's: ${lacks.slice(0, 3).join(', ')}`);
  return 'iris';
}

/** What `db` (the connection to `path`) holds; throws damagedError when it cannot be trusted (see the header). */
export function inspect(db: DatabaseSync, path: string, opts: { quick: boolean }): Contents {
  try {
    return inspectOrThrow(db, path, opts.quick);
  } catch (error) {
    throw asDamage(error, path) ?? error;
  }
}

/** SQLite's damage errors, and a stored record that no longer parses, as damagedError; else null. */
export function asDamage(error: unknown, path: string): Error | null {
  if (error instanceof IrisError) return null;
  if (isDamage(error)) return damagedError(path, (error as Error).message);
  if (error instanceof SyntaxError) return damagedError(path, `a stored record does not parse (${error.message})`);
  return null;
}
