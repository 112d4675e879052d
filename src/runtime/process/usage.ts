/**
 * What a process attempt used: CPU seconds (user + system) of everything it ran, and its peak
 * memory, read from accounting cgroups that hold exactly the attempt's processes.
 *
 * Where the counters come from (each picked once, the first usable one):
 * - CPU: cgroup v2 (`cpu.stat` `usage_usec`, which every v2 cgroup has, with or without the cpu
 *   controller, also on a hybrid machine) when the attempt's stopping cgroup is a v2 one (no
 *   extra cgroup then), else cgroup v1 `cpuacct` (`cpuacct.usage`, ns), else cgroup v2;
 * - memory: cgroup v1 `memory` (`memory.max_usage_in_bytes`), else cgroup v2 when its root offers
 *   the memory controller (`memory.peak`, Linux 5.19+; iris enables `+memory` below its own
 *   directory). Both count what the kernel charges to the attempt: resident memory plus the page
 *   cache it brought in.
 * - memory kills: the same memory cgroup's count of processes the kernel's OOM killer ended
 *   (v1 `memory.oom_control`, v2 `memory.events`, key `oom_kill`): it counts every OOM kill of the
 *   attempt's processes, the machine's own as well as one under a limit above the attempt (the
 *   process runtime sets no memory limit of its own: a task's memory request places it only).
 * Attempt cgroups sit at `<hierarchy>/iris/<clusterId>/<attempt>` (cgroup-fs.ts), like the cgroup
 *   that stops the attempt (cgroup.ts); when that one is in the same hierarchy it is the same
 *   directory. The wrapper joins every one of them before the task starts.
 *
 * Guarantees: counters are read after the attempt's processes are gone and before its cgroups
 * are removed; a counter that cannot be read is unknown (never a made-up 0). Without any CPU
 * cgroup the wrapper's own `times` (user + system of the children it waited for) gives the CPU
 * seconds, and the peak memory is unknown (null).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { readKernelFile, readSmallText } from '../../host/small-file.js';
import { myUid, readTaskFile } from '../task-file.js';
import { join } from 'node:path';
import type { TaskUsage } from '../types.js';
import type { TaskCgroups } from './cgroup.js';
import {
  attemptCgroupDir,
  clusterCgroupDir,
  irisCgroupDir,
  listCgroups,
  mountedHierarchies,
  probeHierarchy,
  readMounts,
  removeCgroupTree,
  removeClusterDir,
} from './cgroup-fs.js';

export interface AccountingHierarchy {
  kind: 'v1' | 'v2';
  root: string;
}

/** The hierarchies offering CPU and memory accounting, from /proc/self/mounts text (not probed). */
export function accountingMounts(text: string): { cpu: AccountingHierarchy[]; memory: AccountingHierarchy[] } {
  const cpu: AccountingHierarchy[] = [];
  const memory: AccountingHierarchy[] = [];
  const v2: AccountingHierarchy[] = [];
  for (const { version, root, options } of mountedHierarchies(text)) {
    if (version === 2) {
      v2.push({ kind: 'v2', root });
      continue;
    }
    if (options.has('cpuacct')) cpu.push({ kind: 'v1', root });
    if (options.has('memory')) memory.push({ kind: 'v1', root });
  }
  // v1 first: a controller bound to a v1 hierarchy is absent from v2 (a hybrid machine).
  return { cpu: [...cpu, ...v2], memory: [...memory, ...v2] };
}

/** Seconds of children CPU (user + system) from the output of the shell's `times`; null when unreadable. */
export function parseTimes(text: string): number | null {
  const line = text.split('\n')[1] ?? '';
  const parts = [...line.matchAll(/(\d+)m(\d+(?:\.\d+)?)s/g)];
  if (parts.length !== 2) return null;
  return parts.reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

/** The CPU the wrapper's `times` reported (usage file), with unknown memory; null without one. */
export async function readTimesFile(path: string): Promise<TaskUsage | null> {
  // The file lies in the attempt's `.run/` directory, which the task's uid can write: read safely.
  const read = readTaskFile(path, { maxBytes: MAX_TIMES_BYTES, owner: myUid() });
  const text = read.kind === 'ok' ? read.data.toString('utf8') : null;
  const cpuSeconds = text === null ? null : parseTimes(text);
  return cpuSeconds === null ? null : { cpuSeconds, peakMemoryBytes: null };
}

/** The `times` output is two short lines; anything longer is not the wrapper's. */
const MAX_TIMES_BYTES = 1024;

const readText = (path: string): Promise<string | null> => readSmallText(path).catch(() => null);

/** A number from a counter file, or null when absent or unreadable. */
async function readCounter(path: string, key?: string): Promise<number | null> {
  let text: string | null;
  try {
    text = readKernelFile(path);
  } catch {
    text = null;
  }
  if (text === null) return null;
  const raw = key === undefined ? text.trim() : new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1];
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? n : null;
}

export class UsageMeter {
  private readonly cpu: AccountingHierarchy | null;
  private readonly memory: AccountingHierarchy | null;
  /** Clusters whose v2 directories were asked to enable the memory controller. */
  private readonly memoryEnabled = new Set<string>();

  constructor(cpu: AccountingHierarchy | null, memory: AccountingHierarchy | null) {
    this.cpu = cpu;
    this.memory = memory;
  }

  /** Whether CPU is read from a cgroup (else from the wrapper's `times`). */
  get measuresCpu(): boolean {
    return this.cpu !== null;
  }

  private dir(h: AccountingHierarchy, clusterId: string, name: string): string {
    return attemptCgroupDir(h.root, clusterId, name);
  }

  /** Distinct attempt directories of the accounting hierarchies. */
  private dirs(clusterId: string, name: string): string[] {
    return [
      ...new Set(
        [this.cpu, this.memory]
          .filter((h): h is AccountingHierarchy => h !== null)
          .map((h) => this.dir(h, clusterId, name)),
      ),
    ];
  }

  /**
   * Creates the attempt's accounting cgroups (an existing one is reused) and returns the
   * `cgroup.procs` files the wrapper must join, leaving out `joined` (the stopping cgroup's).
   * One that cannot be created is left out: that counter is then unknown.
   */
  async create(clusterId: string, name: string, joined: string | null): Promise<string[]> {
    if (this.memory?.kind === 'v2' && !this.memoryEnabled.has(clusterId)) {
      this.memoryEnabled.add(clusterId);
      await this.enableV2Memory(clusterId);
    }
    // Made at once (each mkdir is a trip through the thread pool); the order of the list is kept.
    const dirs = this.dirs(clusterId, name).filter((dir) => join(dir, 'cgroup.procs') !== joined);
    const made = await Promise.all(
      dirs.map((dir) =>
        mkdir(dir, { recursive: true }).then(
          () => true,
          () => false,
        ),
      ),
    );
    return dirs.filter((_, i) => made[i]).map((dir) => join(dir, 'cgroup.procs'));
  }

  /** v2 charges memory to a cgroup only when its parents enable the controller (best effort). */
  private async enableV2Memory(clusterId: string): Promise<void> {
    const root = this.memory!.root;
    for (const dir of [irisCgroupDir(root), clusterCgroupDir(root, clusterId)]) {
      await mkdir(dir, { recursive: true }).catch(() => undefined);
      await writeFile(join(dir, 'cgroup.subtree_control'), '+memory').catch(() => undefined);
    }
  }

  /** The counters of an attempt whose processes are gone; null when no CPU counter could be read. */
  async read(clusterId: string, name: string): Promise<TaskUsage | null> {
    // Both counters are read at once (two trips through the thread pool, not one after the other).
    const cpu = this.cpu;
    const memory = this.memory;
    const [cpuSeconds, peakMemoryBytes] = await Promise.all([
      cpu?.kind === 'v1'
        ? readCounter(join(this.dir(cpu, clusterId, name), 'cpuacct.usage')).then((ns) =>
            ns === null ? null : ns / 1e9,
          )
        : cpu?.kind === 'v2'
          ? readCounter(join(this.dir(cpu, clusterId, name), 'cpu.stat'), 'usage_usec').then((us) =>
              us === null ? null : us / 1e6,
            )
          : null,
      memory
        ? readCounter(
            join(this.dir(memory, clusterId, name), memory.kind === 'v1' ? 'memory.max_usage_in_bytes' : 'memory.peak'),
          )
        : null,
    ]);
    if (cpuSeconds === null) return null;
    return { cpuSeconds, peakMemoryBytes };
  }

  /** How many of the attempt's processes the kernel's OOM killer ended (null: unknown); read before remove(). */
  async oomKills(clusterId: string, name: string): Promise<number | null> {
    const memory = this.memory;
    if (!memory) return null;
    const file = memory.kind === 'v1' ? 'memory.oom_control' : 'memory.events';
    return readCounter(join(this.dir(memory, clusterId, name), file), 'oom_kill');
  }

  /** Removes the attempt's accounting cgroups (their processes are gone). `keep` is removed by its owner. */
  async remove(clusterId: string, name: string, keep: string | null): Promise<void> {
    await Promise.all(
      this.dirs(clusterId, name)
        .filter((d) => d !== keep)
        .map(removeCgroupTree),
    );
  }

  /**
   * Removes every attempt cgroup of a cluster but `keep` (names of live attempts); ones still holding a process stay
   * (reclaim).
   */
  async removeCluster(clusterId: string, keep: ReadonlySet<string>): Promise<void> {
    for (const h of [this.cpu, this.memory]) {
      if (!h) continue;
      const names = await listCgroups(clusterCgroupDir(h.root, clusterId)).catch(() => []);
      const gone = names.filter((n) => !keep.has(n));
      await Promise.all(gone.map((n) => removeCgroupTree(attemptCgroupDir(h.root, clusterId, n))));
    }
  }

  /** Removes the cluster's directories when empty (close). */
  async closeCluster(clusterId: string): Promise<void> {
    for (const h of [this.cpu, this.memory]) if (h) await removeClusterDir(h.root, clusterId);
  }
}

/**
 * The meter to use beside `killer` (the stopping cgroups; null means no cgroups are used at
 * all, and so no accounting ones either): the first writable hierarchy for each counter.
 */
export async function detectUsage(killer: TaskCgroups | null, mountsText?: string): Promise<UsageMeter> {
  if (killer === null) return new UsageMeter(null, null);
  const text = mountsText ?? (await readMounts()) ?? '';
  const found = accountingMounts(text);
  const pick = async (
    list: AccountingHierarchy[],
    ok: (h: AccountingHierarchy) => Promise<boolean>,
  ): Promise<AccountingHierarchy | null> => {
    for (const h of list) if ((await ok(h)) && (await probeHierarchy(h.root))) return h;
    return null;
  };
  // The stopping cgroup already counts CPU when it is a v2 one: no extra cgroup to keep.
  const cpu =
    killer.kind === 'v2' ? { kind: 'v2' as const, root: killer.root } : await pick(found.cpu, async () => true);
  const memory = await pick(
    found.memory,
    async (h) =>
      h.kind === 'v1' || ((await readText(join(h.root, 'cgroup.controllers'))) ?? '').split(/\s+/).includes('memory'),
  );
  return new UsageMeter(cpu, memory);
}
