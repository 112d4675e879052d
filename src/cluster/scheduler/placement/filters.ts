/**
 * The placement chain: ONE ordered list of worker filters (docs/architecture.md, "Placement"). Every question
 * "may this job's task go on that worker?" is answered from this list:
 *
 *   schedulable -> device type -> device variant -> gpu memory -> constraints -> gang attribute ->
 *   total capacity -> sticky -> gang taken -> free capacity
 *
 * The last three fail with `not_now` (they change from pass to pass, or within one);
 * the others with `never` (static: true of the worker for its whole life, so a job that no
 * worker passes is refused at submit, feasibility.ts). Sticky (a stage that must run where its
 * parent stage ran, docs/pipelines.md "Stickiness") is indexed: the sticky worker is part of
 * the job's static key, fixed for a pass by the snapshot. Derived from the list, never written again:
 * - the candidate index (candidates.ts): the `indexed` filters, those that depend only on the
 *   job's static key (fit.ts `staticKey`), once per key per pass;
 * - first-fit placement: candidates + the free-capacity test (`covers`), which FreePool answers
 *   for a whole candidate list at once (pool.ts) and ScratchCapacity.fits for one worker;
 * - the pending reason and the submit-time never check (explain.ts, feasibility.ts): the list is
 *   walked filter by filter, and the first filter that leaves no worker is summarized
 *   (reason.ts, the one place reason texts are written).
 * Quotas are per user, not per worker: they stay with the queue (queue/quota.ts).
 *
 * Hot loops call `check(..., explain = false)`, which allocates nothing: a failure is one of two
 * shared verdicts without reasons. With `explain = true` the verdict lists every failed item
 * (each short resource, each constraint that does not hold) as structured reasons.
 */
import { constraintHolds } from '../../../model/constraints.js';
import type { ResourceSpec } from '../../../model/resources.js';
import { deviceCompatible, devicesNeeded, gpuMemoryFits, gpuMemoryNeeded } from './fit.js';
import { Reason } from './reason.js';
import type { FilterName, FreeCapacity, SchedulerJob, Verdict, WorkerView } from '../types.js';

/** What the filters look at: the workers and, within a pass, what is free on each now. */
export interface PlacementView {
  readonly workers: readonly WorkerView[];
  /** Free capacity of worker `w` now; absent: the submit-time check, where only `never` filters run. */
  readonly free?: (w: number) => FreeCapacity;
  /** Workers a gang already took this pass (no second gang may use them). */
  readonly gangTaken?: Uint8Array;
  /** The same free amounts as arrays by worker (ScratchCapacity), where the pass keeps them so. */
  readonly capacity?: FreeAmounts;
}

/** Free cpu, memory and device count by worker index (scratch.ts ScratchCapacity has them). */
export interface FreeAmounts {
  readonly cpu: Float64Array;
  readonly mem: Float64Array;
  readonly devCount: Float64Array;
}

export interface WorkerFilter {
  readonly name: FilterName;
  /** What failing means: never on this cluster, or not now. */
  readonly kind: 'never' | 'not_now';
  /** Depends only on the job's static key: part of the candidate index. */
  readonly indexed: boolean;
  /** False when there is nothing to check for this job (every worker passes); lets loops skip it. */
  appliesTo(job: SchedulerJob): boolean;
  /** The verdict for worker `w`; reasons only when `explain` (otherwise nothing is allocated). */
  check(job: SchedulerJob, view: PlacementView, w: number, explain: boolean): Verdict;
}

export const OK: Verdict = Object.freeze({ kind: 'ok' });
const NEVER: Verdict = Object.freeze({ kind: 'never', reasons: Object.freeze([]) });
const NOT_NOW: Verdict = Object.freeze({ kind: 'not_now', reasons: Object.freeze([]) });

/** The one capacity test: do these amounts (free or total) cover one task of `res`? */
export function covers(cpuMillis: number, memoryBytes: number, devices: number, res: ResourceSpec): boolean {
  return cpuMillis >= res.cpuMillis && memoryBytes >= res.memoryBytes && devices >= devicesNeeded(res);
}

function never(reason: Reason): Verdict {
  return { kind: 'never', reasons: [reason] };
}

function capacity(
  filter: FilterName,
  kind: 'never' | 'not_now',
  job: SchedulerJob,
  worker: WorkerView,
  cpu: number,
  mem: number,
  dev: number,
  explain: boolean,
): Verdict {
  const res = job.resources;
  if (covers(cpu, mem, dev, res)) return OK;
  if (!explain) return kind === 'never' ? NEVER : NOT_NOW;
  const reasons: Reason[] = [];
  const devices = devicesNeeded(res);
  if (cpu < res.cpuMillis) reasons.push(new Reason(filter, job, worker, 'cpu', { need: res.cpuMillis, has: cpu }));
  if (mem < res.memoryBytes)
    reasons.push(new Reason(filter, job, worker, 'memory', { need: res.memoryBytes, has: mem }));
  if (dev < devices) reasons.push(new Reason(filter, job, worker, 'devices', { need: devices, has: dev }));
  return { kind, reasons };
}

const always = (): boolean => true;

export const SCHEDULABLE: WorkerFilter = {
  name: 'schedulable',
  kind: 'never',
  indexed: true,
  appliesTo: always,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    return worker.schedulable ? OK : explain ? never(new Reason('schedulable', job, worker)) : NEVER;
  },
};

export const DEVICE_TYPE: WorkerFilter = {
  name: 'device-type',
  kind: 'never',
  indexed: true,
  appliesTo: (job) => job.resources.device !== null,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    const device = job.resources.device;
    return !device || device.type === worker.device.type
      ? OK
      : explain
        ? never(new Reason('device-type', job, worker))
        : NEVER;
  },
};

export const DEVICE_VARIANT: WorkerFilter = {
  name: 'device-variant',
  kind: 'never',
  indexed: true,
  appliesTo: (job) => job.resources.device?.variant != null,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    return deviceCompatible(job.resources.device, worker.device)
      ? OK
      : explain
        ? never(new Reason('device-variant', job, worker))
        : NEVER;
  },
};

/** `--gpu-memory`: each GPU of the worker has at least that much; unknown memory is too little. */
export const GPU_MEMORY: WorkerFilter = {
  name: 'gpu-memory',
  kind: 'never',
  indexed: true,
  appliesTo: (job) => gpuMemoryNeeded(job.resources.device) !== null,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    if (gpuMemoryFits(job.resources.device, worker.device)) return OK;
    if (!explain) return NEVER;
    return never(
      new Reason('gpu-memory', job, worker, null, {
        need: gpuMemoryNeeded(job.resources.device)!,
        has: worker.device.memoryBytes ?? -1,
      }),
    );
  },
};

export const CONSTRAINTS: WorkerFilter = {
  name: 'constraints',
  kind: 'never',
  indexed: true,
  appliesTo: (job) => job.constraints.length > 0,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    const constraints = job.constraints;
    let reasons: Reason[] | null = null;
    for (let i = 0; i < constraints.length; i++) {
      if (constraintHolds(constraints[i]!, worker.attributes)) continue;
      if (!explain) return NEVER;
      (reasons ??= []).push(new Reason('constraints', job, worker, i));
    }
    return reasons ? { kind: 'never', reasons } : OK;
  },
};

export const STICKY: WorkerFilter = {
  name: 'sticky',
  kind: 'not_now',
  indexed: true,
  appliesTo: (job) => job.sticky != null,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    if (job.sticky == null || job.sticky.workerId === worker.id) return OK;
    return explain ? { kind: 'not_now', reasons: [new Reason('sticky', job, worker)] } : NOT_NOW;
  },
};

export const GANG_ATTRIBUTE: WorkerFilter = {
  name: 'gang-attribute',
  kind: 'never',
  indexed: false,
  appliesTo: (job) => job.coschedule !== null,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    const attribute = job.coschedule;
    return attribute === null || worker.attributes[attribute] !== undefined
      ? OK
      : explain
        ? never(new Reason('gang-attribute', job, worker))
        : NEVER;
  },
};

export const TOTAL_CAPACITY: WorkerFilter = {
  name: 'total-capacity',
  kind: 'never',
  indexed: false,
  appliesTo: always,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    const c = worker.capacity;
    return capacity('total-capacity', 'never', job, worker, c.cpuMillis, c.memoryBytes, worker.device.count, explain);
  },
};

export const GANG_TAKEN: WorkerFilter = {
  name: 'gang-taken',
  kind: 'not_now',
  indexed: false,
  appliesTo: (job) => job.coschedule !== null,
  check(job, view, w, explain) {
    if (job.coschedule === null || !view.gangTaken?.[w]) return OK;
    return explain ? { kind: 'not_now', reasons: [new Reason('gang-taken', job, view.workers[w]!)] } : NOT_NOW;
  },
};

export const FREE_CAPACITY: WorkerFilter = {
  name: 'free-capacity',
  kind: 'not_now',
  indexed: false,
  appliesTo: always,
  check(job, view, w, explain) {
    const worker = view.workers[w]!;
    const free = view.free ? view.free(w) : worker.free;
    return capacity(
      'free-capacity',
      'not_now',
      job,
      worker,
      free.cpuMillis,
      free.memoryBytes,
      free.devices.length,
      explain,
    );
  },
};

/** The chain, in order. */
export const FILTERS: readonly WorkerFilter[] = Object.freeze([
  SCHEDULABLE,
  DEVICE_TYPE,
  DEVICE_VARIANT,
  GPU_MEMORY,
  CONSTRAINTS,
  GANG_ATTRIBUTE,
  TOTAL_CAPACITY,
  STICKY,
  GANG_TAKEN,
  FREE_CAPACITY,
]);

/** The static part of the chain: what the submit-time never check runs. */
export const NEVER_FILTERS: readonly WorkerFilter[] = Object.freeze(FILTERS.filter((f) => f.kind === 'never'));

/** The part of the chain that depends only on the job's static key: the candidate index. */
export const INDEXED_FILTERS: readonly WorkerFilter[] = Object.freeze(FILTERS.filter((f) => f.indexed));

/** The filters of `chain` that have something to check for `job`. */
export function filtersFor(job: SchedulerJob, chain: readonly WorkerFilter[] = FILTERS): WorkerFilter[] {
  return chain.filter((f) => f.appliesTo(job));
}

/**
 * The verdict of `chain` (default: the whole chain) for one worker: the first filter that fails
 * decides, with its reasons when `explain`. Free capacity is `view.free`, else the worker's own.
 */
export function checkWorker(
  job: SchedulerJob,
  view: PlacementView,
  w: number,
  explain = true,
  chain: readonly WorkerFilter[] = FILTERS,
): Verdict {
  for (const filter of chain) {
    const verdict = filter.check(job, view, w, explain);
    if (verdict.kind !== 'ok') return verdict;
  }
  return OK;
}
