/**
 * Placement primitives the filter chain (filters.ts) is built from: device compatibility (seed
 * 001: a request without a device runs on any worker; a gpu/tpu request needs a worker of that
 * device type and, when the request names a variant, that variant), GPU memory per device, device counts,
 * and the keys that let a pass share work between jobs: two jobs with one static key pass the
 * same indexed filters; two with one shape key fit exactly the same workers.
 */
import type { DeviceRequest, ResourceSpec, WorkerDevice } from '../../../model/resources.js';
import { acceleratorsOf } from '../queue/quota.js';
import type { SchedulerJob } from '../types.js';

/** The least memory per GPU a job asks for (`--gpu-memory`), or null when it asks for none. */
export function gpuMemoryNeeded(request: DeviceRequest | null): number | null {
  return request?.type === 'gpu' && request.memoryBytes != null ? request.memoryBytes : null;
}

/**
 * Issue 15 §1: a GPU worker whose per-device memory covers the request. A worker of unknown GPU
 * memory passes only jobs that ask for none (it is never assumed to be big enough).
 */
export function gpuMemoryFits(request: DeviceRequest | null, device: WorkerDevice): boolean {
  const need = gpuMemoryNeeded(request);
  return need === null || (device.memoryBytes != null && device.memoryBytes >= need);
}

/** Seed 001: no device fits any worker; gpu/tpu need the same type and, if given, variant. */
export function deviceCompatible(request: DeviceRequest | null, device: WorkerDevice): boolean {
  if (!request) return true;
  if (request.type !== device.type) return false;
  return request.variant === null || request.variant === device.variant;
}

/** Device instances (GPUs or TPU chips) one task consumes on its worker. */
export const devicesNeeded = (resources: ResourceSpec): number => acceleratorsOf(resources);

/** Noun for a device request in reasons: `GPUs`, `TPU chips`. */
export function deviceNoun(request: DeviceRequest | null): string {
  return request?.type === 'tpu' ? 'TPU chips' : 'GPUs';
}

/** Key of everything static about a job's placement needs except cpu/memory/device amount. */
export function staticKey(job: SchedulerJob): string {
  // The plain job (no device, constraints or stickiness) costs no lookup.
  if (job.resources.device === null && job.constraints.length === 0 && !job.sticky) return '-';
  let key = staticKeys.get(job);
  if (key === undefined) {
    key = buildStaticKey(job);
    staticKeys.set(job, key);
  }
  return key;
}

function buildStaticKey(job: SchedulerJob): string {
  const d = job.resources.device;
  const memory = gpuMemoryNeeded(d);
  const device =
    (d ? `${d.type}:${d.variant ?? '*'}` : '-') +
    (memory !== null ? `>${memory}` : '') +
    (job.sticky ? `@${job.sticky.workerId}` : '');
  if (job.constraints.length === 0) return device;
  return (
    device + '|' + job.constraints.map((c) => `${c.key}\u0001${c.op}\u0001${c.values.join('\u0002')}`).join('\u0003')
  );
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
const staticKeys = new WeakMap<SchedulerJob, string>();
