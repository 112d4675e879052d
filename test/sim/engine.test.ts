import { describe, expect, it } from 'vitest';
import { schedule } from '../../src/cluster/scheduler/queue/first-fit.js';
import { simulate, type PassScheduler, type SimResult } from '../../src/sim/engine.js';
import { swfWorkload } from '../../src/sim/load.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseSwf } from '../../src/sim/swf.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

/** SWF line: id submit wait run alloc cpu mem reqProcs reqTime ... (18 fields). */
function swf(
  rows: Array<[id: number, submit: number, run: number, procs: number, requested?: number]>,
  procs = 4,
): string {
  const lines = rows.map(([id, submit, run, p, req]) =>
    [id, submit, -1, run, p, -1, -1, p, req ?? run, -1, 1, 1, 1, 1, 1, -1, -1, -1].join(' '),
  );
  return [`; MaxProcs: ${procs}`, ...lines].join('\n') + '\n';
}

/** The five-job workload of docs/simulate.md's worked example, on 4 processors. */
const FIVE = swf([
  [1, 0, 10, 2],
  [2, 1, 10, 3],
  [3, 2, 10, 4],
  [4, 3, 20, 1],
  [5, 4, 5, 2],
]);

const firstFit: PassScheduler = { pass: (snapshot) => schedule(snapshot) };

function run(text: string, scheduler: PassScheduler, order?: 'fcfs' | 'sjf' | 'f1'): SimResult {
  return simulate(swfWorkload(parseSwf(text, 'test.swf'), 'test.swf'), { scheduler, order });
}

function starts(result: SimResult): Record<string, number> {
  return Object.fromEntries(result.jobs.map((j) => [j.name, j.start]));
}

describe('simulate on hand-computed workloads', () => {
  it('first-fit skips blocked jobs (no reservations)', () => {
    const result = run(FIVE, firstFit);
    expect(starts(result)).toEqual({ '/job-1': 0, '/job-2': 10, '/job-3': 25, '/job-4': 3, '/job-5': 20 });
    expect(result.summary.avgWait).toBeCloseTo(48 / 5, 10);
    expect(result.summary.avgBoundedSlowdown).toBeCloseTo(9.3 / 5, 10);
    expect(result.summary.makespan).toBe(35);
    expect(result.summary.utilization).toBeCloseTo(120 / (4 * 35), 10);
    expect(result.summary.jobs).toBe(5);
  });

  const cases = [
    // Strict order: nothing passes the blocked head.
    { policy: 'fcfs', starts: [0, 10, 20, 30, 30], wait: 80 / 5, bsld: 11.15 / 5, makespan: 50 },
    // Job 4 backfills on the extra processor at job 2's shadow time; job 5 never fits early.
    { policy: 'easy', starts: [0, 10, 23, 3, 33], wait: 59 / 5, bsld: 10.4 / 5, makespan: 38 },
    // Every blocked job is reserved: job 4 would delay job 3, job 5 fits before job 2's slot.
    { policy: 'conservative', starts: [0, 10, 20, 30, 4], wait: 54 / 5, bsld: 9.05 / 5, makespan: 50 },
  ] as const;
  for (const c of cases) {
    it(`${c.policy}: starts, waits, bounded slowdown, utilization`, () => {
      const result = run(FIVE, createScheduler({ policy: c.policy }));
      expect(starts(result)).toEqual(Object.fromEntries(c.starts.map((s, i) => [`/job-${i + 1}`, s])));
      expect(result.summary.avgWait).toBeCloseTo(c.wait, 10);
      expect(result.summary.avgBoundedSlowdown).toBeCloseTo(c.bsld, 10);
      expect(result.summary.makespan).toBe(c.makespan);
      expect(result.summary.utilization).toBeCloseTo(120 / (4 * c.makespan), 10);
    });
  }

  it('hybrid with reservation depth 1 behaves like easy here', () => {
    const result = run(FIVE, createScheduler({ policy: 'hybrid', reservationDepth: 1 }));
    expect(starts(result)).toEqual({ '/job-1': 0, '/job-2': 10, '/job-3': 23, '/job-4': 3, '/job-5': 33 });
  });

  it('per-job results and bounded slowdown with the 10 s threshold', () => {
    const result = run(
      swf([
        [1, 0, 4, 4],
        [2, 0, 30, 4],
      ]),
      createScheduler({ policy: 'fcfs' }),
    );
    const [a, b] = result.jobs;
    expect(a).toMatchObject({
      name: '/job-1',
      submit: 0,
      start: 0,
      end: 4,
      wait: 0,
      run: 4,
      procs: 4,
      boundedSlowdown: 1,
    });
    // (wait 4 + run 30) / max(30, 10)
    expect(b).toMatchObject({ name: '/job-2', start: 4, end: 34, wait: 4, boundedSlowdown: 34 / 30 });
    expect(result.summary.utilization).toBeCloseTo((4 * 4 + 4 * 30) / (4 * 34), 10);
  });

  it('--order sjf runs the shortest requested time first among queued jobs', () => {
    const text = swf([
      [1, 0, 10, 4],
      [2, 1, 50, 4],
      [3, 2, 5, 4],
      [4, 3, 20, 4],
    ]);
    expect(starts(run(text, createScheduler({ policy: 'fcfs' })))).toEqual({
      '/job-1': 0,
      '/job-2': 10,
      '/job-3': 60,
      '/job-4': 65,
    });
    expect(starts(run(text, createScheduler({ policy: 'fcfs' }), 'sjf'))).toEqual({
      '/job-1': 0,
      '/job-3': 10,
      '/job-4': 15,
      '/job-2': 35,
    });
  });

  it('a job longer than its time limit is stopped at the limit', () => {
    const result = run(
      swf([
        [1, 0, 100, 2, 30],
        [2, 0, 10, 4],
      ]),
      createScheduler({ policy: 'fcfs' }),
    );
    expect(starts(result)).toEqual({ '/job-1': 0, '/job-2': 30 });
    expect(result.jobs[0]).toMatchObject({ end: 30, run: 30, timeLimited: true });
    expect(result.summary.timeLimited).toBe(1);
  });

  it('samples queue length and utilization at every event batch', () => {
    const result = run(FIVE, createScheduler({ policy: 'fcfs' }));
    const at = (t: number) => result.samples.find((s) => s.time === t)!;
    expect(at(0)).toMatchObject({ queued: 0, runningTasks: 1, utilization: 0.5 });
    expect(at(4)).toMatchObject({ queued: 4, utilization: 0.5 });
    expect(at(10)).toMatchObject({ queued: 3, utilization: 0.75 });
    expect(at(30)).toMatchObject({ queued: 0, runningTasks: 2, utilization: 0.75 });
    expect(result.samples.at(-1)).toMatchObject({ time: 50, queued: 0, utilization: 0 });
  });

  it('reports progress every N batches', () => {
    const seen: number[] = [];
    simulate(swfWorkload(parseSwf(FIVE, 't'), 't'), {
      scheduler: firstFit,
      progressEvery: 2,
      onProgress: (p) => seen.push(p.events),
    });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((n) => n % 2 === 0)).toBe(true);
  });
});

describe('iris workloads: gangs, trees, devices', () => {
  const workload = parseWorkload(
    {
      workers: [{ name: 'cpu', count: 2, cpu: 4, memory: '8GiB' }],
      slices: [{ name: 'slice-a', tpu: 'v5litepod-16' }],
      jobs: [
        {
          name: 'train',
          submit: 0,
          run: '100s',
          tpu: 'v5litepod-16',
          children: [{ name: 'eval', after: 10, run: 20, cpu: 4 }],
        },
        { name: 'other', submit: 5, run: 100, tpu: 'v5litepod-16' },
        { name: 'small', submit: 12, run: 10, cpu: 4, repeat: { count: 3, every: 1 } },
      ],
    },
    'inline.yaml',
  );

  it('places the 4-host gang at once, submits the child at parent start + after, queues the second gang', () => {
    const result = simulate(workload, { scheduler: createScheduler({ policy: 'easy' }) });
    const by = Object.fromEntries(result.jobs.map((j) => [j.name, j]));
    expect(by['/train']).toMatchObject({
      start: 0,
      end: 100,
      tasks: 4,
      workers: ['slice-a-0', 'slice-a-1', 'slice-a-2', 'slice-a-3'],
    });
    expect(by['/train/eval']).toMatchObject({ submit: 10, start: 10, end: 30, tasks: 1 });
    expect(by['/other']).toMatchObject({ submit: 5, start: 100, wait: 95, end: 200 });
    // Two cpu workers of 4 cores: eval holds one until 30; small-0 takes the other at 12.
    expect(by['/small-0']).toMatchObject({ start: 12 });
    expect(by['/small-1']).toMatchObject({ start: 22 });
    expect(by['/small-2']).toMatchObject({ start: 30 });
    expect(result.summary).toMatchObject({ jobs: 6, skipped: 0, unfinished: 0, makespan: 200 });
  });

  it('skips a job no worker could ever run, and its children', () => {
    const bad = parseWorkload(
      {
        workers: [{ name: 'w', cpu: 2 }],
        jobs: [
          { name: 'huge', run: 10, cpu: 8, children: [{ name: 'kid', after: 1, run: 1 }] },
          { name: 'ok', run: 10, cpu: 1 },
        ],
      },
      'w.yaml',
    );
    const result = simulate(bad, { scheduler: createScheduler({ policy: 'easy' }) });
    expect(result.jobs.map((j) => j.name)).toEqual(['/ok']);
    expect(result.skipped.map((s) => s.name)).toEqual(['/huge', '/huge/kid']);
    expect(result.skipped[0]!.reason).toMatch(/cpu|core/i);
  });

  it('children inherit the root submit time and go first (deeper jobs first)', () => {
    const tree = parseWorkload(
      {
        workers: [{ name: 'w', cpu: 1 }],
        jobs: [
          { name: 'root', submit: 0, run: 50, children: [{ name: 'child', after: 5, run: 10 }] },
          { name: 'later', submit: 1, run: 10 },
        ],
      },
      'tree.yaml',
    );
    // One core: root runs 0-50; child (submitted 5) and later (submitted 1) both wait; child is deeper.
    const result = simulate(tree, { scheduler: createScheduler({ policy: 'fcfs' }) });
    expect(starts(result)).toEqual({ '/root': 0, '/root/child': 50, '/later': 60 });
  });
});
