/**
 * A second local user for the tests of what another user can do to the owner's cluster (the
 * hostile suite, test/hostile/). `createLocalUser` adds a user without a home (`useradd -M`) whose
 * name is unique to this test process, `as(...)` runs a command as that user (`runuser`), and
 * `remove()` deletes it again. Needs root: without it `createLocalUser` returns null so a test can
 * skip with one line — except under CI=true, where it throws (a missing fixture fails the run).
 */
import { execFileSync } from 'node:child_process';
import type { ExecFileSyncOptions } from 'node:child_process';

export interface LocalUser {
  name: string;
  uid: number;
  gid: number;
  /** Run `argv` as this user and return its stdout; throws on a non-zero exit. */
  as(argv: readonly string[], opts?: ExecFileSyncOptions): string;
  remove(): void;
}

const inCI = (): boolean => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

let made = 0;

/** A fresh local user named `iris<tag><pid><n>` (at most 32 characters), or null without root outside CI. */
export function createLocalUser(tag: string): LocalUser | null {
  if (process.getuid?.() !== 0) {
    if (inCI()) throw new Error('the tests of another local user need root (useradd, runuser); CI runs as root');
    return null;
  }
  const name = `iris${tag}${process.pid % 100000}x${made++}`.slice(0, 32);
  execFileSync('useradd', ['-M', '-s', '/bin/sh', name], { stdio: 'pipe' });
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return {
    name,
    uid,
    gid,
    as: (argv, opts = {}) =>
      String(execFileSync('runuser', ['-u', name, '--', ...argv], { stdio: 'pipe', encoding: 'utf8', ...opts })),
    remove: () => {
      try {
        execFileSync('userdel', [name], { stdio: 'pipe' });
      } catch {
        // already gone
      }
    },
  };
}
