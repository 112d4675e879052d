/**
 * The `iris` shim on tasks' PATH (`<home>/bin/iris`): a two-line sh script that runs this very
 * CLI under this very Node.
 *
 * Guarantees: `<home>/bin` is a real directory of the controller's user (never a symlink, 0711:
 * traversable, not listable, so a container's unprivileged user can run the shim; on the host the
 * state directory above it is the owner's alone);
 * the shim is replaced atomically (written to a new O_EXCL|O_NOFOLLOW temporary file in the same
 * directory, then renamed over `bin/iris`), so a symlink planted at `bin/iris` is replaced, never
 * followed, and a task never sees a half-written shim; before the controller hands the directory
 * to tasks it checks (without following a symlink) that `bin/iris` is a regular file of its user,
 * mode 0755 (readable and runnable, writable by its owner only), with exactly the expected text. A shim that is already
 * right is left alone, so a
 * restart on a full disk needs no space.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../api/state-dir.js';
import { IrisError } from '../model/errors.js';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;
const MODE = 0o755;
const DIR_MODE = 0o711;

export function shimText(packageRoot: string): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(path.join(packageRoot, 'bin', 'run.js'))} "$@"\n`;
}

/** What is at `file` now, if it is a regular file of this user with mode MODE: its text; else null. */
function currentShim(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW);
  } catch {
    return null; // missing, or a symlink (ELOOP)
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o7777) !== MODE) return null;
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Writes (when needed) and checks `<home>/bin/iris`; returns `<home>/bin`. */
export function writeCliShim(home: string, packageRoot: string): string {
  const dir = path.join(home, 'bin');
  ensurePrivateDir(dir);
  chmodSync(dir, DIR_MODE);
  const file = path.join(dir, 'iris');
  const text = shimText(packageRoot);
  if (currentShim(file) === text) return dir;
  const temp = path.join(dir, `.iris.${process.pid}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, MODE);
  try {
    try {
      fchmodSync(fd, MODE); // whatever the umask
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  if (currentShim(file) !== text) {
    throw new IrisError(
      'unavailable',
      `the iris shim ${file} changed while it was being written`,
      `remove ${dir} and start the cluster again`,
    );
  }
  return dir;
}
