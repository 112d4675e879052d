/**
 * The file that carries a container's task token (ContainerSpec.tokenFile), written on the host
 * beside the attempt's log (inside the state directory's owner-only tree) and bind-mounted
 * read-only into the container. Guarantees:
 * - created new (a leftover of the same path is removed first), never through a link, owner-only
 *   while it is written; then group `gid`, mode 0440: the owner and that group read it, no one
 *   else. The container's processes get `gid` as a supplementary group (create-options.ts
 *   GroupAdd); a host process of the container's uid lacks it, so it cannot read the file, not
 *   even through /proc/PID/root (where the bind mount is visible).
 * - removed when the attempt's container is gone (the runtime's finish and failed launches); a
 *   file left by a crash holds a dead token and goes with the run's logs (prune).
 */
import { closeSync, constants, fchmodSync, fchownSync, openSync, rmSync, writeSync } from 'node:fs';

export function writeTokenFile(file: string, token: string, gid: number): void {
  rmSync(file, { force: true });
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${token}\n`);
    fchownSync(fd, -1, gid);
    fchmodSync(fd, 0o440);
  } finally {
    closeSync(fd);
  }
}

export function removeTokenFile(file: string): void {
  rmSync(file, { force: true });
}
