/**
 * SpaceReserve: a file of RESERVE_BYTES kept beside the database, so that when the disk fills
 * up (usually a task's log) the store can still write what it must — above all the failure of
 * the attempt that filled it, so that job is not run again into the same full disk.
 *
 * - `ensure()` creates the file at its full size; false (and no file) when it does not fit.
 * - `release()` deletes it, giving its space to SQLite; the store does so at its first failed
 *   write and refuses submissions until `ensure()` succeeds again (space has returned).
 */
import { closeSync, constants, openSync, rmSync, statSync, statfsSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export const RESERVE_BYTES = 1024 * 1024;

export class SpaceReserve {
  constructor(
    private readonly path: string,
    private readonly bytes: number = RESERVE_BYTES,
  ) {}

  /** True when the reserve is in place (created now or already there). */
  ensure(): boolean {
    try {
      if (statSync(this.path).size >= this.bytes) return true;
    } catch {
      // not there yet
    }
    let fd: number | null = null;
    try {
      fd = openSync(
        this.path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
        0o600,
      );
      const chunk = Buffer.alloc(Math.min(this.bytes, 64 * 1024));
      for (let written = 0; written < this.bytes; )
        written += writeSync(fd, chunk, 0, Math.min(chunk.length, this.bytes - written));
      return true;
    } catch {
      if (fd !== null) closeSync(fd);
      fd = null;
      this.release();
      return false;
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }

  /** Delete the reserve (its space goes back to the filesystem). Returns true when there was one. */
  release(): boolean {
    try {
      rmSync(this.path);
      return true;
    } catch {
      return false;
    }
  }
}

/** True when the filesystem holding `path` has no block left for an unprivileged writer. */
export function fullDisk(path: string): boolean {
  try {
    return statfsSync(dirname(path)).bavail === 0;
  } catch {
    return false;
  }
}
