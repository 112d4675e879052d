/**
 * Who holds a state directory's lock (src/server/state-lock.ts), asked without taking it: the kernel's table
 * of POSIX locks, /proc/locks. Used by the controller that was refused (to name the holder) and by
 * clients that auto-start a cluster (to tell a holder that answers from one still starting). On a
 * system without /proc/locks the holder is unknown (null).
 */
import { readFileSync, statSync } from 'node:fs';

/** The lock file in a state directory. */
export const LOCK_FILE = 'controller.lock';

/**
 * The pid holding an fcntl lock on `file`, from /proc/locks (Linux), or null when none is found.
 * Lines read `1: POSIX  ADVISORY  WRITE 1234 fd:00:5678 0 EOF` (device in hex major:minor, inode).
 */
export function lockHolderPid(file: string): number | null {
  let table: string;
  let st: { dev: bigint; ino: bigint };
  try {
    st = statSync(file, { bigint: true });
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return null;
  }
  const major = ((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn);
  const minor = (st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn);
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== 'POSIX' || fields.length < 6) continue; // also skips "-> " lines of blocked waiters
    const [maj, min, ino] = fields[5]!.split(':');
    if (ino === undefined || BigInt(ino) !== st.ino || BigInt(`0x${maj}`) !== major || BigInt(`0x${min}`) !== minor) continue;
    const pid = Number(fields[4]);
    if (Number.isInteger(pid) && pid > 0) return pid;
  }
  return null;
}
