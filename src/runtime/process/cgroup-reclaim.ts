/**
 * Reclaiming attempt cgroups a cluster left behind (the cgroup half of ProcessRuntime.reclaim;
 * the environment scan of reclaim.ts covers hosts without cgroups).
 *
 * Guarantees: every attempt cgroup of the cluster except the excluded (live) ones is stopped —
 * SIGTERM to its members, up to the grace for them to leave, then destroyed (which kills what is
 * left) — and removed. The keys returned are those of cgroups that still held processes, read
 * back from the cgroup's name (attemptCgroupName, cgroup.ts); a name that does not parse stops
 * its cgroup all the same but yields no key.
 */
import type { TaskKey } from '../types.js';
import type { TaskCgroups } from './cgroup.js';

/** Stops every attempt cgroup of `clusterId` except `exclude` (TERM, grace, KILL) and removes it. */
export async function reclaimCgroups(
  cgroups: TaskCgroups,
  clusterId: string,
  graceMs: number,
  exclude: ReadonlySet<string | null | undefined>,
): Promise<TaskKey[]> {
  const dirs = (await cgroups.list(clusterId))
    .map((name) => ({ name, dir: cgroups.dirFor(clusterId, name) }))
    .filter((c) => !exclude.has(c.dir));
  const stopped: TaskKey[] = [];
  await Promise.all(
    dirs.map(async ({ name, dir }) => {
      const pids = await cgroups.pids(dir);
      if (pids.length > 0) {
        const key = keyOfCgroup(name);
        if (key) stopped.push(key);
        await cgroups.signal(dir, 'SIGTERM');
        const deadline = Date.now() + graceMs;
        while (Date.now() < deadline && (await cgroups.pids(dir)).length > 0)
          await new Promise((r) => setTimeout(r, 20));
      }
      await cgroups.destroy(dir);
    }),
  );
  return stopped;
}

function keyOfCgroup(name: string): TaskKey | null {
  const dot = name.lastIndexOf('.');
  const attempt = Number(name.slice(dot + 1));
  if (dot <= 0 || !Number.isInteger(attempt)) return null;
  let task: string;
  try {
    task = decodeURIComponent(name.slice(0, dot));
  } catch {
    return null;
  }
  const cut = task.lastIndexOf('/');
  return { job: cut > 0 ? task.slice(0, cut) : '', task, attempt };
}
