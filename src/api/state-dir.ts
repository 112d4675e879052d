/**
 * The one rule for the state directory (`IRIS_HOME`), checked by the client that starts a
 * cluster and again by the controller itself, before either writes a byte there:
 *
 * - the state directory must be a directory owned by the calling user and not writable by its
 *   group or others (a symlink to one is accepted only when the link itself belongs to the
 *   caller or root);
 * - every directory above it, up to `/` (along the path as written and along its real path),
 *   must be owned by the caller or root, and must not be group/other-writable unless it has the
 *   sticky bit (the rule ssh applies to `~/.ssh`: root's `/tmp` is fine, another user's
 *   directory is not, since its owner could swap what lies inside it) — the one ancestor rule of
 *   model/path-trust.ts, which also guards config files;
 * - a missing state directory is created with mode 0700 (and missing parents with it); an
 *   existing one is never chmodded: iris did not create it, so it refuses it instead.
 *
 * Files iris keeps there are made owner-only without following symlinks (`ensurePrivateFile`:
 * O_CREAT|O_EXCL|O_NOFOLLOW, 0600; an existing one must be a regular file of the caller and is
 * tightened to 0600). A refusal is IrisError('invalid_argument', reason, fix): exit code 2.
 *
 * Lives in src/api (beside lock-holder.ts) because both the client that auto-starts a cluster and
 * the controller apply it.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { IrisError } from '../model/errors.js';
import { ancestorProblem, type PathEntry } from '../model/path-trust.js';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;
const GROUP_OTHER_WRITE = 0o022;

function myUid(): number {
  return process.getuid?.() ?? -1;
}

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new IrisError(
      'invalid_argument',
      `cannot inspect ${path}: ${(error as Error).message}`,
      'set IRIS_HOME to a directory you own',
    );
  }
}

function refuse(home: string, reason: string, fix: string): IrisError {
  return new IrisError('invalid_argument', `refusing the state directory ${home}: ${reason}`, fix);
}

const FIX_HOME =
  'use a private directory of your own: unset IRIS_HOME (default ~/.iris), or create one with `mkdir -m 700 DIR` ' +
  'and set IRIS_HOME=DIR';

/**
 * Every existing directory from `dir` up to `/`, looked at without following the last component,
 * by the one ancestor rule (model/path-trust.ts ancestorProblem).
 */
function checkAncestors(home: string, dir: string, uid: number): void {
  for (let p = dir; ; p = dirname(p)) {
    const st = lstatOrNull(p);
    const problem = st === null ? null : ancestorProblem(entryOf(p, st), uid);
    if (problem?.problem === 'owner') {
      throw refuse(
        home,
        `${p}, above it, belongs to another user (uid ${problem.uid}), who could replace what lies inside it`,
        FIX_HOME,
      );
    }
    if (problem) {
      throw refuse(
        home,
        `${p}, above it, is writable by other users and has no sticky bit (mode ${octal(st!.mode)}), so they could ` +
          `replace what lies inside it`,
        `${FIX_HOME}; or make ${p} writable only by its owner (\`chmod go-w ${p}\`)`,
      );
    }
    if (p === dirname(p)) return;
  }
}

function entryOf(path: string, st: Stats): PathEntry {
  const kind = st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : 'other';
  return { path, kind, uid: st.uid, mode: st.mode };
}

/** The state directory itself (already existing). */
function checkHome(home: string, uid: number): void {
  const link = lstatOrNull(home);
  if (link === null) return;
  let st: Stats = link;
  if (link.isSymbolicLink()) {
    if (link.uid !== uid && link.uid !== 0)
      throw refuse(home, `it is a symlink that belongs to another user (uid ${link.uid})`, FIX_HOME);
    try {
      st = statSync(home);
    } catch (error) {
      throw refuse(home, `it is a symlink to nothing usable (${(error as NodeJS.ErrnoException).code})`, FIX_HOME);
    }
  }
  if (!st.isDirectory()) throw refuse(home, 'it is not a directory', FIX_HOME);
  if (st.uid !== uid)
    throw refuse(home, `it belongs to another user (uid ${st.uid}), not to you (uid ${uid})`, FIX_HOME);
  if ((st.mode & GROUP_OTHER_WRITE) !== 0) {
    throw refuse(
      home,
      `it is writable by other users (mode ${octal(st.mode)})`,
      `${FIX_HOME}; iris never changes the mode of a directory it did not create (\`chmod go-w ${home}\` if it is ` +
        `yours alone)`,
    );
  }
}

/** Throws IrisError (exit 2) unless `home` (absolute) is safe to use or to create; writes nothing. */
export function checkStateDir(home: string): void {
  const uid = myUid();
  if (uid < 0) return; // no POSIX owners to check (not Linux/macOS)
  checkHome(home, uid);
  checkAncestors(home, dirname(home), uid);
  // The same along the real path: a symlinked parent must not lead into someone else's directory.
  let existing = home;
  while (lstatOrNull(existing) === null && existing !== dirname(existing)) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    return;
  }
  if (real !== existing) checkAncestors(home, existing === home ? dirname(real) : real, uid);
}

/**
 * Checks `home`, creates it (0700, with any missing parents) when missing, and checks again (so
 * a directory someone else slipped in meanwhile is still refused). Never chmods a directory.
 */
export function prepareStateDir(home: string): void {
  checkStateDir(home);
  if (lstatOrNull(home) === null) {
    try {
      mkdirSync(home, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw refuse(home, `it cannot be created: ${(error as Error).message}`, FIX_HOME);
    }
  }
  checkStateDir(home);
}

/**
 * A directory iris keeps inside the state directory (e.g. `bin`): created 0700 when missing;
 * an existing one must be a real directory (not a symlink) of the caller, not group/other-writable.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = lstatSync(dir);
  const uid = myUid();
  if (!st.isDirectory() || (uid >= 0 && st.uid !== uid) || (st.mode & GROUP_OTHER_WRITE) !== 0) {
    const what = st.isSymbolicLink()
      ? 'a symlink'
      : !st.isDirectory()
        ? 'not a directory'
        : st.uid !== uid
          ? `owned by uid ${st.uid}`
          : `writable by others (mode ${octal(st.mode)})`;
    throw new IrisError(
      'invalid_argument',
      `${dir} in the state directory is ${what}; iris will not use it`,
      `remove it (\`rm -r ${dir}\`) and start again: iris recreates it`,
    );
  }
}

/**
 * Makes sure `path` is a regular file of the caller with mode 0600, never following a symlink:
 * a missing one is created empty (O_CREAT|O_EXCL|O_NOFOLLOW); an existing one is tightened to 0600.
 */
export function ensurePrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      fd = openSync(path, O_RDONLY | O_NOFOLLOW);
    } catch (inner) {
      const code = (inner as NodeJS.ErrnoException).code;
      const what = code === 'ELOOP' ? 'a symlink' : `unreadable (${code})`;
      throw new IrisError(
        'invalid_argument',
        `${path} in the state directory is ${what}; iris will not follow or use it`,
        `remove it (\`rm ${path}\`) and start again`,
      );
    }
  }
  try {
    const st = fstatSync(fd);
    const uid = myUid();
    if (!st.isFile() || (uid >= 0 && st.uid !== uid)) {
      throw new IrisError(
        'invalid_argument',
        `${path} in the state directory is ${st.isFile() ? `owned by uid ${st.uid}` : 'not a regular file'}` +
          `; iris will not use it`,
        `remove it (\`rm -r ${path}\`) and start again`,
      );
    }
    if ((st.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** ensurePrivateFile for each of `names` that exists in `dir` (e.g. SQLite's -wal and -shm). */
export function tightenIfPresent(dir: string, names: readonly string[]): void {
  for (const name of names) if (lstatOrNull(join(dir, name)) !== null) ensurePrivateFile(join(dir, name));
}
