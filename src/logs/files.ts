/**
 * Log files on disk beside the writer: directories made once per process (ensureDir, forgetDir)
 * and iris's own notes appended to a log (appendNote), in the format of format.ts.
 */
import { appendFile, mkdir } from 'node:fs';
import { dirname } from 'node:path';
import { formatLines } from './format.js';

const madeDirs = new Set<string>();

/** mkdir -p, remembered per process so launches in one directory pay for it once. */
export function ensureDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    mkdir(dir, { recursive: true }, (err) => {
      if (err) return reject(err);
      if (madeDirs.size > 10_000) madeDirs.clear();
      madeDirs.add(dir);
      resolve();
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
  await new Promise<void>((resolve, reject) => appendFile(path, body, (err) => (err ? reject(err) : resolve())));
}

/** Forget that `dir` was made (it was removed meanwhile): the next ensureDir makes it again. */
export function forgetDir(dir: string): void {
  madeDirs.delete(dir);
}
