// Work-conserving passes (pass.ts header, docs/architecture.md "Queue policies"): after a pass, no
// pending job that could start now on the free capacity, without overlapping a reservation the
// policy keeps, is left waiting; and no placement overlaps one. Checked for every planning policy
// with the shipped adaptive placement and with first-fit placement, with small queue depths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import { PART, type Reservation } from '../../../../src/cluster/scheduler/queue/allocate.js';
import { QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  Plan,
  RunningAllocation,
  SchedulerJob,
  Snapshot,
  WorkerView,
} from '../../../../src/cluster/scheduler/types.js';
import { hold, PLACEMENTS, simulate, snap, startedJobs, timed, worker, type SimJob } from './helpers.js';

const BACKFILLING: QueuePolicy[] = ['easy', 'conservative', 'hybrid'];

interface Seen {
  snapshot: Snapshot;
  plan: Plan;
  changed: boolean;
  /** Reservations standing before the pass and those it ended with. */
  before: Reservation[];
  after: Reservation[];
}

/**
 * The snapshot a next pass at the same instant sees: the tasks `plan` started run (until their
 * planned end) on the capacity they took; nothing else changed.
 */
function afterPlan(snapshot: Snapshot, plan: Plan): Snapshot {
  const started = new Set(plan.placements.map((p) => p.task));
  const running: RunningAllocation[] = [...(snapshot.running ?? [])];
  const workers = snapshot.workers.map((w) => ({ ...w, free: { ...w.free, devices: [...w.free.devices] } }));
  for (const p of plan.placements) {
    const job = snapshot.jobs.get(p.job)!;
    const w = workers.find((v) => v.id === p.workerId)!;
    w.free.cpuMillis -= job.resources.cpuMillis;
    w.free.memoryBytes -= job.resources.memoryBytes;
    w.free.devices = w.free.devices.filter((d) => !p.deviceIndices.includes(d));
    running.push({
      task: p.task,
      job: p.job,
      workerId: p.workerId,
      cpuMillis: job.resources.cpuMillis,
      memoryBytes: job.resources.memoryBytes,
      devices: p.deviceIndices.length,
      endsAt: snapshot.now + job.timeLimitMs!,
    });
  }
  return { ...snapshot, pending: snapshot.pending.filter((t) => !started.has(t.id)), workers, running };
}

/**
 * A QueueScheduler that records, per pass, the reservations before and after it; after a pass
 * that says it is settled, it runs the next pass at the same instant, which must start nothing.
 */
class Recording extends QueueScheduler {
  readonly seen: Seen[] = [];
  settledPasses = 0;
  override pass(snapshot: Snapshot, resourcesChanged = true): Plan {
    const before = [...this.state.reserved.values()].map((b) => b.reservation!);
    const plan = super.pass(snapshot, resourcesChanged);
    const after = [...this.state.reserved.values()].map((b) => b.reservation!);
    this.seen.push({ snapshot, plan, changed: resourcesChanged, before, after });
    if (plan.settled && plan.placements.length > 0) {
      this.settledPasses++;
      const next = super.pass(afterPlan(snapshot, plan), false);
      expect(next.placements, `a pass after a settled one at ${snapshot.now}`).toEqual([]);
    }
    return plan;
  }
}

interface Span {
  start: number;
  end: number;
  cpu: number;
  mem: number;
}

/** Spans held on each worker: running tasks, this pass's starts and the given reservations. */
function spansOf(seen: Seen, reservations: Reservation[], except: string | null): Map<string, Span[]> {
  const { snapshot, plan } = seen;
  const now = snapshot.now;
  const byWorker = new Map<string, Span[]>(snapshot.workers.map((w) => [w.id, []]));
  for (const r of snapshot.running ?? []) {
    const end = r.endsAt > now ? r.endsAt : now + 1;
    byWorker.get(r.workerId)!.push({ start: now, end, cpu: r.cpuMillis, mem: r.memoryBytes });
  }
  for (const p of plan.placements) {
    const j = snapshot.jobs.get(p.job)!;
    const res = j.resources;
    byWorker.get(p.workerId)!.push({ start: now, end: now + j.timeLimitMs!, cpu: res.cpuMillis, mem: res.memoryBytes });
  }
  for (const r of reservations) {
    if (r.job === except) continue;
    for (let k = 0; k < r.parts.length; k += PART) {
      const start = r.parts[k + 1]!;
      const width = r.parts[k + 2]!;
      byWorker.get(r.workers[r.parts[k]!]!)?.push({
        start,
        end: start + r.duration * r.parts[k + 3]!,
        cpu: r.req.cpuMillis * width,
        mem: r.req.memoryBytes * width,
      });
    }
  }
  return byWorker;
}

/** The most of cpu and memory `spans` use at once within [start, end). */
function peak(spans: Span[], start: number, end: number): { cpu: number; mem: number } {
  let cpu = 0;
  let mem = 0;
  const points = [start, ...spans.map((s) => s.start).filter((t) => t > start && t < end)];
  for (const t of points) {
    let c = 0;
    let m = 0;
    for (const s of spans) {
      if (s.start <= t && t < s.end) {
        c += s.cpu;
        m += s.mem;
      }
    }
    cpu = Math.max(cpu, c);
    mem = Math.max(mem, m);
  }
  return { cpu, mem };
}

function allowed(job: SchedulerJob, w: WorkerView): boolean {
  return job.constraints.every((c) => c.op === 'eq' && w.attributes[c.key] === c.values[0]);
}

/** Workers on which one more task of `job` could start now (free capacity, no reservation overlapped). */
function startableOn(seen: Seen, job: SchedulerJob): string[] {
  const { snapshot, plan } = seen;
  const now = snapshot.now;
  const res = job.resources;
  // Reservations held at the start of the pass are kept while the jobs ahead of them are planned.
  const spans = spansOf(seen, [...seen.before, ...seen.after], job.name);
  const out: string[] = [];
  for (const w of snapshot.workers) {
    if (!w.schedulable || !allowed(job, w)) continue;
    let cpu = w.free.cpuMillis;
    let mem = w.free.memoryBytes;
    for (const p of plan.placements) {
      if (p.workerId !== w.id) continue;
      const r = snapshot.jobs.get(p.job)!.resources;
      cpu -= r.cpuMillis;
      mem -= r.memoryBytes;
    }
    if (cpu < res.cpuMillis || mem < res.memoryBytes) continue;
    const used = peak(spans.get(w.id)!, now, now + job.timeLimitMs!);
    if (used.cpu + res.cpuMillis <= w.capacity.cpuMillis && used.mem + res.memoryBytes <= w.capacity.memoryBytes)
      out.push(w.id);
  }
  return out;
}

/** The invariant, for one pass: see the header of this file. */
function checkPass(seen: Seen): void {
  const { snapshot, plan } = seen;
  // No worker is planned over its capacity: starts never overlap a kept reservation.
  const spans = spansOf(seen, seen.after, null);
  for (const w of snapshot.workers) {
    const mine = spans.get(w.id)!;
    for (const s of mine) {
      const used = peak(mine, s.start, s.start + 1);
      expect(used.cpu, `${w.id} at ${s.start}`).toBeLessThanOrEqual(w.capacity.cpuMillis);
    }
  }
  const placed = new Map<string, number>();
  for (const p of plan.placements) placed.set(p.job, (placed.get(p.job) ?? 0) + 1);
  const pendingOf = new Map<string, number>();
  for (const t of snapshot.pending) pendingOf.set(t.job, (pendingOf.get(t.job) ?? 0) + 1);
  for (const [name, count] of pendingOf) {
    const job = snapshot.jobs.get(name)!;
    if (job.coschedule !== null || (placed.get(name) ?? 0) >= count) continue;
    // After a change of resources every job is reconsidered; after arrivals only the ones the
    // pass looked at (a job blocked before stands: nothing was freed since).
    if (!seen.changed && !plan.reasons.has(name) && !placed.has(name)) continue;
    expect(plan.reasons.has(name), `${name} has no reason`).toBe(true);
    expect(startableOn(seen, job), `${name} left waiting (${plan.reasons.get(name)})`).toEqual([]);
  }
}

// Two pools (`a`, `b`) of 1-3 workers of 1-6 cores; jobs on one pool, either, or gangs on `a`.
const workerArb = fc.record({ cores: fc.integer({ min: 1, max: 6 }), pool: fc.constantFrom('a', 'b') });
const jobArb = fc.record({
  gap: fc.integer({ min: 0, max: 30 }),
  cpu: fc.integer({ min: 1, max: 6 }),
  replicas: fc.integer({ min: 1, max: 4 }),
  pool: fc.constantFrom('a', 'b', null),
  gang: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  limit: fc.integer({ min: 5, max: 200 }),
  runFraction: fc.integer({ min: 1, max: 100 }),
});
type Spec = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function build(ws: Array<{ cores: number; pool: string }>, specs: Spec[]): { workers: WorkerView[]; jobs: SimJob[] } {
  const workers = ws.map((w, i) =>
    worker(`w${i}`, { cpu: w.cores, memGiB: 1, attributes: { pool: w.pool, rack: w.pool } }),
  );
  let t = 0;
  const jobs: SimJob[] = [];
  specs.forEach((s, i) => {
    t += s.gap;
    const pool = s.gang ? 'a' : s.pool;
    const fits = workers.filter((w) => pool === null || w.attributes.pool === pool);
    if (fits.length === 0) return;
    const cpu = Math.min(s.cpu, Math.max(...fits.map((w) => w.capacity.cpuMillis / 1000)));
    const hosts = fits.filter((w) => w.capacity.cpuMillis >= cpu * 1000).length;
    const job = timed(`/j${String(i).padStart(3, '0')}`, s.limit, {
      cpu,
      memGiB: 0,
      replicas: s.gang ? Math.min(s.replicas, hosts) : s.replicas,
      coschedule: s.gang ? 'rack' : null,
      constraints: pool === null ? [] : [{ key: 'pool', op: 'eq', values: [pool] }],
      rootSubmittedAt: t,
    });
    jobs.push({ job, submit: t, runtime: Math.max(1, Math.round((s.limit * s.runFraction) / 100)) });
  });
  return { workers, jobs };
}

const streams = fc.tuple(
  fc.array(workerArb, { minLength: 1, maxLength: 4 }),
  fc.array(jobArb, { minLength: 4, maxLength: 40 }),
  fc.integer({ min: 1, max: 4 }),
);

describe.each(PLACEMENTS)('work-conserving passes (%s placement)', (_label, placement) => {
  it.each(BACKFILLING)('%s: no job that could start now is left waiting, none overlaps a reservation', (policy) => {
    let settled = 0;
    fc.assert(
      fc.property(streams, ([ws, specs, depth]) => {
        const { workers, jobs } = build(ws, specs);
        if (jobs.length === 0) return;
        const scheduler = new Recording({ policy, queueDepth: depth, reservationDepth: 2 }, placement);
        simulate(scheduler, workers, jobs, 400);
        for (const seen of scheduler.seen) checkPass(seen);
        settled += scheduler.settledPasses;
      }),
      { numRuns: 60 },
    );
    // The follow-up check ran (the shipped placements never refuse a feasible worker).
    expect(settled).toBeGreaterThan(0);
  });

  // The repro, as one pass: `hold` is busy, 40 jobs wait for it, then 20 for `bench`.
  const workers = [
    worker('bench', { cpu: 4, memGiB: 4, attributes: { pool: 'bench' } }),
    worker('hold', { cpu: 1, memGiB: 4, attributes: { pool: 'hold' } }),
  ];
  const on = (pool: string) => [{ key: 'pool', op: 'eq' as const, values: [pool] }];
  const holders = Array.from({ length: 40 }, (_, i) =>
    timed(`/h${String(i).padStart(2, '0')}`, 1000, { cpu: 1, memGiB: 0, constraints: on('hold'), rootSubmittedAt: i }),
  );
  const benches = Array.from({ length: 20 }, (_, i) =>
    timed(`/b${String(i).padStart(2, '0')}`, 500, {
      cpu: 1,
      memGiB: 0,
      constraints: on('bench'),
      rootSubmittedAt: 100 + i,
    }),
  );
  const s = snap([...holders, ...benches], workers, [hold('/sleep/task-0', 'hold', 1, 1000 + 600_000)]);

  it.each([...BACKFILLING, 'first-fit' as const])('%s: an idle pool behind 40 blocked jobs is used', (policy) => {
    const plan = new QueueScheduler({ policy }, placement).pass(s, true);
    expect(startedJobs(plan)).toEqual(['/b00', '/b01', '/b02', '/b03']);
    expect(plan.reasons.get('/b04')).toMatch(/^need 1 CPU, largest free worker has 0|^no worker fits/);
    // The same with a pre-ordered queue (the simulator's), read lazily.
    const lazy = new QueueScheduler({ policy }, placement).pass({ ...s, pendingOrdered: true }, true);
    expect(startedJobs(lazy)).toEqual(['/b00', '/b01', '/b02', '/b03']);
  });

  it('fcfs still starts strictly in order: the bench jobs wait behind the first blocked job', () => {
    const plan = new QueueScheduler({ policy: 'fcfs' }, placement).pass(s, true);
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/b00')).toBe('waiting behind /h00 (queue policy fcfs starts jobs strictly in order)');
  });

  it('queueDepth bounds the jobs a pass plans (reserves); past them jobs still start now', () => {
    const big = [worker('big', { cpu: 8 })];
    const many = Array.from({ length: 10 }, (_, i) => timed(`/j${i}`, 10, { cpu: 1, memGiB: 0, rootSubmittedAt: i }));
    const wide = timed('/wide', 10, { cpu: 8, memGiB: 0, rootSubmittedAt: -1 });
    const plan = new QueueScheduler({ policy: 'conservative', queueDepth: 3 }, placement).pass(
      snap([wide, ...many], big, [hold('/r/task-0', 'big', 4, 1100)]),
    );
    // The window is /wide (reserved behind the running task), /j0 and /j1; /j2 and /j3 are past
    // it and still start in the 4 free cores (they end before /wide's start). Nothing past the
    // window is reserved.
    expect(Object.fromEntries(plan.reservations!)).toEqual({ '/wide': 1100 });
    expect(startedJobs(plan)).toEqual(['/j0', '/j1', '/j2', '/j3']);
    expect(plan.reasons.get('/j9')).toMatch(/^need 1 CPU, largest free worker has 0/);
  });

  it('a walk that ends early (nothing more can start) gives every job its reason; those jobs do not stand', () => {
    const one = [worker('w', { cpu: 4, memGiB: 4 })];
    // /wide is reserved behind the running task (easy: its one reservation); no core is free.
    const wide = timed('/wide', 100, { cpu: 4, memGiB: 0, rootSubmittedAt: 0 });
    const rest = Array.from({ length: 6 }, (_, i) =>
      timed(`/r${i}`, 100, { cpu: 1 + (i % 2), memGiB: 0, rootSubmittedAt: 1 + i }),
    );
    const busy = snap([wide, ...rest], one, [hold('/run/task-0', 'w', 4, 5000)]);
    const scheduler = new QueueScheduler({ policy: 'easy', queueDepth: 2 }, placement);
    const plan = scheduler.pass(busy, true);
    expect(plan.placements).toEqual([]);
    expect(Object.fromEntries(plan.reservations!)).toEqual({ '/wide': 5000 });
    for (const r of rest) expect(plan.reasons.get(r.name), r.name).toMatch(/^need \d CPU, largest free worker has 0/);
    // /r0 is in the window (queueDepth 2): looked at, blocked, standing. The walk ends at /r1
    // (no reservation left to give, no free core): those jobs do not stand (looked at again next pass).
    expect([...scheduler.state.blocked.keys()]).toEqual(['/wide', '/r0']);
    // The simulator's pre-ordered queue: the walk does not read them at all.
    const lazy = new QueueScheduler({ policy: 'easy', queueDepth: 2 }, placement).pass(
      { ...busy, pendingOrdered: true },
      true,
    );
    expect([...lazy.reasons.keys()]).toEqual(['/wide', '/r0']);
    expect(lazy.settled).toBe(true);
  });
});
