import { placementOptions } from '../../../src/cluster/scheduler/placement/registry.js';
import type { PlacementProfile } from '../../../src/cluster/scheduler/placement/scoring.js';
import type { Constraint } from '../../../src/model/constraints.js';
import type { DeviceRequest, WorkerDevice } from '../../../src/model/resources.js';
import type { Quota } from '../../../src/model/types.js';
import type {
  SchedulerJob,
  SchedulerTask,
  Snapshot,
  UserUsage,
  WorkerView,
} from '../../../src/cluster/scheduler/types.js';

export const GiB = 1024 ** 3;

/**
 * The shipped default placement (adaptive) and plain first-fit placement, for `describe.each`:
 * queue-policy tests run under both, since the reservation check in queue/allocate.ts has a scored
 * path (adaptive) and a first-fit path. A case whose expectation depends on which worker a task
 * lands on (adaptive picks by score, first-fit by worker order) asserts what holds for both or
 * splits it by the label.
 */
export const PLACEMENTS: Array<['adaptive' | 'first-fit', PlacementProfile]> = [
  ['adaptive', placementOptions()],
  ['first-fit', placementOptions({ mode: 'first-fit' })],
];

export interface JobOptions {
  cpu?: number;
  memGiB?: number;
  device?: DeviceRequest | null;
  constraints?: Constraint[];
  coschedule?: string | null;
  replicas?: number;
  user?: string;
  rootSubmittedAt?: number;
  seq?: number;
}

export function job(name: string, o: JobOptions = {}): SchedulerJob {
  return {
    name,
    depth: name.split('/').length - 1,
    rootSubmittedAt: o.rootSubmittedAt ?? 0,
    seq: o.seq ?? 0,
    user: o.user ?? 'alice',
    resources: {
      cpuMillis: Math.round((o.cpu ?? 1) * 1000),
      memoryBytes: Math.round((o.memGiB ?? 1) * GiB),
      device: o.device ?? null,
    },
    constraints: o.constraints ?? [],
    coschedule: o.coschedule ?? null,
    replicas: o.replicas ?? 1,
  };
}

let seqCounter = 0;
export function tasksOf(j: SchedulerJob, submittedAt = 0): SchedulerTask[] {
  return Array.from({ length: j.replicas }, (_, index) => ({
    id: `${j.name}/task-${index}`,
    job: j.name,
    index,
    submittedAt,
    seq: seqCounter++,
  }));
}

export interface WorkerOptions {
  cpu?: number;
  memGiB?: number;
  device?: WorkerDevice;
  attributes?: Record<string, string>;
  freeCpu?: number;
  freeMemGiB?: number;
  freeDevices?: number[];
  schedulable?: boolean;
}

export function worker(id: string, o: WorkerOptions = {}): WorkerView {
  const device = o.device ?? { type: 'cpu', variant: null, count: 0 };
  const cpu = Math.round((o.cpu ?? 4) * 1000);
  const mem = Math.round((o.memGiB ?? 16) * GiB);
  return {
    id,
    device,
    attributes: o.attributes ?? {},
    capacity: { cpuMillis: cpu, memoryBytes: mem },
    free: {
      cpuMillis: o.freeCpu === undefined ? cpu : Math.round(o.freeCpu * 1000),
      memoryBytes: o.freeMemGiB === undefined ? mem : Math.round(o.freeMemGiB * GiB),
      devices: o.freeDevices ?? Array.from({ length: device.count }, (_, i) => i),
    },
    schedulable: o.schedulable ?? true,
  };
}

export const gpuWorker = (id: string, variant: string, count = 8, o: WorkerOptions = {}): WorkerView =>
  worker(id, { cpu: 32, memGiB: 256, ...o, device: { type: 'gpu', variant, count } });

export const tpuWorker = (id: string, slice: string, workerId: number, o: WorkerOptions = {}): WorkerView =>
  worker(id, {
    cpu: 8,
    memGiB: 64,
    ...o,
    device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
    attributes: { 'tpu-name': slice, 'tpu-worker-id': String(workerId), ...(o.attributes ?? {}) },
  });

export function snapshot(
  jobs: SchedulerJob[],
  workers: WorkerView[],
  o: { pending?: SchedulerTask[]; usage?: Map<string, UserUsage>; quotas?: Map<string, Quota> } = {},
): Snapshot {
  return {
    now: 1000,
    jobs: new Map(jobs.map((j) => [j.name, j])),
    pending: o.pending ?? jobs.flatMap((j) => tasksOf(j)),
    workers,
    usage: o.usage ?? new Map(),
    quotas: o.quotas ?? new Map(),
  };
}

export function quota(o: Partial<Quota>): Quota {
  return {
    maxRunningCpuMillis: null,
    maxRunningMemoryBytes: null,
    maxRunningAccelerators: null,
    maxPendingTasks: null,
    weight: 1,
    hard: false,
    ...o,
  };
}

export function usage(o: Partial<UserUsage>): UserUsage {
  return { cpuMillis: 0, memoryBytes: 0, accelerators: 0, pendingTasks: 0, ...o };
}

/** task id -> worker id */
export function where(plan: { placements: Array<{ task: string; workerId: string }> }): Record<string, string> {
  return Object.fromEntries(plan.placements.map((p) => [p.task, p.workerId]));
}
