/**
 * The simulator's preemption (src/sim/preemption.ts, engine.ts): the scheduler's preemptions carried
 * out with the live rules on the virtual clock — a victim stopped, holding its capacity for the
 * grace, requeued and run again from zero; the preemptor's claim keeping a backfill out of the freed
 * capacity; the exempt time; the report's counts and CPU-seconds lost.
 */
import { describe, expect, it } from 'vitest';
import { simulate, type SimResult } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

function run(
  jobs: unknown[],
  preemption: { grace: number; exempt: number } | null,
  workers: unknown[] = [{ name: 'w', cpu: 4, memory: '8GiB' }],
): SimResult & { by: Record<string, SimResult['jobs'][number]> } {
  const workload = parseWorkload({ workers, jobs }, 'inline.yaml');
  const result = simulate(workload, {
    scheduler: createScheduler({
      policy: 'easy',
      ...(preemption ? { preemption: { exempt: preemption.exempt } } : {}),
    }),
    ...(preemption ? { preemption } : {}),
  });
  return { ...result, by: Object.fromEntries(result.jobs.map((j) => [j.name, j])) };
}

describe('iris simulate with preemption', () => {
  const jobs = [
    { name: 'sweep', submit: 0, run: 1000, cpu: 4, priority: 'batch' },
    { name: 'eval', submit: 100, run: 50, cpu: 4, priority: 'interactive' },
  ];

  it('without preemption the interactive job waits for the batch job', () => {
    const r = run(jobs, null);
    expect(r.by['/eval']).toMatchObject({ start: 1000, wait: 900 });
    expect(r.by['/sweep']).toMatchObject({ start: 0, end: 1000 });
    expect(r.by['/sweep']!.preemptions).toBeUndefined();
    expect(r.summary.preemption).toBeUndefined();
  });

  it('a victim holds its capacity for the grace, is requeued and runs its whole run again', () => {
    const r = run(jobs, { grace: 30, exempt: 0 });
    // Preempted at 100, stopped at 130 (the grace), when eval starts on what it freed.
    expect(r.by['/eval']).toMatchObject({ start: 130, wait: 30, end: 180 });
    // The sweep starts again when eval ends, from zero: 1000 s more.
    expect(r.by['/sweep']).toMatchObject({ start: 0, end: 1180, preemptions: 1, lostCpuSeconds: 4 * 130 });
    expect(r.summary.preemption).toEqual({ tasks: 1, lostCpuSeconds: 520 });
    const bands = Object.fromEntries(r.summary.bands!.map((b) => [b.band, b]));
    expect(bands.interactive).toMatchObject({ jobs: 1, waitMean: 30, waitMedian: 30, waitP95: 30 });
    expect(bands.batch).toMatchObject({ jobs: 1, preemptions: 1, lostCpuSeconds: 520 });
    // Busy time counts the lost run: (130 + 50 + 1000) s of 4 CPUs over the 1180 s makespan.
    expect(r.summary.utilization).toBeCloseTo(1, 5);
  });

  it('with no grace the victim stops and the preemptor starts at the same instant', () => {
    const r = run(jobs, { grace: 0, exempt: 0 });
    expect(r.by['/eval']).toMatchObject({ start: 100, wait: 0, end: 150 });
    expect(r.by['/sweep']).toMatchObject({ end: 1150, preemptions: 1, lostCpuSeconds: 400 });
  });

  it("the claim keeps a backfill out of the victim's freed capacity", () => {
    // A small batch job submitted during the grace would fit in what the sweep frees at 130 and end
    // before eval could be planned otherwise; the claim holds the capacity for eval.
    const r = run([...jobs, { name: 'filler', submit: 110, run: 10, cpu: 4, priority: 'batch' }], {
      grace: 30,
      exempt: 0,
    });
    expect(r.by['/eval']).toMatchObject({ start: 130, end: 180 });
    expect(r.by['/filler']!.start).toBeGreaterThanOrEqual(180);
  });

  it('a task within its exempt time is not preempted', () => {
    const exempt = run(jobs, { grace: 30, exempt: 200 });
    // The sweep started at 0: exempt until 200, when eval (still pending) preempts it.
    expect(exempt.by['/eval']).toMatchObject({ start: 230, wait: 130 });
    expect(exempt.by['/sweep']).toMatchObject({ preemptions: 1, lostCpuSeconds: 4 * 230 });
    const longer = run(jobs, { grace: 30, exempt: 2000 });
    expect(longer.by['/eval']).toMatchObject({ start: 1000 });
    expect(longer.summary.preemption).toEqual({ tasks: 0, lostCpuSeconds: 0 });
  });

  it('the same band never preempts, nor does batch', () => {
    const same = run(
      [
        { name: 'a', submit: 0, run: 1000, cpu: 4, priority: 'interactive' },
        { name: 'b', submit: 100, run: 50, cpu: 4, priority: 'interactive' },
      ],
      { grace: 30, exempt: 0 },
    );
    expect(same.by['/b']!.start).toBe(1000);
    const batch = run(
      [
        { name: 'a', submit: 0, run: 1000, cpu: 4, priority: 'batch' },
        { name: 'b', submit: 100, run: 50, cpu: 4, priority: 'batch' },
      ],
      { grace: 30, exempt: 0 },
    );
    expect(batch.by['/b']!.start).toBe(1000);
    expect(batch.summary.preemption!.tasks).toBe(0);
  });

  it('a gang victim stops whole and starts again whole', () => {
    const r = run(
      [
        { name: 'gang', submit: 0, run: 1000, cpu: 4, replicas: 2, coschedule: 'pool', priority: 'batch' },
        { name: 'eval', submit: 100, run: 50, cpu: 4 },
      ],
      { grace: 10, exempt: 0 },
      [{ name: 'w', count: 2, cpu: 4, memory: '8GiB', attributes: { pool: 'p' } }],
    );
    expect(r.by['/eval']).toMatchObject({ start: 110, end: 160 });
    // Both members stopped at 110 (all or nothing), back together when eval's worker is free.
    expect(r.by['/gang']).toMatchObject({ end: 1160, preemptions: 2, lostCpuSeconds: 2 * 4 * 110 });
  });

  it('a job preempted again and again counts every stop and still finishes', () => {
    const r = run(
      [
        { name: 'sweep', submit: 0, run: 1000, cpu: 4, priority: 'batch' },
        { name: 'eval', submit: 100, run: 50, cpu: 4, repeat: { count: 3, every: 200 } },
      ],
      { grace: 0, exempt: 0 },
    );
    expect(r.by['/sweep']).toMatchObject({ preemptions: 3, lostCpuSeconds: 4 * (100 + 150 + 150) });
    expect(r.summary.unfinished).toBe(0);
  });
});
