/**
 * Storage errors: a full disk or an exhausted quota, met by SQLite (SQLITE_FULL, "database or
 * disk is full") or by a file write (ENOSPC, EDQUOT). One home for recognising them and for
 * what the user reads: `no space left on <path>` (IrisError `insufficient_storage`, exit 7).
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
  return typeof e.message === 'string' && /database or disk is full|no space left on device|quota exceeded/i.test(e.message);
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
    'free space on that filesystem (old task logs live under IRIS_HOME/logs); the cluster retries on its own and accepts submissions again once its writes succeed',
  );
}
