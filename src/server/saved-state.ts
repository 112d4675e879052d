/**
 * What a state directory keeps of earlier runs besides its database, and how a deliberate fresh
 * start puts it all aside.
 *
 * - `earlierRuns(home)`: words for the traces of earlier runs — a log file (a regular file) under
 *   `<home>/logs`, or changes waiting in a WAL beside state.db — or null when there are none. A state database that
 *   is missing or empty next to such traces is refused, never initialised again: a new database
 *   starts run ids from 1 again, orphaning those logs (and writing new ones over them).
 * - `moveAside(home)`, for `iris cluster start --fresh`: moves state.db with its WAL, journal and
 *   space reserve, `logs/` and `spool/`, into a new owner-only `<home>/aside-<UTC time>/`; deletes nothing.
 *   Called while the caller holds the old database's lock (state-lock.ts).
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { STATE_FILE } from '../api/lock-holder.js';

/** What moves aside with the database. */
const STATE_FILES = [
  STATE_FILE,
  `${STATE_FILE}-wal`,
  `${STATE_FILE}-shm`,
  `${STATE_FILE}-journal`,
  `${STATE_FILE}.reserve`,
  'logs',
  // The process runtime's spools and status files (cluster/controller/launch.ts spoolDirFor).
  'spool',
];

/** A WAL no longer than its header holds no change. */
const WAL_HEADER_BYTES = 32;

/** True when a regular file lies somewhere under `dir` (symlinks are not followed, nor counted). */
function holdsAFile(dir: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((entry) => entry.isFile())) return true;
  return entries.some((entry) => entry.isDirectory() && holdsAFile(join(dir, entry.name)));
}

export function earlierRuns(home: string): string | null {
  const logs = join(home, 'logs');
  if (holdsAFile(logs)) return `${logs} holds the logs of earlier runs`;
  const wal = join(home, `${STATE_FILE}-wal`);
  try {
    if (statSync(wal).size > WAL_HEADER_BYTES) return `${wal} holds changes of earlier runs`;
  } catch {
    // no WAL
  }
  return null;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Move the saved state of `home` aside (see the header); the directory it went to, or null when there was none. */
export function moveAside(home: string, now = new Date()): string | null {
  const present = STATE_FILES.filter((name) => exists(join(home, name)));
  if (present.length === 0) return null;
  const aside = join(home, `aside-${now.toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(aside, { mode: 0o700 });
  for (const name of present) renameSync(join(home, name), join(aside, name));
  return aside;
}
