/**
 * Log files on disk beside the writer: directories made once per process (ensureDir, forgetDir)
 * and iris's own notes appended to a log (appendNote), in the format of format.ts.
 *
 * Owner-only and never through a symlink: directories are made 0700 and a symlink where the
 * directory should be is refused (ENOTDIR); log files are created 0600 and opened with
 * LOG_OPEN_FLAGS (O_NOFOLLOW: a symlink planted at a log's path fails with ELOOP instead of
 * sending the output into its target).
 *
 * A quiet attempt leaves no directory behind (removeEmptyDirs): once its end is recorded, the
 * directories of its log that hold nothing are removed, up to (not including) the logs root.
 * Readers take a missing log, or a missing directory of logs, as an empty log.
 */
import { constants, lstat, mkdir } from 'node:fs';
import { open, rmdir } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { formatLines } from './format.js';

const madeDirs = new Set<string>();

/** How every log file is opened for writing: append, create (0600), never through a symlink. */
export const LOG_OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** mkdir -p (0700), remembered per process so launches in one directory pay for it once. */
export function ensureDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    mkdir(dir, { recursive: true, mode: 0o700 }, (err) => {
      if (err) return reject(err);
      lstat(dir, (statErr, st) => {
        if (statErr) return reject(statErr);
        if (!st.isDirectory()) {
          return reject(
            Object.assign(new Error(`ENOTDIR: not a directory (a symlink is not followed): ${dir}`), {
              code: 'ENOTDIR',
              path: dir,
            }),
          );
        }
        if (madeDirs.size > 10_000) madeDirs.clear();
        madeDirs.add(dir);
        resolve();
      });
    });
  });
}

/**
 * Appends iris's own note (e.g. "attempt 2 stopped: preempted") to a log file as `e` lines,
 * one per line of `text`, in one write that starts with its own time line. Creates the
 * directory and the file when needed.
 */
export async function appendNote(path: string, text: string, now: number = Date.now()): Promise<void> {
  await ensureDir(dirname(path));
  const body = formatLines(now, 'e', text.replace(/\n$/, '').split('\n'));
  const file = await open(path, LOG_OPEN_FLAGS, 0o600);
  try {
    await file.write(body);
  } finally {
    await file.close();
  }
}

/** Forget that `dir` was made (it was removed meanwhile): the next ensureDir makes it again. */
export function forgetDir(dir: string): void {
  madeDirs.delete(dir);
}

/**
 * Removes `dir` and then each parent of it while it is empty, stopping below `root` (never
 * removed) or at the first directory that is not empty or not there. Each directory is forgotten
 * (ensureDir makes it again) before its removal is asked for. The removals run in the thread pool,
 * one after the other: an rmdir is a metadata write that can take milliseconds on a busy disk, and
 * the controller's thread must not wait for it. A launch that makes a directory meanwhile is safe:
 * a directory that holds anything is never removed, and a recursive mkdir makes again a parent
 * removed under it. `dir` outside `root` is left alone. Never rejects.
 */
export async function removeEmptyDirs(dir: string, root: string): Promise<void> {
  const rel = relative(root, dir);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..')) return;
  for (let at = dir; at !== root && at.length > root.length; at = dirname(at)) {
    forgetDir(at);
    try {
      await rmdir(at);
    } catch {
      return;
    }
  }
}
