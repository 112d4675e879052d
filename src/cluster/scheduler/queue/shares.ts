/**
 * Quotas as shares (docs/configuration.md, "Quotas"; issue 32 §2). Pure: no clock, no I/O.
 *
 * Rules owned here:
 * - Borrowing. A user with a soft quota may run past it; which of their running tasks are the
 *   borrowed ones is decided from the running set alone: order by start time (ties by task id),
 *   add them up, and the first task whose addition takes any limited dimension (cpu, memory,
 *   accelerators) past the limit, with every task after it, is borrowed. So the borrowed set is
 *   always the most recently started suffix, and what is left is within the quota.
 * - Fair share. A usage's dominant share is its largest fraction of the cluster's cpu, memory or
 *   accelerators, divided by the user's weight (a total of 0 contributes nothing).
 * - Hard quotas. A user whose quota is `hard` starts a task only when it keeps every limited
 *   dimension within the limit; otherwise the task waits with a reason naming the quota. A gang's
 *   whole need is checked at once.
 * - Share order (snapshotShares). Computed once per snapshot, from the running usage and the
 *   workers' total capacity, and only when some quota is configured: without one, queue order is
 *   exactly what it is without shares.
 */
import { formatBytes, formatCpu, type ResourceSpec } from '../../../model/resources.js';
import type { Quota } from '../../../model/types.js';
import type { Snapshot, UserUsage } from '../types.js';
import { acceleratorsOf } from './quota.js';

/** One running task's hold, as borrowing and shares count it. */
export interface RunningUse {
  task: string;
  user: string;
  startedAt: number;
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
}

/** Running resources: a usage, a borrowed part or the cluster's totals. */
export interface Usage {
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
}

/** One user's line of `iris queue --users`. */
export interface UserShare {
  user: string;
  /** Everything the user's running tasks hold. */
  usage: Usage;
  /** Their quota; null: none configured (no limits, weight 1). */
  quota: Quota | null;
  /** Dominant share of the cluster over the weight (dominantShare). */
  share: number;
  /** The part of `usage` held by borrowed tasks (all zero for a hard quota or none). */
  borrowed: Usage;
  /** How many running tasks are borrowed. */
  borrowedTasks: number;
}

type Dimension = 'cpu' | 'memory' | 'accelerators';

const zero = (): Usage => ({ cpuMillis: 0, memoryBytes: 0, accelerators: 0 });

function limitOf(quota: Quota, dimension: Dimension): number | null {
  if (dimension === 'cpu') return quota.maxRunningCpuMillis;
  if (dimension === 'memory') return quota.maxRunningMemoryBytes;
  return quota.maxRunningAccelerators;
}

function amountOf(usage: Usage, dimension: Dimension): number {
  if (dimension === 'cpu') return usage.cpuMillis;
  if (dimension === 'memory') return usage.memoryBytes;
  return usage.accelerators;
}

/** The limited dimensions of a soft quota, in reason order; empty when it borrows nothing. */
function softLimits(quota: Quota | undefined): Dimension[] {
  if (!quota || quota.hard) return [];
  return (['cpu', 'memory', 'accelerators'] as const).filter((d) => limitOf(quota, d) !== null);
}

/** The first of `limited` (a quota's soft dimensions) that `usage` is past, or undefined: the one "past" test. */
function pastLimit(quota: Quota, limited: readonly Dimension[], usage: Usage): Dimension | undefined {
  return limited.find((d) => amountOf(usage, d) > (limitOf(quota, d) ?? Infinity));
}

/** A limit in the config's own units: `8` (cpu cores), `32GiB`, `8` (accelerators). */
function formatLimit(dimension: Dimension, amount: number): string {
  if (dimension === 'cpu') return formatCpu(amount);
  if (dimension === 'memory') return formatBytes(amount);
  return String(amount);
}

/** Plain code-unit order (not locale order): the same everywhere. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byStart(a: RunningUse, b: RunningUse): number {
  return a.startedAt !== b.startedAt ? a.startedAt - b.startedAt : byName(a.task, b.task);
}

/** Each user's running tasks in start order (ties by task id). */
function tasksByUser(running: readonly RunningUse[]): Map<string, RunningUse[]> {
  const out = new Map<string, RunningUse[]>();
  for (const use of running) {
    const list = out.get(use.user);
    if (list) list.push(use);
    else out.set(use.user, [use]);
  }
  for (const list of out.values()) list.sort(byStart);
  return out;
}

/**
 * Walks one user's tasks in start order and calls `borrow` for each borrowed one with its reason.
 * `tasks` must already be in start order.
 */
function walkBorrowed(
  user: string,
  tasks: readonly RunningUse[],
  quota: Quota | undefined,
  borrow: (use: RunningUse, reason: string) => void,
): void {
  const limited = softLimits(quota);
  if (limited.length === 0 || !quota) return;
  const sum = zero();
  let borrowing = false;
  // One text per dimension, however many tasks borrow (formatting is the costly part).
  const texts = new Map<Dimension, string>();
  for (const use of tasks) {
    sum.cpuMillis += use.cpuMillis;
    sum.memoryBytes += use.memoryBytes;
    sum.accelerators += use.accelerators;
    // Sums only grow, so once past a limit every later task is past it too.
    const past = pastLimit(quota, limited, sum);
    if (past === undefined && !borrowing) continue;
    borrowing = true;
    const dimension = past ?? limited[0]!;
    let text = texts.get(dimension);
    if (text === undefined) {
      text = `borrowed: beyond ${user}'s ${dimension} quota ${formatLimit(dimension, limitOf(quota, dimension) ?? 0)}`;
      texts.set(dimension, text);
    }
    borrow(use, text);
  }
}

/**
 * Per running task beyond its user's soft quota: the reason, e.g. `borrowed: beyond alice's cpu
 * quota 8`. The borrowed tasks of a user are the most recently started ones (start order, ties by
 * task id): the first task that takes a limited dimension past the limit, and every later one.
 * Users without a quota, or with a hard one, borrow nothing.
 */
export function borrowedTasks(running: readonly RunningUse[], quotas: ReadonlyMap<string, Quota>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [user, tasks] of tasksByUser(running)) {
    walkBorrowed(user, tasks, quotas.get(user), (use, reason) => out.set(use.task, reason));
  }
  return out;
}

/**
 * Dominant-resource share (as DRF and Kueue's fair sharing): the largest of cpu, memory and
 * accelerators as a fraction of the cluster's total, divided by `weight`. A total of 0 adds
 * nothing; a weight that is not above 0 counts as 1 (the config refuses it).
 */
export function dominantShare(usage: Usage, totals: Usage, weight: number): number {
  const fraction = (used: number, total: number): number => (total > 0 ? used / total : 0);
  const dominant = Math.max(
    fraction(usage.cpuMillis, totals.cpuMillis),
    fraction(usage.memoryBytes, totals.memoryBytes),
    fraction(usage.accelerators, totals.accelerators),
  );
  return dominant / (weight > 0 && Number.isFinite(weight) ? weight : 1);
}

/**
 * Each user who runs something or has a quota, sorted by name: running usage, quota, weighted
 * dominant share and the borrowed part (what `iris queue --users` shows).
 */
export function userShares(
  running: readonly RunningUse[],
  quotas: ReadonlyMap<string, Quota>,
  totals: Usage,
): UserShare[] {
  const byUser = tasksByUser(running);
  const users = [...new Set([...byUser.keys(), ...quotas.keys()])].sort(byName);
  return users.map((user): UserShare => {
    const tasks = byUser.get(user) ?? [];
    const quota = quotas.get(user);
    const usage = zero();
    for (const use of tasks) {
      usage.cpuMillis += use.cpuMillis;
      usage.memoryBytes += use.memoryBytes;
      usage.accelerators += use.accelerators;
    }
    const borrowed = zero();
    let count = 0;
    walkBorrowed(user, tasks, quota, (use) => {
      borrowed.cpuMillis += use.cpuMillis;
      borrowed.memoryBytes += use.memoryBytes;
      borrowed.accelerators += use.accelerators;
      count++;
    });
    return {
      user,
      usage,
      quota: quota ?? null,
      share: dominantShare(usage, totals, quota?.weight ?? 1),
      borrowed,
      borrowedTasks: count,
    };
  });
}

/**
 * Hard quotas: null when `user` may start one more task of `need` now (no quota, a soft one, or
 * every limited dimension stays within the limit), otherwise the pending reason naming the quota,
 * e.g. `held at alice's hard cpu quota (8 of 8 CPU)`. A task larger than the quota on its own can
 * never start: `needs 16 CPU, more than alice's hard cpu quota 8`.
 */
export function hardQuotaReason(
  user: string,
  usage: UserUsage | undefined,
  quota: Quota | undefined,
  need: ResourceSpec,
  /** Tasks of `need` wanted at once (a gang's size). */
  count = 1,
): string | null {
  if (!quota?.hard) return null;
  const used: Usage = usage ?? zero();
  const wanted: Usage = {
    cpuMillis: need.cpuMillis * count,
    memoryBytes: need.memoryBytes * count,
    accelerators: acceleratorsOf(need) * count,
  };
  for (const dimension of ['cpu', 'memory', 'accelerators'] as const) {
    const limit = limitOf(quota, dimension);
    if (limit === null) continue;
    const have = amountOf(used, dimension);
    const more = amountOf(wanted, dimension);
    if (have + more <= limit) continue;
    const named = `${user}'s hard ${dimension} quota`;
    if (more > limit)
      return `needs ${amountText(dimension, more)}, more than ${named} ${formatLimit(dimension, limit)}`;
    return `held at ${named} (${ofText(dimension, have, limit)})`;
  }
  return null;
}

/**
 * How many more tasks of `need` `user` may start now under a hard quota: Infinity for no quota or a
 * soft one (hardQuotaReason says why the next one may not).
 */
export function hardQuotaRoom(usage: UserUsage | undefined, quota: Quota | undefined, need: ResourceSpec): number {
  if (!quota?.hard) return Infinity;
  const used: Usage = usage ?? zero();
  const one: Usage = { cpuMillis: need.cpuMillis, memoryBytes: need.memoryBytes, accelerators: acceleratorsOf(need) };
  let room = Infinity;
  for (const dimension of ['cpu', 'memory', 'accelerators'] as const) {
    const limit = limitOf(quota, dimension);
    const more = amountOf(one, dimension);
    if (limit === null || more <= 0) continue;
    room = Math.min(room, Math.max(0, Math.floor((limit - amountOf(used, dimension)) / more)));
  }
  return room;
}

/**
 * True when starting `count` tasks of `need` would take `user` past a soft quota: that work would be
 * borrowed, so it reclaims nothing (preemption/plan.ts: it is `batch` as a preemptor). False for no
 * quota or a hard one (a hard quota holds the work instead).
 */
export function wouldBorrow(
  usage: UserUsage | undefined,
  quota: Quota | undefined,
  need: ResourceSpec,
  count = 1,
): boolean {
  const limited = softLimits(quota);
  if (limited.length === 0 || !quota) return false;
  const used: Usage = usage ?? zero();
  const after: Usage = {
    cpuMillis: used.cpuMillis + need.cpuMillis * count,
    memoryBytes: used.memoryBytes + need.memoryBytes * count,
    accelerators: used.accelerators + acceleratorsOf(need) * count,
  };
  return pastLimit(quota, limited, after) !== undefined;
}

/**
 * Each running user's weighted dominant share (dominantShare) of the snapshot's workers, for queue
 * order (order.ts): null when no quota is configured (then shares play no part). A user missing
 * from the map runs nothing: share 0. O(users + workers).
 */
export function snapshotShares(snapshot: Pick<Snapshot, 'usage' | 'quotas' | 'workers'>): Map<string, number> | null {
  if (snapshot.quotas.size === 0) return null;
  const totals = zero();
  for (const worker of snapshot.workers) {
    totals.cpuMillis += worker.capacity.cpuMillis;
    totals.memoryBytes += worker.capacity.memoryBytes;
    totals.accelerators += worker.device.count;
  }
  const out = new Map<string, number>();
  for (const [user, usage] of snapshot.usage) {
    out.set(user, dominantShare(usage, totals, snapshot.quotas.get(user)?.weight ?? 1));
  }
  return out;
}

/** `16 CPU`, `40GiB`, `2 accelerators`. */
function amountText(dimension: Dimension, amount: number): string {
  if (dimension === 'cpu') return `${formatCpu(amount)} CPU`;
  if (dimension === 'memory') return formatBytes(amount);
  return `${amount} accelerators`;
}

/** `8 of 8 CPU`, `30GiB of 32GiB`, `8 of 8 accelerators`, as quota.ts words its reasons. */
function ofText(dimension: Dimension, have: number, limit: number): string {
  if (dimension === 'cpu') return `${formatCpu(have)} of ${formatCpu(limit)} CPU`;
  if (dimension === 'memory') return `${formatBytes(have)} of ${formatBytes(limit)}`;
  return `${have} of ${limit} accelerators`;
}

/** True when some user runs past a soft quota (so some running task is borrowed): a check on the usage alone. */
export function anyBorrowing(usage: ReadonlyMap<string, UserUsage>, quotas: ReadonlyMap<string, Quota>): boolean {
  for (const [user, quota] of quotas) {
    const used = usage.get(user);
    if (!used) continue;
    if (pastLimit(quota, softLimits(quota), used) !== undefined) return true;
  }
  return false;
}
