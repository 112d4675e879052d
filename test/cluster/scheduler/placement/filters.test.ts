import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConstraint } from '../../../../src/model/constraints.js';
import {
  CONSTRAINTS,
  DEVICE_TYPE,
  DEVICE_VARIANT,
  FILTERS,
  FREE_CAPACITY,
  GANG_ATTRIBUTE,
  GANG_TAKEN,
  GPU_MEMORY,
  INDEXED_FILTERS,
  NEVER_FILTERS,
  SCHEDULABLE,
  TOTAL_CAPACITY,
  type PlacementView,
  type WorkerFilter,
} from '../../../../src/cluster/scheduler/placement/filters.js';
import { CandidateIndex } from '../../../../src/cluster/scheduler/placement/candidates.js';
import { ScratchCapacity } from '../../../../src/cluster/scheduler/placement/scratch.js';
import { explainJob } from '../../../../src/cluster/scheduler/placement/explain.js';
import { neverReason } from '../../../../src/cluster/scheduler/index.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { SchedulerJob, Verdict, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { GiB, gpuWorker, job, snapshot, tpuWorker, worker } from '../helpers.js';

/** A verdict with its reasons as plain data. */
function plain(v: Verdict): unknown {
  if (v.kind === 'ok') return v;
  return {
    kind: v.kind,
    reasons: v.reasons.map((r) => ({
      filter: r.filter,
      message: r.message,
      ...(r.numbers ? { numbers: r.numbers } : {}),
    })),
  };
}

function verdict(filter: WorkerFilter, j: SchedulerJob, w: WorkerView, taken = false): unknown {
  const view: PlacementView = { workers: [w], free: () => w.free, gangTaken: Uint8Array.of(taken ? 1 : 0) };
  const explained = filter.check(j, view, 0, true);
  // Unexplained checks agree on the kind and allocate no reasons.
  const quick = filter.check(j, view, 0, false);
  expect(quick.kind).toBe(explained.kind);
  if (quick.kind !== 'ok') expect(quick.reasons).toEqual([]);
  return plain(explained);
}

const H100x1 = { type: 'gpu', variant: 'H100', count: 1 } as const;
const H100_40 = { type: 'gpu', variant: 'H100', count: 1, memoryBytes: 40 * GiB } as const;
const ok = { kind: 'ok' };

describe('each filter of the chain: ok / not now / never with a structured reason', () => {
  const table: Array<[string, WorkerFilter, SchedulerJob, WorkerView, unknown, boolean?]> = [
    ['schedulable: ok', SCHEDULABLE, job('/j'), worker('w'), ok],
    [
      'schedulable: disabled',
      SCHEDULABLE,
      job('/j'),
      { ...worker('d', { schedulable: false }), disabled: 'elastic: idle 1m' },
      { kind: 'never', reasons: [{ filter: 'schedulable', message: 'worker d is disabled (elastic: idle 1m)' }] },
    ],
    [
      'schedulable: draining',
      SCHEDULABLE,
      job('/j'),
      worker('d', { schedulable: false }),
      { kind: 'never', reasons: [{ filter: 'schedulable', message: 'worker d is draining' }] },
    ],
    ['device type: cpu job anywhere', DEVICE_TYPE, job('/j'), gpuWorker('g', 'H100'), ok],
    [
      'device type: gpu job on a cpu worker',
      DEVICE_TYPE,
      job('/j', { device: H100x1 }),
      worker('c'),
      { kind: 'never', reasons: [{ filter: 'device-type', message: 'worker c has no gpu devices' }] },
    ],
    ['device variant: match', DEVICE_VARIANT, job('/j', { device: H100x1 }), gpuWorker('g', 'H100'), ok],
    [
      'device variant: other',
      DEVICE_VARIANT,
      job('/j', { device: H100x1 }),
      gpuWorker('g', 'A100'),
      { kind: 'never', reasons: [{ filter: 'device-variant', message: 'worker g has A100 not H100' }] },
    ],
    ['gpu memory: no request passes any worker', GPU_MEMORY, job('/j', { device: H100x1 }), gpuWorker('g', 'H100'), ok],
    [
      'gpu memory: enough',
      GPU_MEMORY,
      job('/j', { device: H100_40 }),
      worker('g', { device: { type: 'gpu', variant: 'H100', count: 8, memoryBytes: 80 * GiB } }),
      ok,
    ],
    [
      'gpu memory: exactly enough',
      GPU_MEMORY,
      job('/j', { device: H100_40 }),
      worker('g', { device: { type: 'gpu', variant: 'H100', count: 8, memoryBytes: 40 * GiB } }),
      ok,
    ],
    [
      'gpu memory: too little',
      GPU_MEMORY,
      job('/j', { device: H100_40 }),
      worker('g', { device: { type: 'gpu', variant: 'H100', count: 1, memoryBytes: 24 * GiB } }),
      {
        kind: 'never',
        reasons: [
          {
            filter: 'gpu-memory',
            message: 'need 40GiB gpu memory, worker g has 24GiB',
            numbers: { need: 40 * GiB, has: 24 * GiB },
          },
        ],
      },
    ],
    [
      'gpu memory: unknown is never taken to be enough',
      GPU_MEMORY,
      job('/j', { device: H100_40 }),
      gpuWorker('g', 'H100'),
      {
        kind: 'never',
        reasons: [
          {
            filter: 'gpu-memory',
            message: 'need 40GiB gpu memory, worker g has an unknown amount',
            numbers: { need: 40 * GiB, has: -1 },
          },
        ],
      },
    ],
    [
      'constraints: hold',
      CONSTRAINTS,
      job('/j', { constraints: [parseConstraint('region=eu')] }),
      worker('w', { attributes: { region: 'eu' } }),
      ok,
    ],
    [
      'constraints: every failing one is named',
      CONSTRAINTS,
      job('/j', { constraints: [parseConstraint('region=eu'), parseConstraint('rack'), parseConstraint('zone')] }),
      worker('w', { attributes: { rack: '1' } }),
      {
        kind: 'never',
        reasons: [
          { filter: 'constraints', message: 'worker w does not satisfy constraint region=eu' },
          { filter: 'constraints', message: 'worker w does not satisfy constraint zone' },
        ],
      },
    ],
    ['gang attribute: present', GANG_ATTRIBUTE, job('/g', { coschedule: 'tpu-name' }), tpuWorker('t', 's', 0), ok],
    [
      'gang attribute: missing',
      GANG_ATTRIBUTE,
      job('/g', { coschedule: 'tpu-name' }),
      worker('w'),
      { kind: 'never', reasons: [{ filter: 'gang-attribute', message: 'worker w has no tpu-name attribute' }] },
    ],
    ['gang attribute: not a gang', GANG_ATTRIBUTE, job('/j'), worker('w'), ok],
    [
      'total capacity: cpu and memory short',
      TOTAL_CAPACITY,
      job('/j', { cpu: 8, memGiB: 32 }),
      worker('w', { cpu: 4, memGiB: 16 }),
      {
        kind: 'never',
        reasons: [
          { filter: 'total-capacity', message: 'need 8 CPU, worker w has 4', numbers: { need: 8000, has: 4000 } },
          {
            filter: 'total-capacity',
            message: 'need 32GiB memory, worker w has 16GiB',
            numbers: { need: 32 * GiB, has: 16 * GiB },
          },
        ],
      },
    ],
    [
      'total capacity: devices short',
      TOTAL_CAPACITY,
      job('/j', { device: { type: 'gpu', variant: null, count: 4 } }),
      gpuWorker('g', 'H100', 2),
      {
        kind: 'never',
        reasons: [{ filter: 'total-capacity', message: 'need 4 GPUs, worker g has 2', numbers: { need: 4, has: 2 } }],
      },
    ],
    [
      'total capacity: busy but big enough',
      TOTAL_CAPACITY,
      job('/j', { cpu: 4 }),
      worker('w', { cpu: 4, freeCpu: 0 }),
      ok,
    ],
    ['gang taken: free', GANG_TAKEN, job('/g', { coschedule: 'tpu-name' }), tpuWorker('t', 's', 0), ok],
    [
      'gang taken: taken',
      GANG_TAKEN,
      job('/g', { coschedule: 'tpu-name' }),
      tpuWorker('t', 's', 0),
      {
        kind: 'not_now',
        reasons: [{ filter: 'gang-taken', message: 'worker t is already given to another gang in this pass' }],
      },
      true,
    ],
    ['gang taken: not a gang', GANG_TAKEN, job('/j'), worker('w'), ok, true],
    ['free capacity: fits', FREE_CAPACITY, job('/j', { cpu: 2 }), worker('w', { freeCpu: 2 }), ok],
    [
      'free capacity: cpu busy',
      FREE_CAPACITY,
      job('/j', { cpu: 2 }),
      worker('w', { freeCpu: 1 }),
      {
        kind: 'not_now',
        reasons: [
          { filter: 'free-capacity', message: 'need 2 CPU, worker w has 1 free', numbers: { need: 2000, has: 1000 } },
        ],
      },
    ],
    [
      'free capacity: TPU chips busy',
      FREE_CAPACITY,
      job('/t', { device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } }),
      tpuWorker('t', 's', 0, { freeDevices: [3] }),
      {
        kind: 'not_now',
        reasons: [
          { filter: 'free-capacity', message: 'need 4 TPU chips, worker t has 1 free', numbers: { need: 4, has: 1 } },
        ],
      },
    ],
  ];
  it.each(table)('%s', (_name, filter, j, w, expected, taken) => {
    expect(verdict(filter, j, w, taken)).toEqual(expected);
  });

  it('the chain is in documented order, never filters before not-now ones', () => {
    expect(FILTERS.map((f) => f.name)).toEqual([
      'schedulable',
      'device-type',
      'device-variant',
      'gpu-memory',
      'constraints',
      'gang-attribute',
      'total-capacity',
      'sticky',
      'gang-taken',
      'free-capacity',
    ]);
    expect(NEVER_FILTERS.every((f) => f.kind === 'never')).toBe(true);
    expect(FILTERS.slice(NEVER_FILTERS.length).every((f) => f.kind === 'not_now')).toBe(true);
    expect(INDEXED_FILTERS.map((f) => f.name)).toEqual([
      'schedulable',
      'device-type',
      'device-variant',
      'gpu-memory',
      'constraints',
      'sticky',
    ]);
  });
});

// ---- the candidate index, explain and the never check all agree with the chain ---------------

const regions = ['a', 'b'];
const devices = [
  { type: 'cpu', variant: null, count: 0 },
  { type: 'gpu', variant: 'H100', count: 4 },
  { type: 'gpu', variant: 'H100', count: 4, memoryBytes: 80 * GiB },
  { type: 'gpu', variant: 'A100', count: 8 },
  { type: 'gpu', variant: 'A100', count: 8, memoryBytes: 40 * GiB },
  { type: 'tpu', variant: 'v5litepod-16', count: 4 },
] as const;
const arbWorker = fc.record({
  device: fc.constantFrom(...devices),
  cpu: fc.integer({ min: 1, max: 8 }),
  mem: fc.integer({ min: 1, max: 8 }),
  region: fc.option(fc.constantFrom(...regions)),
  slice: fc.option(fc.constantFrom('s1', 's2')),
  schedulable: fc.boolean(),
  busy: fc.double({ min: 0, max: 1, noNaN: true }),
});
const arbJob = fc.record({
  device: fc.constantFrom(
    null,
    { type: 'gpu', variant: null, count: 2 },
    { type: 'gpu', variant: null, count: 2, memoryBytes: 48 * GiB },
    { type: 'gpu', variant: 'H100', count: 1 },
    { type: 'gpu', variant: 'H100', count: 1, memoryBytes: 40 * GiB },
    { type: 'tpu', variant: 'v5litepod-16', chips: 4 },
  ),
  cpu: fc.integer({ min: 1, max: 8 }),
  mem: fc.integer({ min: 1, max: 8 }),
  constraint: fc.option(fc.constantFrom('region=a', 'region', '!region', 'region in (a,b)')),
  gang: fc.option(fc.integer({ min: 1, max: 3 })),
});

type Of<A> = A extends fc.Arbitrary<infer T> ? T : never;

function toWorkers(list: Array<Of<typeof arbWorker>>): WorkerView[] {
  return list.map((o, i) => {
    const attributes: Record<string, string> = {};
    if (o.region !== null) attributes.region = o.region;
    if (o.slice !== null) attributes['tpu-name'] = o.slice;
    const freeDevices = Math.floor(o.device.count * (1 - o.busy));
    return worker(`w${i}`, {
      cpu: o.cpu,
      memGiB: o.mem,
      device: o.device,
      attributes,
      schedulable: o.schedulable,
      freeCpu: Math.floor(o.cpu * (1 - o.busy)),
      freeMemGiB: Math.floor(o.mem * (1 - o.busy)),
      freeDevices: Array.from({ length: freeDevices }, (_, d) => d),
    });
  });
}

function toJob(o: Of<typeof arbJob>): SchedulerJob {
  return job('/j', {
    cpu: o.cpu,
    memGiB: o.mem,
    device: o.device,
    constraints: o.constraint ? [parseConstraint(o.constraint)] : [],
    coschedule: o.gang !== null ? 'tpu-name' : null,
    replicas: o.gang ?? 1,
  });
}

const passes = (chain: readonly WorkerFilter[], j: SchedulerJob, view: PlacementView, w: number) =>
  chain.every((f) => f.check(j, view, w, false).kind === 'ok');

describe('everything placement answers comes from the chain', () => {
  it('the candidate index holds exactly the workers that pass the indexed filters', () => {
    fc.assert(
      fc.property(fc.array(arbWorker, { maxLength: 8 }), arbJob, (ws, o) => {
        const workers = toWorkers(ws);
        const j = toJob(o);
        const { members } = new CandidateIndex(new ScratchCapacity(workers)).of(j);
        const expected = workers.map((_, w) => w).filter((w) => passes(INDEXED_FILTERS, j, { workers }, w));
        expect(members).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('the never check refuses a non-gang job iff no worker passes the never filters', () => {
    fc.assert(
      fc.property(fc.array(arbWorker, { maxLength: 8 }), arbJob, (ws, o) => {
        const workers = toWorkers(ws);
        const j = { ...toJob(o), coschedule: null, replicas: 1 };
        const allDraining = workers.length > 0 && workers.every((w) => !w.schedulable);
        const someWorkerCan = workers.some((_, w) => passes(NEVER_FILTERS, j, { workers }, w));
        expect(neverReason(j, workers) === null).toBe(someWorkerCan || allDraining);
      }),
      { numRuns: 300 },
    );
  });

  it('explain finds no reason iff the chain accepts a worker now; schedule then places the job', () => {
    fc.assert(
      fc.property(fc.array(arbWorker, { maxLength: 8 }), arbJob, (ws, o) => {
        const workers = toWorkers(ws);
        const j = { ...toJob(o), coschedule: null, replicas: 1 };
        const view: PlacementView = { workers, free: (w) => workers[w]!.free };
        const someFits = workers.some((_, w) => passes(FILTERS, j, view, w));
        expect(explainJob(j, 1, view) === null).toBe(someFits);
        const plan = schedule(snapshot([j], workers));
        expect(plan.placements.length).toBe(someFits ? 1 : 0);
        if (someFits) {
          // First-fit: the first worker the chain accepts, workers without accelerators first
          // for a job that asks for none (issue 31 §3).
          const accepts = (w: number) => passes(FILTERS, j, view, w);
          const plain = (w: number) => workers[w]!.device.type === 'cpu' || workers[w]!.device.count === 0;
          let first = j.resources.device === null ? workers.findIndex((_, w) => plain(w) && accepts(w)) : -1;
          if (first < 0) first = workers.findIndex((_, w) => accepts(w));
          expect(plan.placements[0]!.workerId).toBe(workers[first]!.id);
        } else {
          expect(plan.reasons.get('/j')).toBe(explainJob(j, 1, view));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a gang is refused iff no group holds enough workers that pass the never filters', () => {
    fc.assert(
      fc.property(
        fc.array(arbWorker, { maxLength: 8 }),
        arbJob.filter((o) => o.gang !== null),
        (ws, o) => {
          const workers = toWorkers(ws);
          const j = toJob(o);
          if (workers.length > 0 && workers.every((w) => !w.schedulable)) return;
          const sizes = new Map<string, number>();
          workers.forEach((w, i) => {
            if (passes(NEVER_FILTERS, j, { workers }, i))
              sizes.set(w.attributes['tpu-name']!, (sizes.get(w.attributes['tpu-name']!) ?? 0) + 1);
          });
          const fits = [...sizes.values()].some((n) => n >= j.replicas);
          expect(neverReason(j, workers) === null).toBe(fits);
        },
      ),
      { numRuns: 300 },
    );
  });
});
