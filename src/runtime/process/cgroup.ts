/**
 * One cgroup per attempt, so that a task cannot leave supervision: `setsid`, a double fork, a
 * new process group or `env -i` do not take a process out of its cgroup (only root writing
 * another cgroup's `cgroup.procs` does). The attempt's wrapper writes its own pid into
 * `cgroup.procs` before it starts the task (wrapper.ts), so every descendant is born inside.
 *
 * Layout: `<hierarchy>/iris/<clusterId>/<attempt>` where the hierarchy is, in order of preference:
 * - cgroup v2 (a `cgroup2` mount): killing is one write to `cgroup.kill` (the kernel kills every
 *   member, including ones forked meanwhile);
 * - cgroup v1 `pids`, else `freezer`: killing SIGKILLs every pid listed in `cgroup.procs`, again
 *   and again until the list stays empty (a killed process forks no more, so it converges).
 * detectCgroups() picks the first that this process can really use (it creates and removes a
 * probe cgroup) and returns null when none is writable; then the runtime falls back to process
 * groups and a /proc scan (see docs/runtime.md for what that fallback cannot reach).
 *
 * Every function tolerates a cgroup that vanished meanwhile (ENOENT, or ENODEV from a removed one).
 */
import { mkdir, readFile, readdir, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readKernelFile } from '../../host/small-file.js';

export type CgroupKind = 'v2' | 'v1-pids' | 'v1-freezer';

/** How the runtime may choose: 'auto' (the best usable), one kind, or 'off' (process groups only). */
export type CgroupChoice = 'auto' | CgroupKind | 'off';

export interface CgroupMount {
  kind: CgroupKind;
  /** Mount point of the hierarchy. */
  root: string;
}

/** Every cgroup hierarchy this process can see, best first, from /proc/self/mounts text. */
export function parseMounts(text: string): CgroupMount[] {
  const found: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (!mountPoint || !type) continue;
    const opts = new Set((options ?? '').split(','));
    if (type === 'cgroup2') found.push({ kind: 'v2', root: unescapeMount(mountPoint) });
    else if (type === 'cgroup' && opts.has('pids')) found.push({ kind: 'v1-pids', root: unescapeMount(mountPoint) });
    else if (type === 'cgroup' && opts.has('freezer')) found.push({ kind: 'v1-freezer', root: unescapeMount(mountPoint) });
  }
  const rank: Record<CgroupKind, number> = { v2: 0, 'v1-pids': 1, 'v1-freezer': 2 };
  return found.sort((a, b) => rank[a.kind] - rank[b.kind]);
}

/** /proc/mounts writes spaces and a few other characters as octal escapes. */
export function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

export const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH' || code === 'ENODEV';
};

/** A cgroup name for an attempt: one path component, the same in every life of the cluster. */
export function attemptCgroupName(task: string, attempt: number): string {
  return `${encodeURIComponent(task)}.${attempt}`;
}

export class TaskCgroups {
  readonly kind: CgroupKind;
  /** Mount point of the hierarchy. */
  readonly root: string;
  private readonly base: string;

  constructor(mount: CgroupMount) {
    this.kind = mount.kind;
    this.root = mount.root;
    this.base = join(mount.root, 'iris');
  }

  /** The directory of a cluster's cgroups (attempt cgroups are its children). */
  clusterDir(clusterId: string): string {
    return join(this.base, encodeURIComponent(clusterId));
  }

  dirFor(clusterId: string, name: string): string {
    return join(this.clusterDir(clusterId), name);
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
    return text.split('\n').filter(Boolean).map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
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
  async list(clusterId: string): Promise<string[]> {
    try {
      return (await readdir(this.clusterDir(clusterId), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  }
}

/**
 * Removes an empty cgroup (a few tries: the kernel may still be releasing its last member). A
 * cgroup with cgroups below it (a task may make some inside its own) cannot be removed before
 * them: those are removed first, deepest first. False when something still holds it (a process).
 */
export async function removeCgroupTree(dir: string): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    try {
      await rmdir(dir);
      return true;
    } catch (err) {
      if (isMissing(err)) return true;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EBUSY' && code !== 'ENOTEMPTY') return false;
    }
    const below = await readdir(dir, { withFileTypes: true }).then(
      (ds) => ds.filter((d) => d.isDirectory()).map((d) => join(dir, d.name)),
      () => [],
    );
    if (below.length > 0) {
      if (!(await Promise.all(below.map(removeCgroupTree))).every(Boolean)) return false;
    } else {
      await new Promise((r) => setTimeout(r, 5 * (i + 1)));
    }
  }
  return false;
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
  let text = opts.mountsText;
  if (text === undefined) {
    try {
      text = await readFile('/proc/self/mounts', 'utf8');
    } catch {
      return null;
    }
  }
  for (const mount of parseMounts(text)) {
    if (choice !== 'auto' && mount.kind !== choice) continue;
    const cgroups = new TaskCgroups(mount);
    const probe = cgroups.dirFor(`probe-${process.pid}`, 'probe');
    try {
      await cgroups.create(probe);
      const usable = mount.kind !== 'v2' || (await stat(join(probe, 'cgroup.kill')).then(() => true, () => false));
      await rmdir(probe);
      await rmdir(cgroups.clusterDir(`probe-${process.pid}`));
      if (usable) return cgroups;
    } catch {
      // not writable here: try the next one
    }
  }
  return null;
}
