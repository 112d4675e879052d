/**
 * Who holds a state directory's lock, asked without taking it. The lock is the controller's
 * connection to `<home>/state.db` (src/cluster/state/database.ts: an fcntl write lock on the
 * database file, held for the controller's life), so the kernel's table of POSIX locks,
 * /proc/locks, names its holder. Used by the controller that was refused (to name the holder),
 * by clients that auto-start a cluster (to tell a holder that answers from one still starting)
 * and by the offline reader (to read saved state only while no controller holds it). On a
 * system without /proc/locks the holder is unknown (null).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The state database, whose lock is the state directory's. */
export const STATE_FILE = 'state.db';

/** The pid holding the lock of the state directory `home`, or null when none is found. */
export function stateHolderPid(home: string): number | null {
  return lockHolderPid(join(home, STATE_FILE));
}

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
    if (ino === undefined || BigInt(ino) !== st.ino || BigInt(`0x${maj}`) !== major || BigInt(`0x${min}`) !== minor)
      continue;
    const pid = Number(fields[4]);
    if (Number.isInteger(pid) && pid > 0) return pid;
  }
  return null;
}
