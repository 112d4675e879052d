// An independent job's reservation (allocate.ts, reserveIndependent): once nothing but the
// reservation changes the free amounts, its tail is laid out lane by lane in closed form. These
// tests hold it to the round-by-round rule the docs state ("each task at its earliest start, as
// many at that time as fit, workers in order"), written out plainly here as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdReservation, PART, reserveRest } from '../../../../src/cluster/scheduler/queue/allocate.js';
import { PassContext } from '../../../../src/cluster/scheduler/queue/context.js';
import { queueOptions } from '../../../../src/cluster/scheduler/queue/options.js';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import type { RunningAllocation, SchedulerJob, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import { hold, PLACEMENTS, simulate, snap, timed, worker, type SimJob } from './helpers.js';

const NOW = 1000;

/** The rule, one task per step: the earliest start over the workers, then all that fit there. */
function oracle(ctx: PassContext, job: SchedulerJob, count: number): string[] | null {
  const slots = ctx.slots(job);
  const d = ctx.duration(job);
  const req = { cpuMillis: job.resources.cpuMillis, memoryBytes: job.resources.memoryBytes, devices: 0 };
  const tasks: string[] = [];
  let t = ctx.now;
  while (tasks.length < count) {
    const next = Math.min(...slots.map((s) => s.calendar.earliest(t, d, req)));
    if (next === Infinity) return null;
    t = next;
    for (const slot of slots) {
      while (tasks.length < count && slot.calendar.fits(t, d, req)) {
        slot.calendar.add(t, t + d, req);
        tasks.push(`${slot.id}@${t}`);
      }
    }
  }
  return tasks.sort();
}

/** The tasks a reservation's parts cover, as worker@start. */
function covered(workers: readonly string[], parts: readonly number[], d: number): string[] {
  const tasks: string[] = [];
  for (let k = 0; k < parts.length; k += PART) {
    for (let r = 0; r < parts[k + 3]!; r++) {
      for (let i = 0; i < parts[k + 2]!; i++) tasks.push(`${workers[parts[k]!]!}@${parts[k + 1]! + r * d}`);
    }
  }
  return tasks.sort();
}

/** Free cpu and memory of every worker at every time in `times`. */
function profile(ctx: PassContext, times: number[]): string {
  return ctx.calendars
    .map((c) => times.map((t) => `${c.availableAt(t).cpuMillis}/${c.availableAt(t).memoryBytes}`).join(' '))
    .join('\n');
}

interface Case {
  workers: WorkerView[];
  running: RunningAllocation[];
  job: SchedulerJob;
  count: number;
}

function contexts(c: Case): [PassContext, PassContext, PassContext] {
  const make = () => new PassContext(snap([c.job], c.workers, c.running, NOW), queueOptions({ policy: 'easy' }));
  return [make(), make(), make()];
}

function check(c: Case): void {
  const [mine, rule, again] = contexts(c);
  const d = mine.duration(c.job);
  const made = reserveRest(mine, c.job, c.count);
  const want = oracle(rule, c.job, c.count);
  if (want === null) {
    expect(made).toBeNull();
    return;
  }
  expect(made).not.toBeNull();
  const tasks = covered(made!.found.workers, made!.found.parts, d);
  expect(tasks).toEqual(want);
  expect(made!.start).toBe(Math.min(...want.map((t) => Number(t.split('@')[1]))));
  // The calendars hold the same free amounts over time, and holding the parts again in a fresh
  // pass (a kept reservation) enters the same amounts too.
  const times = [
    ...new Set([
      NOW,
      ...want.flatMap((t) => [Number(t.split('@')[1]), Number(t.split('@')[1]) + d]),
      ...c.running.map((r) => r.endsAt),
    ]),
  ]
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b);
  expect(profile(mine, times)).toBe(profile(rule, times));
  const held = holdReservation(again, {
    job: c.job.name,
    start: made!.start,
    duration: d,
    count: c.count,
    req: { cpuMillis: c.job.resources.cpuMillis, memoryBytes: c.job.resources.memoryBytes, devices: 0 },
    workers: made!.found.workers,
    parts: made!.found.parts,
  });
  expect(held).not.toBeNull();
  expect(profile(again, times)).toBe(profile(rule, times));
}

const caseArb = fc
  .record({
    workers: fc.array(fc.record({ cpu: fc.integer({ min: 1, max: 8 }), mem: fc.integer({ min: 1, max: 8 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    holds: fc.array(
      fc.record({
        w: fc.nat(),
        cpu: fc.integer({ min: 1, max: 4 }),
        mem: fc.integer({ min: 0, max: 3 }),
        end: fc.integer({ min: 1, max: 300 }),
        unlimited: fc.integer({ min: 0, max: 19 }),
      }),
      { maxLength: 8 },
    ),
    cpu: fc.integer({ min: 1, max: 4 }),
    mem: fc.integer({ min: 0, max: 3 }),
    limit: fc.integer({ min: 1, max: 120 }),
    count: fc.integer({ min: 1, max: 200 }),
  })
  .map((g): Case => {
    const workers = g.workers.map((w, i) => worker(`w${i}`, { cpu: w.cpu, memGiB: w.mem }));
    const running = g.holds.map((h, i) => {
      const w = g.workers[h.w % g.workers.length]!;
      return hold(
        `/busy/task-${i}`,
        `w${h.w % g.workers.length}`,
        Math.min(h.cpu, w.cpu),
        h.unlimited === 0 ? Infinity : NOW + h.end,
        { memGiB: Math.min(h.mem, w.mem) },
      );
    });
    const job = timed('/many', g.limit, { cpu: g.cpu, memGiB: g.mem, replicas: g.count });
    return { workers, running, job, count: g.count };
  });

describe('an independent job reserved lane by lane', () => {
  it('covers the same tasks at the same starts, and holds the same free amounts, as the round-by-round rule', () => {
    fc.assert(fc.property(caseArb, check), { numRuns: 300 });
  });

  it('a 2,000-task job on a 16-core worker: the same reservation in tens of spans, not 2,000', () => {
    const running = Array.from({ length: 16 }, (_, i) => hold(`/many/task-${i}`, 'bench', 1, NOW + 100 + i * 37));
    const c: Case = {
      workers: [worker('bench', { cpu: 16, memGiB: 64 })],
      running,
      job: timed('/many', 5_000, { cpu: 1, memGiB: 0, replicas: 2_016 }),
      count: 2_000,
    };
    check(c);
    const [ctx] = contexts(c);
    const made = reserveRest(ctx, c.job, c.count)!;
    // 16 lanes (one per running task's end), each a part and a span at the tail, after the first
    // round of 16 one-task parts: 2,000 tasks = 124 rounds of 16 + 16.
    expect(made.held.length / 2).toBeLessThanOrEqual(40);
    expect(made.found.parts.length / PART).toBeLessThanOrEqual(40);
  });

  it('memory as well as cpu: lanes are the tasks that fit in both', () => {
    check({
      workers: [worker('a', { cpu: 8, memGiB: 3 }), worker('b', { cpu: 2, memGiB: 8 })],
      running: [hold('/x/task-0', 'a', 1, NOW + 10, { memGiB: 1 })],
      job: timed('/many', 50, { cpu: 1, memGiB: 1, replicas: 97 }),
      count: 97,
    });
  });
});

// Lanes through the whole scheduler, on a virtual clock: reservations with lane parts kept from
// pass to pass (kept calendars, held again when only jobs arrived) and re-planned as tasks end.
// Jobs of up to 40 tasks on a few workers, so most reservations end in lanes (the queue property
// tests use 1-3 tasks). This checks the policies' promises and that every task runs; the lane
// arithmetic itself is held to the task-by-task rule above.
const streamArb = fc.tuple(
  fc.array(fc.integer({ min: 2, max: 8 }), { minLength: 1, maxLength: 3 }),
  fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 60 }),
      cpu: fc.integer({ min: 1, max: 4 }),
      replicas: fc.integer({ min: 1, max: 40 }),
      limit: fc.integer({ min: 5, max: 100 }),
      runFraction: fc.integer({ min: 1, max: 100 }),
    }),
    { minLength: 2, maxLength: 12 },
  ),
);

function neverLater(policy: QueuePolicy, placement: PlacementProfile): void {
  fc.assert(
    fc.property(streamArb, ([cores, specs]) => {
      const workers = cores.map((c, i) => worker(`w${i}`, { cpu: c, memGiB: 1 }));
      const largest = Math.max(...cores);
      let t = 0;
      const jobs: SimJob[] = specs.map((sp, i) => {
        t += sp.gap;
        const job = timed(`/j${String(i).padStart(2, '0')}`, sp.limit, {
          cpu: Math.min(sp.cpu, largest),
          memGiB: 0,
          replicas: sp.replicas,
          rootSubmittedAt: t,
        });
        return { job, submit: t, runtime: Math.max(1, Math.round((sp.limit * sp.runFraction) / 100)) };
      });
      const out = simulate(new QueueScheduler({ policy, queueDepth: 1000 }, placement), workers, jobs);
      expect(out.pending).toEqual([]);
      for (const [name, reserved] of out.firstReservation) {
        const next = Math.min(...out.reservedTasks.get(name)!.map((task) => out.taskStarts.get(task)!));
        expect(next, `${name} reserved at ${reserved}`).toBeLessThanOrEqual(reserved);
      }
    }),
    { numRuns: 100 },
  );
}

describe.each(PLACEMENTS)('many-task jobs on a virtual clock (%s placement)', (_label, placement) => {
  it('easy: every task runs, and the head job never starts later than its first reservation', () =>
    neverLater('easy', placement));
  it('conservative: no job starts later than its first reservation', () => neverLater('conservative', placement));
});
