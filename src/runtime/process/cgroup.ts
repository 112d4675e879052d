/**
 * One cgroup per attempt, so that a task cannot leave supervision: `setsid`, a double fork, a
 * new process group or `env -i` do not take a process out of its cgroup (only root writing
 * another cgroup's `cgroup.procs` does). The attempt's wrapper writes its own pid into
 * `cgroup.procs` before it starts the task (wrapper.ts), so every descendant is born inside.
 *
 * Layout: `<hierarchy>/iris/<clusterId>/<attempt>` (cgroup-fs.ts, which also reads the mounts,
 * lists, probes and removes cgroups for this module and usage.ts) where the hierarchy is, in order
 * of preference:
 * - cgroup v2 (a `cgroup2` mount): killing is one write to `cgroup.kill` (the kernel kills every
 *   member, including ones forked meanwhile);
 * - cgroup v1 `pids`, else `freezer`: killing SIGKILLs every pid listed in `cgroup.procs`, again
 *   and again until the list stays empty (a killed process forks no more, so it converges).
 * detectCgroups() picks the first that this process can really use (probeHierarchy) and returns
 * null when none is writable; then the runtime falls back to process groups and a /proc scan (see
 * docs/runtime.md for what that fallback cannot reach).
 *
 * Every function tolerates a cgroup that vanished meanwhile (ENOENT, or ENODEV from a removed one).
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  attemptCgroupDir,
  clusterCgroupDir,
  isMissing,
  listCgroups,
  mountedHierarchies,
  probeHierarchy,
  readMounts,
  removeCgroupTree,
} from './cgroup-fs.js';
import { readKernelFile } from '../../host/small-file.js';

export type CgroupKind = 'v2' | 'v1-pids' | 'v1-freezer';

/** How the runtime may choose: 'auto' (the best usable), one kind, or 'off' (process groups only). */
export type CgroupChoice = 'auto' | CgroupKind | 'off';

export interface CgroupMount {
  kind: CgroupKind;
  /** Mount point of the hierarchy. */
  root: string;
}

/** The hierarchies that can stop attempts, from /proc/self/mounts text, best first (not probed). */
export function parseMounts(text: string): CgroupMount[] {
  const found: CgroupMount[] = [];
  for (const { version, root, options } of mountedHierarchies(text)) {
    if (version === 2) found.push({ kind: 'v2', root });
    else if (options.has('pids')) found.push({ kind: 'v1-pids', root });
    else if (options.has('freezer')) found.push({ kind: 'v1-freezer', root });
  }
  const rank: Record<CgroupKind, number> = { v2: 0, 'v1-pids': 1, 'v1-freezer': 2 };
  return found.sort((a, b) => rank[a.kind] - rank[b.kind]);
}

/** A cgroup name for an attempt: one path component, the same in every life of the cluster. */
export function attemptCgroupName(task: string, attempt: number): string {
  return `${encodeURIComponent(task)}.${attempt}`;
}

export class TaskCgroups {
  readonly kind: CgroupKind;
  /** Mount point of the hierarchy. */
  readonly root: string;

  constructor(mount: CgroupMount) {
    this.kind = mount.kind;
    this.root = mount.root;
  }

  /** The directory of a cluster's cgroups (attempt cgroups are its children). */
  clusterDir(clusterId: string): string {
    return clusterCgroupDir(this.root, clusterId);
  }

  dirFor(clusterId: string, name: string): string {
    return attemptCgroupDir(this.root, clusterId, name);
  }

  /** Creates the attempt's cgroup (an existing one is reused: the caller empties it first). */
  async create(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
  }

  procsFile(dir: string): string {
    return join(dir, 'cgroup.procs');
  }

  /** The pids in the cgroup; [] when it is gone. */
  async pids(dir: string): Promise<number[]> {
    let text: string;
    try {
      text = readKernelFile(this.procsFile(dir));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((n) => Number.isSafeInteger(n) && n > 0);
  }

  /** Sends `signal` to every member (TERM reaches processes outside the leader's group too). */
  async signal(dir: string, signal: NodeJS.Signals): Promise<void> {
    for (const pid of await this.pids(dir)) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  }

  /**
   * SIGKILLs every member and resolves once the cgroup is empty, or false after `waitMs`
   * (a process in uninterruptible sleep may take a while to die).
   */
  async kill(dir: string, waitMs = 5000): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    let pause = 1;
    for (;;) {
      const pids = await this.pids(dir);
      if (pids.length === 0) return true;
      if (this.kind === 'v2') {
        try {
          await writeFile(join(dir, 'cgroup.kill'), '1');
        } catch (err) {
          if (isMissing(err)) return true;
          throw err;
        }
      } else {
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Removes an empty cgroup and the empty cgroups below it (removeCgroupTree). */
  remove(dir: string): Promise<boolean> {
    return removeCgroupTree(dir);
  }

  /** Kills and removes the attempt's cgroup. */
  async destroy(dir: string, waitMs?: number): Promise<void> {
    await this.kill(dir, waitMs);
    await this.remove(dir);
  }

  /** Names of the attempt cgroups of a cluster that exist now. */
  list(clusterId: string): Promise<string[]> {
    return listCgroups(this.clusterDir(clusterId));
  }
}

export interface DetectOptions {
  choice?: CgroupChoice;
  mountsText?: string;
}

/**
 * The cgroups backend to use, or null. A candidate is used only when a probe cgroup can be
 * created and removed in it and (v2) it offers `cgroup.kill`.
 */
export async function detectCgroups(opts: DetectOptions = {}): Promise<TaskCgroups | null> {
  const choice = opts.choice ?? 'auto';
  if (choice === 'off') return null;
  const text = opts.mountsText ?? (await readMounts());
  if (text === null) return null;
  for (const mount of parseMounts(text)) {
    if (choice !== 'auto' && mount.kind !== choice) continue;
    // v2 kills through `cgroup.kill` (Linux 5.14+): a v2 hierarchy without it is not used.
    const hasKill = async (dir: string): Promise<boolean> =>
      mount.kind !== 'v2' ||
      (await stat(join(dir, 'cgroup.kill')).then(
        () => true,
        () => false,
      ));
    if (await probeHierarchy(mount.root, hasKill)) return new TaskCgroups(mount);
  }
  return null;
}
