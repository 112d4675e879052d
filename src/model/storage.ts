/**
 * Storage errors: a full disk or an exhausted quota, met by SQLite (SQLITE_FULL, "database or
 * disk is full") or by a file write (ENOSPC, EDQUOT). One home for recognising them and for
 * what the user reads: `no space left on <path>` (IrisError `insufficient_storage`, exit 7).
 *
 * Also SQLite's word for a damaged database (SQLITE_CORRUPT, SQLITE_NOTADB) and for a database
 * another process holds (SQLITE_BUSY), and what the user reads about a state database that is
 * damaged or missing: `<path> is damaged: <detail>` (IrisError `unavailable`, exit 6), with the
 * one way to start again deliberately (`iris cluster start --fresh`): iris keeps no backup.
 */
import { IrisError } from './errors.js';

const FS_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** SQLite's primary result code SQLITE_FULL (extended codes keep it in the low byte). */
const SQLITE_FULL = 13;

/** True when `error` says the disk (or the user's quota) is full. */
export function isNoSpace(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errno?: unknown; errcode?: unknown; message?: unknown };
  if (typeof e.code === 'string' && FS_CODES.has(e.code)) return true;
  if (typeof e.errno === 'string' && FS_CODES.has(e.errno)) return true;
  if (typeof e.errcode === 'number' && (e.errcode & 0xff) === SQLITE_FULL) return true;
  return (
    typeof e.message === 'string' && /database or disk is full|no space left on device|quota exceeded/i.test(e.message)
  );
}

/** The reason an attempt or a refusal gives for a full disk. */
export function noSpaceReason(path: string): string {
  return `no space left on ${path}`;
}

/** The error the API answers with while the cluster cannot write its state. */
export function noSpaceError(path: string): IrisError {
  return new IrisError(
    'insufficient_storage',
    noSpaceReason(path),
    'free space on that filesystem (old task logs live under IRIS_HOME/logs); the cluster retries on its own and ' +
      'accepts submissions again once its writes succeed',
  );
}

/** The state database cannot even be opened for lack of space (a cluster start; exit 7). */
export function noSpaceToOpen(path: string): IrisError {
  const home = dirOf(path);
  return new IrisError(
    'insufficient_storage',
    `cannot open ${path}: the disk holding ${home} is full`,
    `free space on that filesystem (old task logs live under ${home}/logs), then start the cluster again`,
  );
}

/** SQLite's primary result codes for a damaged database: SQLITE_CORRUPT and SQLITE_NOTADB. */
const SQLITE_DAMAGE = new Set([11, 26]);
/** SQLite's SQLITE_BUSY: another connection (another process) holds the database's lock. */
const SQLITE_BUSY = 5;

function sqliteCode(error: unknown): number | null {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : null;
}

/** True when SQLite says the database file is not a database or is malformed. */
export function isDamage(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== null && SQLITE_DAMAGE.has(code);
}

/** True when SQLite could not take the database's lock: another process holds it. */
export function isLocked(error: unknown): boolean {
  return sqliteCode(error) === SQLITE_BUSY;
}

/** What to do about a damaged or missing state database in the state directory `home`. */
function damageHint(home: string): string {
  return (
    'iris keeps no backup of its state database. Keep a copy of what is there for inspection ' +
    `(\`cp -a ${home} ${home}.damaged\`); to start an empty cluster deliberately, run \`iris cluster start ` +
    `--fresh\`: ` +
    `it moves state.db and the logs into ${home}/aside-<time>/ and deletes nothing`
  );
}

function dirOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut > 0 ? path.slice(0, cut) : '/';
}

/** The state database cannot be trusted: `detail` is what SQLite or the schema check said (exit 6). */
export function damagedError(path: string, detail: string): IrisError {
  return new IrisError('unavailable', `${path} is damaged: ${detail}`, damageHint(dirOf(path)));
}

/** The state database is gone while the state directory holds traces of earlier runs (`evidence`) (exit 6). */
export function missingError(path: string, evidence: string): IrisError {
  return new IrisError('unavailable', `${path} is missing, but ${evidence}`, damageHint(dirOf(path)));
}
