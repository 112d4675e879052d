import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUEUE_POLICIES, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/options.js';
import { QueueScheduler, QueueSet } from '../../../../src/cluster/scheduler/queue/index.js';
import type { SchedulerJob, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { parseConstraint } from '../../../../src/model/constraints.js';
import { FIRST_FIT_PLACEMENT } from '../../../../src/cluster/scheduler/placement/registry.js';
import { PLACEMENTS, simulate, snap, timed, worker, type SimJob } from './helpers.js';

// Random small clusters and job streams (as properties.test.ts).
const clusterArb = fc.array(fc.integer({ min: 2, max: 8 }), { minLength: 1, maxLength: 4 });
const jobArb = fc.record({
  gap: fc.integer({ min: 0, max: 40 }),
  cpu: fc.integer({ min: 1, max: 8 }),
  replicas: fc.integer({ min: 1, max: 3 }),
  gang: fc.integer({ min: 0, max: 9 }).map((n) => n < 3),
  limit: fc.integer({ min: 5, max: 200 }),
  runFraction: fc.integer({ min: 1, max: 100 }),
});
type Spec = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function build(cores: number[], specs: Spec[], queue?: string) {
  const workers: WorkerView[] = cores.map((c, i) => worker(`w${i}`, { cpu: c, memGiB: 1, attributes: { rack: 'a' } }));
  const largest = Math.max(...cores);
  let t = 0;
  const jobs: SimJob[] = specs.map((s, i) => {
    t += s.gap;
    const cpu = Math.min(s.cpu, largest);
    const replicas = s.gang ? Math.min(s.replicas, cores.filter((c) => c >= cpu).length) : s.replicas;
    const job: SchedulerJob = {
      ...timed(`/j${String(i).padStart(3, '0')}`, s.limit, {
        cpu,
        memGiB: 0,
        replicas,
        coschedule: s.gang ? 'rack' : null,
        rootSubmittedAt: t,
      }),
      ...(queue ? { queue } : {}),
    };
    return { job, submit: t, runtime: Math.max(1, Math.round((s.limit * s.runFraction) / 100)) };
  });
  return { workers, jobs };
}

describe('QueueSet', () => {
  it('one named queue schedules exactly as the single queue: block (every policy)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...QUEUE_POLICIES),
        fc.constantFrom(...PLACEMENTS),
        clusterArb,
        fc.array(jobArb, { minLength: 3, maxLength: 20 }),
        (policy: QueuePolicy, [, placement], cores, specs) => {
          const options = { policy, queueDepth: 8, reservationDepth: 2 };
          const single = build(cores, specs);
          const named = build(cores, specs, 'main');
          const a = simulate(new QueueScheduler(options, placement), single.workers, single.jobs);
          const set = new QueueSet({}, placement, {
            queues: [{ name: 'main', options, workers: [] }],
            defaultQueue: 'main',
          });
          const b = simulate(set, named.workers, named.jobs);
          expect(b.started).toEqual(a.started);
          expect(b.passes.map((p) => p.plan.placements)).toEqual(a.passes.map((p) => p.plan.placements));
          expect(b.passes.map((p) => p.plan.reservations)).toEqual(a.passes.map((p) => p.plan.reservations));
          expect(b.passes.map((p) => p.plan.reasons)).toEqual(a.passes.map((p) => p.plan.reasons));
        },
      ),
      { numRuns: 60 },
    );
  });

  const two = (a: QueuePolicy, b: QueuePolicy, bWorkers = 'pool=shared') =>
    new QueueSet({}, FIRST_FIT_PLACEMENT, {
      queues: [
        { name: 'big', options: { policy: a }, workers: [] },
        { name: 'small', options: { policy: b }, workers: [parseConstraint(bWorkers)] },
      ],
      defaultQueue: 'big',
    });

  it("a reservation one queue holds on a shared worker is respected by the other queue's backfill", () => {
    // w0 (shared, 4 cores) runs a 4-core task until 100. Queue big (easy) reserves w0 at 100 for
    // a 4-core job; queue small (first-fit) may use w0 only, and its job (limit 500) would overlap.
    const workers = [worker('w0', { cpu: 4, memGiB: 1, attributes: { pool: 'shared' } })];
    const running = [
      { task: '/r/task-0', job: '/r', workerId: 'w0', cpuMillis: 3000, memoryBytes: 0, devices: 0, endsAt: 100 },
    ];
    const blocked = { ...timed('/a', 50, { cpu: 4, memGiB: 0, rootSubmittedAt: 1 }), queue: 'big' };
    const long = { ...timed('/b', 500, { cpu: 1, memGiB: 0, rootSubmittedAt: 2 }), queue: 'small' };
    const short = { ...timed('/c', 50, { cpu: 1, memGiB: 0, rootSubmittedAt: 3 }), queue: 'small' };
    const set = two('easy', 'first-fit');
    const plan = set.pass(snap([blocked, long, short], workers, running, 10));
    expect(plan.reservations!.get('/a')).toBe(100);
    // /b would run past 100 on w0 and delay /a: it waits; /c ends by 60 and backfills.
    expect(plan.placements.map((p) => p.job)).toEqual(['/c']);
    expect(plan.reasons.get('/b')).toMatch(/^queue small: /);
    // Without queues, first-fit ignores reservations it does not hold: both would start.
    const alone = new QueueScheduler({ policy: 'first-fit' }, FIRST_FIT_PLACEMENT);
    const free = alone.pass(
      snap(
        [long, short].map(({ queue: _, ...j }) => j),
        workers,
        running,
        10,
      ),
    );
    expect(free.placements.map((p) => p.job)).toEqual(['/b']);
  });

  it("a queue's jobs run only on its workers", () => {
    const workers = [
      worker('w0', { cpu: 4, memGiB: 1, attributes: { pool: 'big' } }),
      worker('w1', { cpu: 4, memGiB: 1, attributes: { pool: 'shared' } }),
    ];
    const set = two('fcfs', 'fcfs');
    const jobs = [1, 2, 3].map((i) => ({
      ...timed(`/s${i}`, 50, { cpu: 4, memGiB: 0, rootSubmittedAt: i }),
      queue: 'small',
    }));
    const plan = set.pass(snap(jobs, workers, [], 10));
    expect(plan.placements.map((p) => `${p.job}@${p.workerId}`)).toEqual(['/s1@w1']);
  });
});
