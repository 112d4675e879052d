/**
 * A small real filesystem for disk-full tests: a tmpfs of a few MiB mounted on a fresh
 * directory (needs root, as in CI). `fill()` writes a filler file until the filesystem is full;
 * `free()` deletes it. Without the right to mount, `mountTmpfs` returns null so the test can
 * skip — except under CI=true, where it throws: a missing fixture fails there, never skips.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Fill the filesystem completely (a filler file); returns the filler's path. */
  fill(): string;
  /** Delete the filler. */
  free(): void;
  unmount(): void;
}

const inCI = (): boolean => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

export function mountTmpfs(sizeMiB: number, at?: string): Tmpfs | null {
  const dir = at ?? mkdtempSync(path.join(tmpdir(), 'iris-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}M,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    if (at === undefined) rmSync(dir, { recursive: true, force: true });
    if (inCI()) throw new Error(`cannot mount a tmpfs for the disk-full test (run as root): ${String(error)}`);
    return null;
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // The last partial page: write byte by byte until nothing fits.
        try {
          for (;;) writeSync(fd, chunk, 0, 1);
        } catch {
          // full
        }
      } finally {
        closeSync(fd);
      }
      return filler;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        if (at === undefined) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
