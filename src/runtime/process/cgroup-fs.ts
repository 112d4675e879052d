/**
 * The cgroup file system as iris uses it, for every hierarchy it writes: the one that stops an
 * attempt (cgroup.ts) and the ones that count its CPU and memory (usage.ts). The one home of:
 *
 * - mounts: the cgroup hierarchies this process sees, read from `/proc/self/mounts` (every
 *   `cgroup` and `cgroup2` mount in the order listed, its mount point unescaped, its options);
 * - paths: an attempt's cgroup is `<root>/iris/<clusterId>/<attempt>` in every hierarchy, the
 *   cluster id URI-encoded into one path component (attemptCgroupName, cgroup.ts, names the last);
 * - listing: the cgroups directly below a directory;
 * - probing: a hierarchy is used only once a probe cgroup at an attempt's depth could be made,
 *   passed its check and was removed again (each probe has a name of its own);
 * - removal: an empty cgroup and the empty cgroups below it, deepest first, a busy one retried a
 *   few times (removeCgroupTree).
 *
 * Every function tolerates a cgroup that vanished meanwhile (isMissing: ENOENT, ESRCH, or ENODEV
 * from a removed one).
 */
import { mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readSmallText } from '../../host/small-file.js';

/** One mounted cgroup hierarchy. */
export interface CgroupHierarchy {
  /** 2 for a `cgroup2` mount, 1 for a `cgroup` (v1) one. */
  version: 1 | 2;
  /** Mount point. */
  root: string;
  /** Mount options: a v1 hierarchy's controllers (`pids`, `cpuacct`, `memory`, …) are among them. */
  options: ReadonlySet<string>;
}

/** Every cgroup hierarchy in /proc/self/mounts text, in the order listed. */
export function mountedHierarchies(text: string): CgroupHierarchy[] {
  const found: CgroupHierarchy[] = [];
  for (const line of text.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (!mountPoint || (type !== 'cgroup' && type !== 'cgroup2')) continue;
    found.push({
      version: type === 'cgroup2' ? 2 : 1,
      root: unescapeMount(mountPoint),
      options: new Set((options ?? '').split(',')),
    });
  }
  return found;
}

/** The text of /proc/self/mounts, or null when it cannot be read. */
export function readMounts(): Promise<string | null> {
  return readSmallText('/proc/self/mounts').catch(() => null);
}

/** /proc/mounts writes spaces and a few other characters as octal escapes. */
export function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Whether an fs error says the cgroup (or its process) is gone. */
export const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH' || code === 'ENODEV';
};

/** iris's own directory of a hierarchy: `<root>/iris`. */
export function irisCgroupDir(root: string): string {
  return join(root, 'iris');
}

/** The directory of a cluster's cgroups in a hierarchy (its attempt cgroups are the children). */
export function clusterCgroupDir(root: string, clusterId: string): string {
  return join(irisCgroupDir(root), encodeURIComponent(clusterId));
}

/** The directory of an attempt's cgroup (`name`: attemptCgroupName) in a hierarchy. */
export function attemptCgroupDir(root: string, clusterId: string, name: string): string {
  return join(clusterCgroupDir(root, clusterId), name);
}

/** Names of the cgroups directly below `dir`; [] when it is gone. Other errors are thrown. */
export async function listCgroups(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** Removes a cluster's directory of a hierarchy when it is empty (at close); never throws. */
export async function removeClusterDir(root: string, clusterId: string): Promise<void> {
  await rmdir(clusterCgroupDir(root, clusterId)).catch(() => undefined);
}

/** Numbers this process's probes, so that two detections at once never share a probe cgroup. */
let probes = 0;

/**
 * Whether iris can use the hierarchy at `root`: a probe cgroup at an attempt's depth
 * (`<root>/iris/probe-<pid>-<n>/probe`) is created, passes `check` (default: none) and is removed
 * with its parent. False when any step fails; the probe is removed whatever `check` answers.
 */
export async function probeHierarchy(
  root: string,
  check: (dir: string) => Promise<boolean> = async () => true,
): Promise<boolean> {
  const cluster = `probe-${process.pid}-${++probes}`;
  const dir = attemptCgroupDir(root, cluster, 'probe');
  try {
    await mkdir(dir, { recursive: true });
  } catch {
    return false;
  }
  const usable = await check(dir).catch(() => false);
  const removed = await rmdir(dir)
    .then(() => rmdir(clusterCgroupDir(root, cluster)))
    .then(
      () => true,
      () => false,
    );
  return usable && removed;
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
    const below = (await listCgroups(dir).catch(() => [])).map((name) => join(dir, name));
    if (below.length > 0) {
      if (!(await Promise.all(below.map(removeCgroupTree))).every(Boolean)) return false;
    } else {
      await new Promise((r) => setTimeout(r, 5 * (i + 1)));
    }
  }
  return false;
}
