/**
 * Counting a cluster's attempt cgroups from outside, for the tests of launch failures and
 * start-up reclaim. They live at `<hierarchy>/iris/<clusterId>/<attempt>` in every cgroup
 * hierarchy iris uses (the one that stops attempts and the accounting ones, src/runtime/process/
 * cgroup.ts and usage.ts; the paths and mounts are cgroup-fs.ts's); these helpers look at every
 * cgroup mount of the machine, so they see them wherever the runtime put them. `usableCgroups`
 * says whether iris can use cgroups here (as root on the CI machines it can): without them it
 * returns false so a test can skip — except under CI=true, where it throws (a missing fixture
 * fails the run).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { detectCgroups } from '../../src/runtime/process/cgroup.js';
import { clusterCgroupDir, mountedHierarchies } from '../../src/runtime/process/cgroup-fs.js';

export { clusterCgroupDir };

const inCI = (): boolean => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/** Mount points of every cgroup (v1 and v2) hierarchy of this machine. */
export function cgroupMounts(): string[] {
  return mountedHierarchies(readFileSync('/proc/self/mounts', 'utf8')).map((h) => h.root);
}

/** Every cgroup directory below the cluster's own, in every hierarchy (nested ones too). */
export function clusterCgroups(clusterId: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      return;
    }
    for (const name of entries) {
      out.push(path.join(dir, name));
      walk(path.join(dir, name));
    }
  };
  for (const mount of cgroupMounts()) walk(clusterCgroupDir(mount, clusterId));
  return out.sort();
}

/** Whether iris can put attempts in cgroups here (the detection the runtime itself uses). */
export async function usableCgroups(): Promise<boolean> {
  if ((await detectCgroups()) !== null) return true;
  if (inCI())
    throw new Error('no writable cgroup hierarchy: the cgroup tests need root on a machine with cgroups, as CI has');
  return false;
}
