import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constraintHolds, type Constraint } from '../../../../src/model/constraints.js';
import { orderPending } from '../../../../src/cluster/scheduler/index.js';
import { deviceCompatible, devicesNeeded } from '../../../../src/cluster/scheduler/placement/fit.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { Plan, SchedulerJob, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { GiB, quota, usage } from '../helpers.js';

const workerArb = fc.record({
  kind: fc.constantFrom('cpu', 'gpu', 'tpu'),
  cpu: fc.integer({ min: 1, max: 8 }),
  mem: fc.integer({ min: 1, max: 16 }),
  busy: fc.integer({ min: 0, max: 100 }),
  variant: fc.constantFrom('A', 'B'),
  slice: fc.constantFrom('s0', 's1', 's2'),
  tpuId: fc.integer({ min: 0, max: 5 }),
  region: fc.option(fc.constantFrom('east', 'west'), { nil: undefined }),
  schedulable: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
});

const jobArb = fc.record({
  depth: fc.integer({ min: 1, max: 3 }),
  root: fc.integer({ min: 0, max: 5 }),
  user: fc.constantFrom('u1', 'u2', 'u3'),
  cpu: fc.integer({ min: 1, max: 6 }),
  mem: fc.integer({ min: 0, max: 12 }),
  device: fc.constantFrom('none', 'gpu', 'gpuA', 'tpu'),
  devCount: fc.integer({ min: 1, max: 4 }),
  constraint: fc.constantFrom('none', 'east', 'not-west', 'has-region'),
  gang: fc.boolean(),
  replicas: fc.integer({ min: 1, max: 4 }),
});

const CONSTRAINTS: Record<string, Constraint[]> = {
  none: [],
  east: [{ key: 'region', op: 'eq', values: ['east'] }],
  'not-west': [{ key: 'region', op: 'ne', values: ['west'] }],
  'has-region': [{ key: 'region', op: 'exists', values: [] }],
};

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;

function build(ws: Generated<typeof workerArb>[], js: Generated<typeof jobArb>[], withQuotas: boolean): Snapshot {
  const workers: WorkerView[] = ws.map((w, i) => {
    const count = w.kind === 'cpu' ? 0 : w.kind === 'gpu' ? 8 : 4;
    const cpu = w.cpu * 1000;
    const mem = w.mem * GiB;
    const attributes: Record<string, string> = {};
    if (w.region) attributes.region = w.region;
    if (w.kind === 'tpu') Object.assign(attributes, { 'tpu-name': w.slice, 'tpu-worker-id': String(w.tpuId) });
    const freeDevices = Array.from({ length: count }, (_, d) => d).filter((d) => (d * 37 + w.busy) % 100 >= w.busy);
    return {
      id: `w${i}`,
      device: { type: w.kind, variant: w.kind === 'cpu' ? null : w.kind === 'tpu' ? 'v5e' : w.variant, count },
      attributes,
      capacity: { cpuMillis: cpu, memoryBytes: mem },
      free: {
        cpuMillis: Math.floor((cpu * (100 - w.busy)) / 100),
        memoryBytes: Math.floor((mem * (100 - w.busy)) / 100),
        devices: freeDevices,
      },
      schedulable: w.schedulable,
    };
  });
  const jobs = new Map<string, SchedulerJob>();
  const pending = [];
  let seq = 0;
  for (let i = 0; i < js.length; i++) {
    const j = js[i]!;
    const name = ['', `r${j.root}`, ...Array.from({ length: j.depth - 1 }, (_, k) => `c${i}-${k}`), `j${i}`].join('/');
    const device =
      j.device === 'gpu'
        ? { type: 'gpu' as const, variant: null, count: j.devCount }
        : j.device === 'gpuA'
          ? { type: 'gpu' as const, variant: 'A', count: j.devCount }
          : j.device === 'tpu'
            ? { type: 'tpu' as const, variant: 'v5e', chips: j.devCount }
            : null;
    const job: SchedulerJob = {
      name,
      depth: j.depth + 1,
      rootSubmittedAt: j.root,
      seq: seq++,
      user: j.user,
      resources: { cpuMillis: j.cpu * 500, memoryBytes: j.mem * (GiB / 2), device },
      constraints: CONSTRAINTS[j.constraint]!,
      coschedule: j.gang ? 'tpu-name' : null,
      replicas: j.replicas,
    };
    jobs.set(name, job);
    for (let t = 0; t < j.replicas; t++)
      pending.push({ id: `${name}/task-${t}`, job: name, index: t, submittedAt: i % 3, seq: seq++ });
  }
  const quotas = withQuotas
    ? new Map([
        ['u1', quota({ maxRunningCpuMillis: 3000 })],
        ['u2', quota({ maxRunningAccelerators: 2 })],
      ])
    : new Map();
  return {
    now: 0,
    jobs,
    pending: pending.reverse(),
    workers,
    usage: new Map([['u1', usage({ cpuMillis: 1000 })]]),
    quotas,
  };
}

function checkInvariants(snap: Snapshot, plan: Plan): void {
  const byId = new Map(snap.workers.map((w) => [w.id, w]));
  const pendingIds = new Set(snap.pending.map((t) => t.id));
  const seen = new Set<string>();
  const cpu = new Map<string, number>();
  const mem = new Map<string, number>();
  const devs = new Map<string, Set<number>>();
  for (const p of plan.placements) {
    expect(pendingIds.has(p.task)).toBe(true);
    expect(seen.has(p.task)).toBe(false); // each task at most once
    seen.add(p.task);
    const job = snap.jobs.get(p.job)!;
    const w = byId.get(p.workerId)!;
    expect(w.schedulable).toBe(true);
    expect(deviceCompatible(job.resources.device, w.device)).toBe(true);
    expect(job.constraints.every((c) => constraintHolds(c, w.attributes))).toBe(true);
    expect(p.deviceIndices).toHaveLength(devicesNeeded(job.resources));
    cpu.set(w.id, (cpu.get(w.id) ?? 0) + job.resources.cpuMillis);
    mem.set(w.id, (mem.get(w.id) ?? 0) + job.resources.memoryBytes);
    const used = devs.get(w.id) ?? new Set<number>();
    for (const d of p.deviceIndices) {
      expect(w.free.devices).toContain(d);
      expect(used.has(d)).toBe(false); // disjoint indices
      used.add(d);
    }
    devs.set(w.id, used);
  }
  for (const w of snap.workers) {
    expect(cpu.get(w.id) ?? 0).toBeLessThanOrEqual(w.free.cpuMillis);
    expect(mem.get(w.id) ?? 0).toBeLessThanOrEqual(w.free.memoryBytes);
  }
  // Gangs: all or nothing, distinct workers, one group; gang workers not shared between gangs.
  const gangWorkers = new Set<string>();
  for (const job of snap.jobs.values()) {
    const tasks = snap.pending.filter((t) => t.job === job.name);
    const placed = plan.placements.filter((p) => p.job === job.name);
    if (job.coschedule !== null) {
      expect([0, tasks.length]).toContain(placed.length);
      expect(new Set(placed.map((p) => p.workerId)).size).toBe(placed.length);
      expect(new Set(placed.map((p) => byId.get(p.workerId)!.attributes[job.coschedule!])).size).toBeLessThanOrEqual(1);
      for (const p of placed) {
        expect(gangWorkers.has(p.workerId)).toBe(false);
        gangWorkers.add(p.workerId);
      }
    }
    // Exactly the jobs with tasks left have a reason.
    expect(plan.reasons.has(job.name)).toBe(placed.length < tasks.length);
  }
}

/** Reference first-fit: O(tasks x workers), queue order, no gangs, no quotas. */
function naiveFirstFit(snap: Snapshot): Array<[string, string]> {
  const free = snap.workers.map((w) => ({
    cpu: w.free.cpuMillis,
    mem: w.free.memoryBytes,
    dev: w.free.devices.length,
  }));
  const out: Array<[string, string]> = [];
  for (const task of orderPending(snap)) {
    const job = snap.jobs.get(task.job)!;
    const r = job.resources;
    const need = devicesNeeded(r);
    const fits = (w: WorkerView, k: number) =>
      w.schedulable &&
      deviceCompatible(r.device, w.device) &&
      job.constraints.every((c) => constraintHolds(c, w.attributes)) &&
      free[k]!.cpu >= r.cpuMillis &&
      free[k]!.mem >= r.memoryBytes &&
      free[k]!.dev >= need;
    // Accelerators are kept for accelerator work (issue 31 §3): a job without a device request
    // takes the first worker without accelerators that fits, and an accelerator worker only
    // when none does.
    const plain = (w: WorkerView) => w.device.type === 'cpu' || w.device.count === 0;
    let i = r.device === null ? snap.workers.findIndex((w, k) => plain(w) && fits(w, k)) : -1;
    if (i < 0) i = snap.workers.findIndex(fits);
    if (i < 0) continue;
    free[i]!.cpu -= r.cpuMillis;
    free[i]!.mem -= r.memoryBytes;
    free[i]!.dev -= need;
    out.push([task.id, snap.workers[i]!.id]);
  }
  return out;
}

describe('schedule properties', () => {
  it(
    'never over-commits, places each task at most once, gangs all-or-nothing, reasons for exactly the waiting ' +
      'jobs',
    () => {
      fc.assert(
        fc.property(
          fc.array(workerArb, { maxLength: 12 }),
          fc.array(jobArb, { maxLength: 12 }),
          fc.boolean(),
          (ws, js, withQuotas) => {
            const snap = build(ws, js, withQuotas);
            const plan = schedule(snap);
            checkInvariants(snap, plan);
            expect(schedule(snap)).toEqual(plan); // deterministic
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('independent tasks without quotas match a naive first-fit exactly (no head-of-line blocking)', () => {
    fc.assert(
      fc.property(
        fc.array(workerArb, { maxLength: 40 }),
        fc.array(
          jobArb.map((j) => ({ ...j, gang: false })),
          { maxLength: 25 },
        ),
        (ws, js) => {
          const snap = build(ws, js, false);
          const plan = schedule(snap);
          expect(plan.placements.map((p) => [p.task, p.workerId])).toEqual(naiveFirstFit(snap));
        },
      ),
      { numRuns: 300 },
    );
  });
});
