/**
 * Counting a cluster's attempt cgroups from outside, for the tests of launch failures and
 * start-up reclaim. They live at `<hierarchy>/iris/<clusterId>/<attempt>` in every cgroup
 * hierarchy iris uses (the one that stops attempts and the accounting ones, src/runtime/process/
 * cgroup.ts and usage.ts); these helpers look at every cgroup mount of the machine, so they see
 * them wherever the runtime put them. `usableCgroups` says whether iris can use cgroups here (as
 * root on the CI machines it can): without them it returns false so a test can skip — except
 * under CI=true, where it throws (a missing fixture fails the run).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { detectCgroups, unescapeMount } from '../../src/runtime/process/cgroup.js';

const inCI = (): boolean => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/** Mount points of every cgroup (v1 and v2) hierarchy of this machine. */
export function cgroupMounts(): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const [, mountPoint, type] = line.split(' ');
    if (mountPoint && (type === 'cgroup' || type === 'cgroup2')) out.push(unescapeMount(mountPoint));
  }
  return out;
}

/** The directory of a cluster's cgroups in one hierarchy. */
export function clusterCgroupDir(mount: string, clusterId: string): string {
  return path.join(mount, 'iris', encodeURIComponent(clusterId));
}

/** Every cgroup directory below the cluster's own, in every hierarchy (nested ones too). */
export function clusterCgroups(clusterId: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
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
  if (inCI()) throw new Error('no writable cgroup hierarchy: the cgroup tests need root on a machine with cgroups, as CI has');
  return false;
}
