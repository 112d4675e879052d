/**
 * Reason texts: the one place where the placement chain's structured reasons (filters.ts) become
 * words. Two scopes:
 * - one worker (`Reason.message`, rendered on demand): `need 2 CPU, worker w1 has 1 free`;
 * - the cluster (`summarize`), when a filter turned every remaining worker down: the pending
 *   reason of `iris status` and the submit-time refusal, e.g. `no gpu workers in the cluster`,
 *   `need 1 CPU, largest free worker has 0`, `need 40GiB gpu memory, largest gpu worker has 24GiB`,
 *   `need 4 workers in one tpu-name group, largest free group has 2` (docs/architecture.md, "Placement"). End-to-end
 *   tests match these texts byte for byte.
 */
import { formatConstraint } from '../../../model/constraints.js';
import { formatBytes, formatCpu, type ResourceSpec } from '../../../model/resources.js';
import { STICKY_WORKER_BUSY } from '../../../model/requeue.js';
import { deviceNoun, devicesNeeded } from './fit.js';
import type { FilterName, FilterReason, SchedulerJob, WorkerView } from '../types.js';

/** The capacity items, in the order reasons name them. */
export type CapacityItem = 'cpu' | 'memory' | 'devices';
export const CAPACITY_ITEMS: readonly CapacityItem[] = ['cpu', 'memory', 'devices'];

/** What a reason is about: a capacity item, or the index of a job constraint. */
export type ReasonItem = CapacityItem | number | null;

/** A filter's reason for one worker; the text is only built when asked for. */
export class Reason implements FilterReason {
  constructor(
    readonly filter: FilterName,
    readonly job: SchedulerJob,
    readonly worker: WorkerView,
    readonly item: ReasonItem = null,
    readonly numbers?: { readonly need: number; readonly has: number },
  ) {}

  get message(): string {
    return workerText(this);
  }
}

function amount(item: CapacityItem, value: number): string {
  return item === 'memory' ? formatBytes(value) : formatCpu(value);
}

function capacityText(
  job: SchedulerJob,
  item: CapacityItem,
  need: number,
  owner: string,
  has: number,
  free: string,
): string {
  if (item === 'devices') return `need ${need} ${deviceNoun(job.resources.device)}, ${owner} has ${has}${free}`;
  const noun = item === 'cpu' ? 'CPU' : 'memory';
  // An oversubscribed worker (a waiting task took its CPU back) has less than nothing free: say 0.
  return `need ${amount(item, need)} ${noun}, ${owner} has ${amount(item, Math.max(0, has))}${free}`;
}

/** GPU memory a `gpu-memory` reason's worker has (`has` < 0: unknown), in words. */
function gpuMemoryHas(has: number): string {
  return has < 0 ? 'unknown' : formatBytes(has);
}

/** `need 40GiB gpu memory, worker w1 has 24GiB` (or `has an unknown amount`). */
function gpuMemoryText(need: number, owner: string, has: number): string {
  return `need ${formatBytes(need)} gpu memory, ${owner} has ${has < 0 ? 'an unknown amount' : formatBytes(has)}`;
}

/**
 * Why a worker takes no placements, in the words every reason uses for it: `is disabled (by user: test)`,
 * `is draining` (draining or drained), `is not in the config` (WorkerView.removed).
 */
export function offText(worker: WorkerView): string {
  if (worker.removed) return 'is not in the config';
  return worker.disabled ? `is disabled (${worker.disabled})` : 'is draining';
}

function workerText(r: Reason): string {
  const id = r.worker.id;
  const job = r.job;
  const device = job.resources.device;
  switch (r.filter) {
    case 'schedulable':
      return `worker ${id} ${offText(r.worker)}`;
    case 'device-type':
      return `worker ${id} has no ${device!.type} devices`;
    case 'device-variant':
      return `worker ${id} has ${r.worker.device.variant ?? 'unknown'} not ${device!.variant}`;
    case 'gpu-memory':
      return gpuMemoryText(r.numbers!.need, `worker ${id}`, r.numbers!.has);
    case 'constraints':
      return `worker ${id} does not satisfy constraint ${formatConstraint(job.constraints[r.item as number]!)}`;
    case 'sticky':
      return `worker ${id} is not ${job.sticky!.workerId}, where ${job.sticky!.parent} ran`;
    case 'gang-attribute':
      return `worker ${id} has no ${job.coschedule} attribute`;
    case 'gang-taken':
      return `worker ${id} is already given to another gang in this pass`;
    case 'total-capacity':
    case 'free-capacity':
      return capacityText(
        job,
        r.item as CapacityItem,
        r.numbers!.need,
        `worker ${id}`,
        r.numbers!.has,
        r.filter === 'free-capacity' ? ' free' : '',
      );
  }
}

/** `gpu worker`, or `worker` for a job without a device: how cluster reasons name workers. */
function workerNoun(job: SchedulerJob): string {
  const device = job.resources.device;
  return device ? `${device.type} worker` : 'worker';
}

/** True when every worker's reasons include `item` (so no worker passes that part of the filter). */
function onEvery(failures: ReadonlyArray<readonly Reason[]>, item: ReasonItem): boolean {
  for (const reasons of failures) if (!reasons.some((r) => r.item === item)) return false;
  return true;
}

/** How much of `item` one task of `res` needs: CPU millis, bytes, or devices. */
export function needOf(item: CapacityItem, res: ResourceSpec): number {
  return item === 'cpu' ? res.cpuMillis : item === 'memory' ? res.memoryBytes : devicesNeeded(res);
}

/** What one task needs of `item`, in words: `1 CPU`, `2GiB memory`, `1 GPU H100`, `4 TPU v5e chips`. */
export function needText(item: CapacityItem, res: ResourceSpec): string {
  if (item === 'cpu') return `${formatCpu(res.cpuMillis)} CPU`;
  if (item === 'memory') return `${formatBytes(res.memoryBytes)} memory`;
  const device = res.device!;
  const count = devicesNeeded(res);
  if (device.type === 'tpu') return `${count} TPU ${device.variant} ${count === 1 ? 'chip' : 'chips'}`;
  return `${count} ${count === 1 ? 'GPU' : 'GPUs'}${device.variant ? ` ${device.variant}` : ''}`;
}

function largestHas(failures: ReadonlyArray<readonly Reason[]>, item: ReasonItem): number {
  let best = item === null ? -1 : 0; // gpu-memory reasons (item null) say -1 for unknown
  for (const reasons of failures) {
    for (const r of reasons) if (r.item === item && r.numbers!.has > best) best = r.numbers!.has;
  }
  return best;
}

function shortfall(job: SchedulerJob, failures: ReadonlyArray<readonly Reason[]>, free: boolean): string {
  const adj = free ? 'free ' : '';
  const res = job.resources;
  for (const item of CAPACITY_ITEMS) {
    if (!onEvery(failures, item)) continue;
    const need = needOf(item, res);
    const owner = item === 'devices' ? `largest ${adj}${res.device?.type ?? 'gpu'} worker` : `largest ${adj}worker`;
    return capacityText(job, item, need, owner, largestHas(failures, item), '');
  }
  const devices = devicesNeeded(res);
  const parts = [`${formatCpu(res.cpuMillis)} CPU`, `${formatBytes(res.memoryBytes)} memory`];
  if (devices > 0) parts.push(`${devices} ${deviceNoun(res.device)}`);
  return `no single worker has ${parts.join(' and ')}${free ? ' free at once' : ''}`;
}

/**
 * The cluster-level reason when `filter` turned down every one of the workers that reached it;
 * `failures` holds each such worker's reasons (explained verdicts), `workerCount` the cluster size.
 */
export function summarize(
  filter: FilterName,
  job: SchedulerJob,
  workerCount: number,
  failures: ReadonlyArray<readonly Reason[]>,
  gangSize = job.replicas,
): string {
  const device = job.resources.device;
  switch (filter) {
    case 'schedulable':
      return workerCount === 0 ? 'the cluster has no workers' : `all ${workerCount} workers are ${offKinds(failures)}`;
    case 'device-type':
      return `no ${device!.type} workers in the cluster`;
    case 'device-variant':
      return `no ${device!.type} worker of variant ${device!.variant}`;
    case 'gpu-memory': {
      const need = failures[0]![0]!.numbers!.need;
      const largest = largestHas(failures, null);
      if (largest < 0)
        return (
          `need ${formatBytes(need)} gpu memory, and no gpu worker's memory is known (set gpu.memory in the ` +
          `config)`
        );
      return gpuMemoryText(need, 'largest gpu worker', largest);
    }
    case 'constraints': {
      const noun = workerNoun(job);
      for (let i = 0; i < job.constraints.length; i++) {
        if (onEvery(failures, i)) return `no ${noun} satisfies constraint ${formatConstraint(job.constraints[i]!)}`;
      }
      return `no ${noun} satisfies all constraints ${job.constraints.map(formatConstraint).join(', ')}`;
    }
    case 'sticky':
      return stickyText(job);
    case 'gang-attribute':
      return `no ${workerNoun(job)} has the ${job.coschedule} attribute`;
    case 'total-capacity':
      return shortfall(job, failures, false);
    case 'free-capacity':
      return shortfall(job, failures, true);
    case 'gang-taken':
      return groupText(job, gangSize, 0, true);
  }
}

/** What the workers the schedulable filter turned down are: `draining`, `disabled`, or both. */
function offKinds(failures: ReadonlyArray<readonly Reason[]>): string {
  const disabled = failures.filter((f) => f[0]?.worker.disabled).length;
  if (disabled === 0) return 'draining';
  return disabled === failures.length ? 'disabled' : 'draining or disabled';
}

/** The reason of a sticky stage whose parent's worker has no room now (docs/pipelines.md, "Stickiness"). */
export function stickyText(job: SchedulerJob): string {
  return `${STICKY_WORKER_BUSY}: waiting for worker ${job.sticky!.workerId} (where ${job.sticky!.parent} ran)`;
}

/** A gang needs `count` workers in one group of its coschedule attribute; the largest (free) group has fewer. */
export function groupText(job: SchedulerJob, count: number, largest: number, free: boolean): string {
  return `need ${count} workers in one ${job.coschedule} group, largest ${free ? 'free ' : ''}group has ${largest}`;
}

/**
 * Why a host a gang needs cannot take its task now: `busy` (no room now), `off` (disabled, draining,
 * removed), `cannot` (the job may not use it).
 */
export type HostBlock = 'busy' | 'off' | 'cannot';

/** The hosts of one host-ordered group that a gang needs and that cannot take its tasks now (hostOrderText). */
export interface BlockedGroup {
  group: string;
  /** The first few such hosts, by index in the group (task i must run on host i). */
  hosts: ReadonlyArray<{ host: number; worker: WorkerView; why: HostBlock }>;
  /** How many more such hosts the group has. */
  more: number;
}

function hostText(host: number, worker: WorkerView, why: HostBlock): string {
  const state = why === 'busy' ? 'is busy' : why === 'off' ? offText(worker) : 'cannot run it';
  return `host ${host} (${worker.id}) ${state}`;
}

/**
 * The one reason of a TPU gang (partial or a whole slice) that no slice can take now because its hosts
 * 0..count-1 are not all free (task i runs on host i, placement/gang.ts): names, per group, the needed hosts that
 * cannot take it and why, in the single-worker words for a worker's state (offText), e.g. `need hosts 0-1 of one
 * tpu-name group (task i runs on host i): slice-a host 0 (slice-a-0) is busy; slice-b host 1 (slice-b-1) is
 * disabled (by user)`. At most three groups are named; `more` counts the rest.
 */
export function hostOrderText(
  job: SchedulerJob,
  count: number,
  blocked: readonly BlockedGroup[],
  more: number,
): string {
  const hosts = count === 1 ? 'host 0' : `hosts 0-${count - 1}`;
  const parts = blocked.map((g) => {
    const named = g.hosts.map((h) => hostText(h.host, h.worker, h.why)).join(', ');
    return `${g.group} ${named}${g.more > 0 ? ` and ${g.more} more host${g.more === 1 ? '' : 's'}` : ''}`;
  });
  if (more > 0) parts.push(`${more} more group${more === 1 ? '' : 's'} likewise`);
  return `need ${hosts} of one ${job.coschedule} group (task i runs on host i): ${parts.join('; ')}`;
}

/**
 * One part of a composite reason: the workers one filter turned down, counted, e.g. `2 draining`,
 * `1 excluded by constraint zone=b`, `3 too little free CPU (need 2, largest free 1)`. `failures`
 * holds each such worker's reasons (explained verdicts). A worker is counted once, under the first
 * item it fails (its first failing constraint, its first short capacity item).
 */
export function exclusionParts(
  filter: FilterName,
  job: SchedulerJob,
  failures: ReadonlyArray<readonly Reason[]>,
): string[] {
  const n = failures.length;
  const device = job.resources.device;
  switch (filter) {
    case 'schedulable': {
      const disabled = failures.filter((f) => f[0]?.worker.disabled).length;
      return [...(n > disabled ? [`${n - disabled} draining`] : []), ...(disabled > 0 ? [`${disabled} disabled`] : [])];
    }
    case 'device-type':
      return [`${n} with no ${device!.type} devices`];
    case 'device-variant':
      return [`${n} not ${device!.variant}`];
    case 'gpu-memory':
      return [
        `${n} with too little gpu memory (need ${formatBytes(failures[0]![0]!.numbers!.need)}, largest ` +
          `${gpuMemoryHas(largestHas(failures, null))})`,
      ];
    case 'sticky':
      return [`${n} not where ${job.sticky!.parent} ran`];
    case 'gang-attribute':
      return [`${n} without the ${job.coschedule} attribute`];
    case 'gang-taken':
      return [`${n} taken by another gang`];
    case 'constraints':
      return byFirstItem(failures).map(
        ([item, group]) =>
          `${group.length} excluded by constraint ${formatConstraint(job.constraints[item as number]!)}`,
      );
    case 'total-capacity':
    case 'free-capacity': {
      const adj = filter === 'free-capacity' ? 'free ' : '';
      return byFirstItem(failures).map(([item, group]) => {
        const capacityItem = item as CapacityItem;
        const noun = capacityItem === 'cpu' ? 'CPU' : capacityItem === 'memory' ? 'memory' : deviceNoun(device);
        const show = (v: number) => (capacityItem === 'devices' ? String(v) : amount(capacityItem, Math.max(0, v)));
        const need = needOf(capacityItem, job.resources);
        return (
          `${group.length} too ${capacityItem === 'devices' ? 'few' : 'little'} ${adj}${noun} (need ` +
          `${show(need)}, largest ${adj}${show(largestHas(group, item))})`
        );
      });
    }
  }
}

/**
 * Workers grouped by the item of their first reason; groups in item order (constraint index, then cpu, memory,
 * devices).
 */
function byFirstItem(failures: ReadonlyArray<readonly Reason[]>): Array<[ReasonItem, Array<readonly Reason[]>]> {
  const groups = new Map<ReasonItem, Array<readonly Reason[]>>();
  for (const reasons of failures) {
    const item = reasons[0]?.item ?? null;
    const group = groups.get(item);
    if (group) group.push(reasons);
    else groups.set(item, [reasons]);
  }
  const rank = (item: ReasonItem) =>
    typeof item === 'number' ? item : item === null ? -1 : CAPACITY_ITEMS.indexOf(item);
  return [...groups].sort((a, b) => rank(a[0]) - rank(b[0]));
}

/** The reason when several filters together turned every worker down: each one named with its count. */
export function compositeText(job: SchedulerJob, parts: readonly string[]): string {
  return `no ${workerNoun(job)} fits: ${parts.join(', ')}`;
}
