/**
 * The last look at a container's user mounts before the engine binds them: each `user` mount's
 * host path was resolved to a real path at submit (src/cluster/admission/workspace.ts), and it
 * must still be one. A directory a task could write (an inherited mount's parent) replaced by a
 * link since then would otherwise bind whatever the link points to; such a launch is refused.
 * What is left is the moment between this check and the engine's own mount.
 */
import { realpathSync } from 'node:fs';
import type { ContainerSpec } from '../types.js';
import { LaunchError } from '../process/launch-error.js';

/** Throws a LaunchError naming the first user mount whose host path is missing or no longer real. */
export function checkUserMounts(spec: ContainerSpec): void {
  for (const mount of spec.mounts) {
    if (!mount.user) continue;
    let real: string;
    try {
      real = realpathSync(mount.host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new LaunchError(
        `cannot mount ${mount.host} at ${mount.container}: ${code === 'ENOENT' ? 'it no longer exists' : code}`,
        code,
      );
    }
    if (real !== mount.host) {
      throw new LaunchError(
        `refusing to mount ${mount.host} at ${mount.container}: it resolves to ${real} since the job was submitted ` +
          `(a link was put on its way)`,
      );
    }
  }
}
