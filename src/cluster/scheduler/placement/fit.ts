/**
 * Per-worker filters, each with a reason (DESIGN principle 4).
 *
 * Static filters (never change while a worker lives): schedulable, device compatibility
 * (seed 001: a request without a device runs on any worker; a gpu/tpu request needs a worker
 * of that device type and, when the request names a variant, that variant), every constraint
 * holds (constraintHolds), and total capacity covers the request. Dynamic filter: the worker's
 * free cpu, memory and free device instances cover the request.
 */
import { constraintHolds, formatConstraint, type Constraint } from '../../../model/constraints.js';
import { formatBytes, formatCpu, type DeviceRequest, type ResourceSpec, type WorkerDevice } from '../../../model/resources.js';
import { acceleratorsOf } from '../queue/quota.js';
import type { FreeCapacity, SchedulerJob, Verdict, WorkerView } from '../types.js';

/** Seed 001: no device fits any worker; gpu/tpu need the same type and, if given, variant. */
export function deviceCompatible(request: DeviceRequest | null, device: WorkerDevice): boolean {
  if (!request) return true;
  if (request.type !== device.type) return false;
  return request.variant === null || request.variant === device.variant;
}

/** Device instances (GPUs or TPU chips) one task consumes on its worker. */
export const devicesNeeded = (resources: ResourceSpec): number => acceleratorsOf(resources);

export function constraintsHold(constraints: readonly Constraint[], attributes: Readonly<Record<string, string>>): boolean {
  for (let i = 0; i < constraints.length; i++) if (!constraintHolds(constraints[i]!, attributes)) return false;
  return true;
}

/** True when the worker can ever host a task of this job (ignores current load). */
export function staticallyEligible(job: SchedulerJob, worker: WorkerView): boolean {
  const res = job.resources;
  return (
    worker.schedulable &&
    deviceCompatible(res.device, worker.device) &&
    constraintsHold(job.constraints, worker.attributes) &&
    worker.capacity.cpuMillis >= res.cpuMillis &&
    worker.capacity.memoryBytes >= res.memoryBytes &&
    worker.device.count >= devicesNeeded(res)
  );
}

/** Noun for a device request in reasons: `GPUs`, `TPU chips`. */
export function deviceNoun(request: DeviceRequest | null): string {
  return request?.type === 'tpu' ? 'TPU chips' : 'GPUs';
}

/**
 * Full verdict for one task of `job` on one worker: `never` when a static filter fails, `not_now`
 * when only the free capacity (`free`, default the worker's own) is short, else `ok`.
 */
export function filterWorker(job: SchedulerJob, worker: WorkerView, free: FreeCapacity = worker.free): Verdict {
  const res = job.resources;
  if (!worker.schedulable) return { kind: 'never', reason: `worker ${worker.id} is draining` };
  if (res.device && res.device.type !== worker.device.type) {
    return { kind: 'never', reason: `worker ${worker.id} has no ${res.device.type} devices` };
  }
  if (!deviceCompatible(res.device, worker.device)) {
    return { kind: 'never', reason: `worker ${worker.id} has ${worker.device.variant ?? 'unknown'} not ${res.device!.variant}` };
  }
  for (const c of job.constraints) {
    if (!constraintHolds(c, worker.attributes)) {
      return { kind: 'never', reason: `worker ${worker.id} does not satisfy constraint ${formatConstraint(c)}` };
    }
  }
  const devices = devicesNeeded(res);
  if (worker.capacity.cpuMillis < res.cpuMillis) {
    return { kind: 'never', reason: `need ${formatCpu(res.cpuMillis)} CPU, worker ${worker.id} has ${formatCpu(worker.capacity.cpuMillis)}` };
  }
  if (worker.capacity.memoryBytes < res.memoryBytes) {
    return { kind: 'never', reason: `need ${formatBytes(res.memoryBytes)} memory, worker ${worker.id} has ${formatBytes(worker.capacity.memoryBytes)}` };
  }
  if (worker.device.count < devices) {
    return { kind: 'never', reason: `need ${devices} ${deviceNoun(res.device)}, worker ${worker.id} has ${worker.device.count}` };
  }
  if (free.cpuMillis < res.cpuMillis) {
    return { kind: 'not_now', reason: `need ${formatCpu(res.cpuMillis)} CPU, worker ${worker.id} has ${formatCpu(free.cpuMillis)} free` };
  }
  if (free.memoryBytes < res.memoryBytes) {
    return { kind: 'not_now', reason: `need ${formatBytes(res.memoryBytes)} memory, worker ${worker.id} has ${formatBytes(free.memoryBytes)} free` };
  }
  if (free.devices.length < devices) {
    return { kind: 'not_now', reason: `need ${devices} ${deviceNoun(res.device)}, worker ${worker.id} has ${free.devices.length} free` };
  }
  return { kind: 'ok' };
}

/** Key of everything static about a job's placement needs except cpu/memory/device amount. */
export function staticKey(job: SchedulerJob): string {
  const d = job.resources.device;
  const device = d ? `${d.type}:${d.variant ?? '*'}` : '-';
  if (job.constraints.length === 0) return device;
  return device + '|' + job.constraints.map((c) => `${c.key}\u0001${c.op}\u0001${c.values.join('\u0002')}`).join('\u0003');
}

/** Key of a job's full task shape: two jobs with equal shape keys fit exactly the same workers. */
export function shapeKey(job: SchedulerJob): string {
  let key = shapeKeys.get(job);
  if (key === undefined) {
    const r = job.resources;
    key = `${staticKey(job)}#${r.cpuMillis}#${r.memoryBytes}#${devicesNeeded(r)}`;
    shapeKeys.set(job, key);
  }
  return key;
}

/** Scheduler jobs are immutable and met again pass after pass (the simulator keeps them). */
const shapeKeys = new WeakMap<SchedulerJob, string>();
