import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import { QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import type { SchedulerJob, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { PLACEMENTS, simulate, snap, timed, worker, type SimJob } from './helpers.js';

// Random small clusters (1-4 workers in one `rack` group, 2-8 cores) and random job streams.
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

function build(cores: number[], specs: Spec[]) {
  const workers: WorkerView[] = cores.map((c, i) => worker(`w${i}`, { cpu: c, memGiB: 1, attributes: { rack: 'a' } }));
  const largest = Math.max(...cores);
  let t = 0;
  const jobs: SimJob[] = specs.map((s, i) => {
    t += s.gap;
    const cpu = Math.min(s.cpu, largest); // every job can run on this cluster
    const replicas = s.gang ? Math.min(s.replicas, cores.filter((c) => c >= cpu).length) : s.replicas;
    const job = timed(`/j${String(i).padStart(3, '0')}`, s.limit, {
      cpu,
      memGiB: 0,
      replicas,
      coschedule: s.gang ? 'rack' : null,
      rootSubmittedAt: t,
    });
    return { job, submit: t, runtime: Math.max(1, Math.round((s.limit * s.runFraction) / 100)) };
  });
  return { workers, jobs };
}

const streams = fc.tuple(clusterArb, fc.array(jobArb, { minLength: 5, maxLength: 30 }));

function checkNeverLater(policy: QueuePolicy, placement: PlacementProfile) {
  fc.assert(
    fc.property(streams, ([cores, specs]) => {
      const { workers, jobs } = build(cores, specs);
      const out = simulate(new QueueScheduler({ policy, queueDepth: 1000 }, placement), workers, jobs);
      expect(out.pending).toEqual([]);
      for (const [name, reserved] of out.firstReservation) {
        // The job's next task started no later than the first start it was promised.
        const next = Math.min(...out.reservedTasks.get(name)!.map((task) => out.taskStarts.get(task)!));
        expect(next, `${name} reserved at ${reserved}`).toBeLessThanOrEqual(reserved);
      }
      // Gangs are all-or-nothing in every pass.
      for (const { plan, snapshot } of out.passes) {
        const counts = new Map<string, number>();
        for (const p of plan.placements) counts.set(p.job, (counts.get(p.job) ?? 0) + 1);
        for (const [name, n] of counts) {
          const job = snapshot.jobs.get(name)!;
          if (job.coschedule !== null) expect(n).toBe(snapshot.pending.filter((t) => t.job === name).length);
        }
      }
    }),
    { numRuns: 150 },
  );
}

describe.each(PLACEMENTS)('reservation guarantees on a virtual clock (%s placement)', (_label, placement) => {
  it('easy: the head job never starts later than its first reservation', () => checkNeverLater('easy', placement));
  it('conservative: no job starts later than its first reservation', () => checkNeverLater('conservative', placement));
  it('hybrid: no reserved job starts later than its first reservation', () => checkNeverLater('hybrid', placement));

  it('fcfs starts jobs in queue order (never one behind a waiting job)', () => {
    fc.assert(
      fc.property(streams, ([cores, specs]) => {
        const { workers, jobs } = build(cores, specs);
        const out = simulate(new QueueScheduler({ policy: 'fcfs', queueDepth: 1000 }, placement), workers, jobs);
        const order = jobs.map((j) => j.job.name);
        const starts = order.map((n) => out.started.get(n)!);
        for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1]!);
      }),
      { numRuns: 100 },
    );
  });
});

describe('a 4-host gang behind a steady stream of 1-host jobs', () => {
  const hosts = [0, 1, 2, 3].map((k) => worker(`h${k}`, { cpu: 4, memGiB: 1, attributes: { rack: 'a' } }));
  const stream: SimJob[] = [];
  for (let i = 0; i < 400; i++) {
    const runtime = 60 + ((i * 37) % 41); // 60..100, limit 100
    stream.push({
      job: timed(`/s${String(i).padStart(3, '0')}`, 100, { cpu: 4, memGiB: 0, rootSubmittedAt: i * 25 }),
      submit: i * 25,
      runtime,
    });
  }
  const gang: SchedulerJob = timed('/gang', 100, {
    cpu: 4,
    memGiB: 0,
    replicas: 4,
    coschedule: 'rack',
    rootSubmittedAt: 60,
  });
  const jobs = [...stream, { job: gang, submit: 60, runtime: 100 }];

  it('starts within one time limit under the default policy (easy)', () => {
    const out = simulate(new QueueScheduler(), hosts, jobs, 10_000);
    // Every host is free again by the latest planned end of what runs at submit time (<= 160).
    expect(out.started.get('/gang')).toBeLessThanOrEqual(60 + 100);
    expect(out.firstReservation.get('/gang')).toBeLessThanOrEqual(160);
  });

  it('starves under first-fit', () => {
    const out = simulate(new QueueScheduler({ policy: 'first-fit' }), hosts, jobs, 10_000);
    expect(out.started.has('/gang')).toBe(false);
    expect(out.started.size).toBeGreaterThan(300);
  });
});

describe('estimate', () => {
  it('matches what the next pass does', () => {
    fc.assert(
      fc.property(
        streams,
        fc.integer({ min: 0, max: 40 }),
        jobArb,
        fc.constantFrom<QueuePolicy>('easy', 'conservative', 'hybrid', 'fcfs'),
        ([cores, specs], stop, extra, policy) => {
          const { workers, jobs } = build(cores, specs);
          const scheduler = new QueueScheduler({ policy, queueDepth: 1000 });
          const horizon = Math.min(stop * 5, jobs.at(-1)!.submit);
          const out = simulate(scheduler, workers, jobs, horizon);
          const last = out.passes.at(-1);
          if (!last) return;
          // The state after the last pass, as the next snapshot would show it.
          const now = last.now;
          const placed = new Set(last.plan.placements.map((p) => p.task));
          const pending = last.snapshot.pending.filter((t) => !placed.has(t.id));
          const running = [...last.snapshot.running!];
          for (const p of last.plan.placements) {
            const j = last.snapshot.jobs.get(p.job)!;
            running.push({
              task: p.task,
              job: p.job,
              workerId: p.workerId,
              cpuMillis: j.resources.cpuMillis,
              memoryBytes: j.resources.memoryBytes,
              devices: 0,
              endsAt: now + j.timeLimitMs!,
            });
          }
          const {
            jobs: [probe],
          } = build(cores, [extra]);
          const candidate = { ...probe!.job, name: '/probe', rootSubmittedAt: now };
          const jobsNow = new Map([...pending.map((t) => [t.job, last.snapshot.jobs.get(t.job)!] as const)]);
          const base = snap([], workers, running, now);
          const before = { ...base, jobs: jobsNow, pending };
          const estimate = scheduler.estimate(before, candidate);
          const after = scheduler.pass(
            {
              ...base,
              jobs: new Map(jobsNow).set('/probe', candidate),
              pending: [
                ...pending,
                ...Array.from({ length: candidate.replicas }, (_, index) => ({
                  id: `/probe/task-${index}`,
                  job: '/probe',
                  index,
                  submittedAt: now,
                  seq: 1e9 + index,
                })),
              ],
            },
            false,
          );
          const started = after.placements.filter((p) => p.job === '/probe').length === candidate.replicas;
          if (estimate.start === now) expect(started, estimate.reason).toBe(true);
          if (started) expect(estimate.start).toBe(now);
          const reserved = after.reservations?.get('/probe');
          if (reserved !== undefined) expect(estimate.start).toBe(reserved);
          if (estimate.start !== null) expect(estimate.start).toBeGreaterThanOrEqual(now);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('says never for a job no worker can run, and start now on an idle cluster', () => {
    const scheduler = new QueueScheduler();
    const idle = snap([], [worker('w', { cpu: 4 })], []);
    expect(scheduler.estimate(idle, timed('/huge', 10, { cpu: 64 }))).toEqual({
      start: null,
      reason: 'need 64 CPU, largest worker has 4',
    });
    expect(scheduler.estimate(idle, timed('/ok', 10, { cpu: 1, memGiB: 0 }))).toEqual({
      start: 1000,
      reason: 'would start now',
    });
    expect(() => scheduler.estimate(snap([timed('/ok', 10)], [worker('w')], []), timed('/ok', 10))).toThrow(
      /already queued/,
    );
  });
});
