/**
 * readTaskFile: the one way the controller reads a file that a task could have written or
 * replaced — an attempt's result file ($IRIS_RESULT_FILE), and the process wrapper's status,
 * `times` and `.pos` files (docs/security.md, "Result files are read safely").
 *
 * Guarantees:
 * - The file is opened with O_NOFOLLOW (a symlink in its place is refused, never followed),
 *   O_NONBLOCK (opening a FIFO never waits for a writer) and O_NOCTTY, synchronously: no read
 *   ever waits on the task, and nothing occupies libuv's thread pool.
 * - Nothing is read before fstat of the opened descriptor says it is a regular file with exactly
 *   one link (a hard link to a file elsewhere has two or more), owned by the expected uid when
 *   one is given, and at most `maxBytes` long.
 * - Then at most `maxBytes + 1` bytes are read, into a buffer of the size fstat gave (plus one
 *   byte): a file that grew past the limit after fstat is refused too. Memory is bounded by the
 *   limit, whatever the file claims.
 * - The answer is the bytes, `missing` (no file), or a refusal whose `why` is iris's own words
 *   (the kind of file, the uid, the size): never any of the file's content.
 *
 * writeTaskFile is the one way it writes a file where a task can write too (the attempt's notice
 * file, $IRIS_NOTICE_FILE): into a new file of a random name beside it, created with O_EXCL and
 * O_NOFOLLOW (nothing a task placed there is opened or followed), mode 0644, then renamed over
 * the path (rename replaces a link or file in its place, never follows one). It never reads back.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

export type TaskFileRead = { kind: 'ok'; data: Buffer } | { kind: 'missing' } | { kind: 'refused'; why: string };

export interface TaskFileRules {
  /** Largest size accepted, in bytes. */
  maxBytes: number;
  /** The uid the file must belong to (the task's user); null: any owner (the host cannot tell who the task is). */
  owner: number | null;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** What fstat's mode says a file is, in words; null for a regular file. */
function notRegular(mode: number): string | null {
  switch (mode & constants.S_IFMT) {
    case constants.S_IFREG:
      return null;
    case constants.S_IFIFO:
      return 'a FIFO';
    case constants.S_IFCHR:
      return 'a character device';
    case constants.S_IFBLK:
      return 'a block device';
    case constants.S_IFSOCK:
      return 'a socket';
    case constants.S_IFDIR:
      return 'a directory';
    default:
      return 'not a regular file';
  }
}

/** Why opening failed, in words (ENOENT is `missing`, answered before this). */
function openFailure(code: string | undefined): string {
  if (code === 'ELOOP') return 'it is a symbolic link (never followed)';
  if (code === 'ENXIO') return 'it is a socket, not a regular file';
  if (code === 'EACCES' || code === 'EPERM') return 'it cannot be read (permission denied)';
  if (code === 'ENOTDIR') return 'a directory above it is not a directory';
  return `it cannot be opened (${code ?? 'unknown error'})`;
}

/** lstat's answer: undefined for no file; any other error is left to open() to report. */
function lstatOrError(path: string): unknown {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    return error;
  }
}

export function readTaskFile(path: string, rules: TaskFileRules): TaskFileRead {
  // Most attempts write no such file: an lstat answers that without the cost of a thrown error
  // (~10 µs instead of ~45). It decides nothing else: the descriptor's fstat below does.
  if (lstatOrError(path) === undefined) return { kind: 'missing' };
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'refused', why: openFailure(code) };
  }
  try {
    const st = fstatSync(fd);
    const kind = notRegular(st.mode);
    if (kind !== null) return { kind: 'refused', why: `it is ${kind}, not a regular file` };
    if (st.nlink !== 1)
      return { kind: 'refused', why: `it has ${st.nlink} hard links (a file of the task's own has one)` };
    if (rules.owner !== null && st.uid !== rules.owner) {
      return { kind: 'refused', why: `it belongs to uid ${st.uid}, not to the task's user (uid ${rules.owner})` };
    }
    if (st.size > rules.maxBytes) {
      return { kind: 'refused', why: `it is ${st.size} bytes, more than the limit of ${rules.maxBytes}` };
    }
    // Sized by fstat, plus one byte to notice a file that grew; grown (up to the limit + 1) only then.
    let buf = Buffer.allocUnsafe(st.size + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
      if (length < buf.length) continue;
      if (length > rules.maxBytes) break;
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, rules.maxBytes + 1));
      buf.copy(bigger, 0, 0, length);
      buf = bigger;
    }
    if (length > rules.maxBytes) {
      return { kind: 'refused', why: `it grew past the limit of ${rules.maxBytes} bytes while being read` };
    }
    return { kind: 'ok', data: buf.subarray(0, length) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: 'refused', why: `it cannot be read (${code ?? 'unknown error'})` };
  } finally {
    closeSync(fd);
  }
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Write `text` to `file` in a directory a task can write to (see the header); throws when it cannot. */
export function writeTaskFile(file: string, text: string): void {
  const fresh = path.join(path.dirname(file), `.iris-${randomBytes(9).toString('hex')}.tmp`);
  const fd = openSync(fresh, WRITE_FLAGS, 0o644);
  try {
    try {
      fchmodSync(fd, 0o644);
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(fresh, file);
  } catch (error) {
    rmSync(fresh, { force: true });
    throw error;
  }
}

/**
 * The uid a task's files belong to, for `TaskFileRules.owner`: a process task runs as the
 * controller's own uid (`ownUid`, null where the platform has no uids); a container task as its
 * container user when that is a number (`65534`, `1000:1000`) or `root` (0). A user given by
 * another name, or none (the image's own), is resolved inside the image, so the host cannot
 * tell: null (any owner).
 */
export function taskFileOwner(
  container: { user?: string } | null | undefined,
  ownUid: number | null = myUid(),
): number | null {
  if (!container) return ownUid;
  const user = container.user?.trim().split(':')[0] ?? '';
  if (/^\d+$/.test(user)) return Number(user);
  return user === 'root' ? 0 : null;
}

/** This process's effective uid; null where the platform has none. */
export function myUid(): number | null {
  return process.geteuid?.() ?? null;
}
