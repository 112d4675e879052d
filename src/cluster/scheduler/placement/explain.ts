/**
 * One human reason for why a job's tasks cannot be placed, found by narrowing the workers
 * filter by filter and naming the first filter that leaves none: draining -> device type ->
 * device variant -> constraints -> gang attribute -> total capacity (never) -> free capacity
 * (not now). With `free` absent the walk stops after total capacity and returns null when some
 * idle worker (or gang group) could run the job: that is the submit-time "never" check.
 */
import { constraintHolds, formatConstraint } from '../../../model/constraints.js';
import { formatBytes, formatCpu } from '../../../model/resources.js';
import { deviceCompatible, deviceNoun, devicesNeeded } from './fit.js';
import type { FreeCapacity, SchedulerJob, WorkerView } from '../types.js';

export interface ExplainView {
  workers: readonly WorkerView[];
  /** Free capacity of worker `w` after this pass; absent for the never-check. */
  free?: (w: number) => FreeCapacity;
  /** Workers a gang already took this pass (not usable by another gang). */
  gangTaken?: Uint8Array;
}

interface Amounts { cpu: number; mem: number; dev: number }

function shortfall(job: SchedulerJob, list: readonly number[], amounts: (w: number) => Amounts, free: boolean): string {
  const res = job.resources;
  const need: Amounts = { cpu: res.cpuMillis, mem: res.memoryBytes, dev: devicesNeeded(res) };
  let cpu = 0;
  let mem = 0;
  let dev = 0;
  for (const w of list) {
    const a = amounts(w);
    if (a.cpu > cpu) cpu = a.cpu;
    if (a.mem > mem) mem = a.mem;
    if (a.dev > dev) dev = a.dev;
  }
  const adj = free ? 'free ' : '';
  if (cpu < need.cpu) return `need ${formatCpu(need.cpu)} CPU, largest ${adj}worker has ${formatCpu(cpu)}`;
  if (mem < need.mem) return `need ${formatBytes(need.mem)} memory, largest ${adj}worker has ${formatBytes(mem)}`;
  const type = res.device?.type ?? 'gpu';
  if (dev < need.dev) return `need ${need.dev} ${deviceNoun(res.device)}, largest ${adj}${type} worker has ${dev}`;
  const parts = [`${formatCpu(need.cpu)} CPU`, `${formatBytes(need.mem)} memory`];
  if (need.dev > 0) parts.push(`${need.dev} ${deviceNoun(res.device)}`);
  return `no single worker has ${parts.join(' and ')}${free ? ' free at once' : ''}`;
}

function largestGroup(workers: readonly WorkerView[], list: readonly number[], attribute: string): number {
  const sizes = new Map<string, number>();
  let best = 0;
  for (const w of list) {
    const value = workers[w]!.attributes[attribute]!;
    const size = (sizes.get(value) ?? 0) + 1;
    sizes.set(value, size);
    if (size > best) best = size;
  }
  return best;
}

/**
 * Why `job` (needing `count` workers in one group when it is a gang) cannot be placed on
 * `view`, or null when nothing in the view stops it.
 */
export function explainJob(job: SchedulerJob, count: number, view: ExplainView): string | null {
  const { workers } = view;
  const res = job.resources;
  let list: number[] = [];
  for (let w = 0; w < workers.length; w++) if (workers[w]!.schedulable) list.push(w);
  if (list.length === 0) {
    return workers.length === 0 ? 'the cluster has no workers' : `all ${workers.length} workers are draining`;
  }

  const device = res.device;
  let noun = 'worker';
  if (device) {
    noun = `${device.type} worker`;
    list = list.filter((w) => workers[w]!.device.type === device.type);
    if (list.length === 0) return `no ${device.type} workers in the cluster`;
    list = list.filter((w) => deviceCompatible(device, workers[w]!.device));
    if (list.length === 0) return `no ${device.type} worker of variant ${device.variant}`;
  }

  if (job.constraints.length > 0) {
    for (const c of job.constraints) {
      if (!list.some((w) => constraintHolds(c, workers[w]!.attributes))) return `no ${noun} satisfies constraint ${formatConstraint(c)}`;
    }
    list = list.filter((w) => job.constraints.every((c) => constraintHolds(c, workers[w]!.attributes)));
    if (list.length === 0) return `no ${noun} satisfies all constraints ${job.constraints.map(formatConstraint).join(', ')}`;
  }

  const gang = job.coschedule;
  if (gang !== null) {
    list = list.filter((w) => workers[w]!.attributes[gang] !== undefined);
    if (list.length === 0) return `no ${noun} has the ${gang} attribute`;
  }

  const total = (w: number): Amounts => {
    const worker = workers[w]!;
    return { cpu: worker.capacity.cpuMillis, mem: worker.capacity.memoryBytes, dev: worker.device.count };
  };
  const need = { cpu: res.cpuMillis, mem: res.memoryBytes, dev: devicesNeeded(res) };
  const covers = (a: Amounts) => a.cpu >= need.cpu && a.mem >= need.mem && a.dev >= need.dev;
  const fitting = list.filter((w) => covers(total(w)));
  if (fitting.length === 0) return shortfall(job, list, total, false);
  if (gang !== null) {
    const largest = largestGroup(workers, fitting, gang);
    if (largest < count) return `need ${count} workers in one ${gang} group, largest group has ${largest}`;
  }

  const freeOf = view.free;
  if (!freeOf) return null;
  const taken = view.gangTaken;
  const free = (w: number): Amounts => {
    const f = freeOf(w);
    return { cpu: f.cpuMillis, mem: f.memoryBytes, dev: f.devices.length };
  };
  if (gang !== null) {
    const usable = fitting.filter((w) => !(taken && taken[w]) && covers(free(w)));
    const largest = largestGroup(workers, usable, gang);
    if (largest < count) return `need ${count} workers in one ${gang} group, largest free group has ${largest}`;
    return null;
  }
  if (fitting.some((w) => covers(free(w)))) return null;
  return shortfall(job, fitting, free, true);
}
