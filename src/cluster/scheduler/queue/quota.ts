/**
 * Per-user quotas (docs/architecture.md, "Scheduling order"). Running limits are soft: a user at or above any running
 * limit (cpu, memory, accelerators) keeps their queue order among themselves but goes behind
 * every other user's work. Usage grows as placements are made within a pass, so a user who
 * crosses a limit mid-pass has the rest of their tasks deferred. A `hard: true` quota is not
 * deferred here: its user is held at the quota instead (shares.ts, `hardQuotaReason`). The
 * pending-task limit is hard and is checked at submit time by `pendingQuotaProblem`.
 */
import { formatBytes, formatCpu, type ResourceSpec } from '../../../model/resources.js';
import type { Quota } from '../../../model/types.js';
import type { UserUsage } from '../types.js';

const ZERO: UserUsage = { cpuMillis: 0, memoryBytes: 0, accelerators: 0, pendingTasks: 0 };

/** Devices (GPUs or TPU chips) one task of this spec holds. */
export function acceleratorsOf(resources: ResourceSpec): number {
  const device = resources.device;
  if (!device) return 0;
  return device.type === 'gpu' ? device.count : device.chips;
}

/** Why `user` is at or over a running limit, or null when under every limit. */
export function runningQuotaReason(
  user: string,
  usage: UserUsage | undefined,
  quota: Quota | undefined,
): string | null {
  if (!quota) return null;
  const used = usage ?? ZERO;
  const cpu = quota.maxRunningCpuMillis;
  if (cpu !== null && used.cpuMillis >= cpu) {
    return `user ${user} is over the running-cpu quota (${formatCpu(used.cpuMillis)} of ${formatCpu(cpu)} CPU)`;
  }
  const memory = quota.maxRunningMemoryBytes;
  if (memory !== null && used.memoryBytes >= memory) {
    return `user ${user} is over the running-memory quota (${formatBytes(used.memoryBytes)} of ${formatBytes(memory)})`;
  }
  const accelerators = quota.maxRunningAccelerators;
  if (accelerators !== null && used.accelerators >= accelerators) {
    return `user ${user} is over the running-accelerator quota (${used.accelerators} of ${accelerators} accelerators)`;
  }
  return null;
}

/**
 * Submit-time check of the pending-task limit: null when `newTasks` more pending tasks are
 * allowed, otherwise e.g. `user alice has 40 pending tasks, this job adds 8, limit is 45`.
 */
export function pendingQuotaProblem(
  user: string,
  usage: UserUsage | undefined,
  quota: Quota | undefined,
  newTasks: number,
): string | null {
  const limit = quota?.maxPendingTasks ?? null;
  if (limit === null) return null;
  const pending = usage?.pendingTasks ?? 0;
  if (pending + newTasks <= limit) return null;
  return `user ${user} has ${pending} pending tasks, this job adds ${newTasks}, limit is ${limit}`;
}

/** Running usage per user during one pass; starts from the snapshot and grows with placements. */
export class QuotaTracker {
  private readonly used = new Map<string, UserUsage>();
  private readonly over = new Map<string, string | null>();

  constructor(
    private readonly usage: ReadonlyMap<string, UserUsage>,
    private readonly quotas: ReadonlyMap<string, Quota>,
  ) {}

  /** The reason `user` is at/over a soft running limit right now, or null (also for a hard quota). */
  overReason(user: string): string | null {
    const quota = this.quotas.get(user);
    if (!quota || quota.hard) return null;
    let reason = this.over.get(user);
    if (reason === undefined) {
      reason = runningQuotaReason(user, this.usageOf(user), quota);
      this.over.set(user, reason);
    }
    return reason;
  }

  /** The user's running usage now: the snapshot's plus this pass's placements (undefined: none known). */
  usageOf(user: string): UserUsage | undefined {
    return this.used.get(user) ?? this.usage.get(user);
  }

  /** Account one placed task of `resources` to `user`. */
  add(user: string, resources: ResourceSpec): void {
    if (!this.quotas.has(user)) return;
    const base = this.used.get(user) ?? this.usage.get(user) ?? ZERO;
    this.used.set(user, {
      cpuMillis: base.cpuMillis + resources.cpuMillis,
      memoryBytes: base.memoryBytes + resources.memoryBytes,
      accelerators: base.accelerators + acceleratorsOf(resources),
      pendingTasks: base.pendingTasks,
    });
    this.over.delete(user);
  }
}
