import { describe, expect, it } from 'vitest';
import { simulate, type PassScheduler, type SimResult } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseWorkload } from '../../src/sim/workload-file.js';
import type { Snapshot } from '../../src/cluster/scheduler/types.js';

/** The live scheduler, recording every snapshot it is given (the engine's job map is live: copied here). */
function recording(): PassScheduler & { snapshots: Snapshot[] } {
  const inner = createScheduler({ policy: 'fcfs' });
  const snapshots: Snapshot[] = [];
  return {
    snapshots,
    pass: (snapshot, changed) => (
      snapshots.push({ ...snapshot, jobs: new Map(snapshot.jobs) }), inner.pass(snapshot, changed)
    ),
  };
}

function run(
  raw: unknown,
  cacheTtl?: number,
  scheduler: PassScheduler = createScheduler({ policy: 'fcfs' }),
): SimResult {
  return simulate(parseWorkload(raw, 'w.yaml'), { scheduler, cacheTtl });
}

const spans = (r: SimResult) => Object.fromEntries(r.jobs.map((j) => [j.name, [j.start, j.end, j.workers.join(',')]]));

/** One GPU worker at 6/h; jobs use model m (load 100 s). */
const ONE_WORKER = {
  workers: [{ name: 'g', gpu: { variant: 'L4', count: 1, memory: '24GiB' }, 'cost-per-hour': 6 }],
  models: { m: { load: 100 }, n: { load: 40 } },
};

describe('context reuse in the simulator', () => {
  it('a task on a cold worker takes run + load; the next one there within the TTL takes run', () => {
    const r = run({
      ...ONE_WORKER,
      jobs: [
        { name: 'a', submit: 0, run: 50, gpu: 1, uses: 'm' },
        { name: 'b', submit: 0, run: 50, gpu: 1, uses: ['m'] },
      ],
    });
    expect(spans(r)).toEqual({ '/a': [0, 150, 'g'], '/b': [150, 200, 'g'] });
    expect(r.summary).toMatchObject({ reuseStarts: 2, reuseHits: 1, reuseHitRate: 0.5, makespan: 200 });
    // 200 s of runs at 6 per hour.
    expect(r.summary.totalCost).toBeCloseTo((200 * 6) / 3600, 12);
  });

  it('after the TTL the worker is cold again and the load is paid again', () => {
    const jobs = [
      { name: 'a', submit: 0, run: 50, gpu: 1, uses: 'm' },
      { name: 'b', submit: 400, run: 50, gpu: 1, uses: 'm' },
    ];
    // a ends at 150: with a TTL of 300 s the hint lasts until 450, with 200 s until 350.
    expect(spans(run({ ...ONE_WORKER, jobs }, 300))['/b']).toEqual([400, 450, 'g']);
    const late = run({ ...ONE_WORKER, jobs }, 200);
    expect(spans(late)['/b']).toEqual([400, 550, 'g']);
    expect(late.summary.reuseHitRate).toBe(0);
  });

  it('the default TTL is one hour', () => {
    const jobs = (gap: number) => [
      { name: 'a', submit: 0, run: 50, gpu: 1, uses: 'm' },
      { name: 'b', submit: 150 + gap, run: 50, gpu: 1, uses: 'm' },
    ];
    expect(run({ ...ONE_WORKER, jobs: jobs(3599) }).summary.reuseHits).toBe(1);
    expect(run({ ...ONE_WORKER, jobs: jobs(3600) }).summary.reuseHits).toBe(0);
  });

  it('only the keys a worker lacks are loaded; a worker running a task using the key is warm', () => {
    const r = run({
      workers: [{ name: 'c', cpu: 2 }],
      models: ONE_WORKER.models,
      jobs: [
        { name: 'a', submit: 0, run: 300, uses: 'm' },
        // While a runs, m is loading/loaded on c: b pays only n.
        { name: 'b', submit: 10, run: 50, uses: ['m', 'n'] },
      ],
    });
    expect(spans(r)).toEqual({ '/a': [0, 400, 'c'], '/b': [10, 100, 'c'] });
  });

  it('without a time limit a job may take its run plus its loads; a given limit still stops it', () => {
    const limited = run({ ...ONE_WORKER, jobs: [{ name: 'a', run: 50, gpu: 1, uses: 'm', 'time-limit': 120 }] });
    expect(spans(limited)['/a']).toEqual([0, 120, 'g']);
    expect(limited.summary.timeLimited).toBe(1);
  });

  it('snapshots carry cache hints, job category and uses, worker cost and last dispatch', () => {
    const scheduler = recording();
    run(
      {
        ...ONE_WORKER,
        jobs: [
          { name: 'a', submit: 0, run: 50, gpu: 1, uses: 'm', category: 'inference' },
          { name: 'b', submit: 10, run: 50, gpu: 1, uses: 'm' },
        ],
      },
      undefined,
      scheduler,
    );
    // The pass at 10 sees a running on g: g is loading m.
    const at10 = scheduler.snapshots.find((s) => s.now === 10)!;
    expect(at10.cacheHints?.get('g')?.get('m')).toEqual({ key: 'm', expiresAt: 10 + 3600, loading: true });
    expect(at10.workers[0]).toMatchObject({ costPerHour: 6, lastDispatchAt: 0 });
    expect(at10.jobs.get('/a')).toMatchObject({ category: 'inference', uses: ['m'] });
    // At 150 a has ended: a stored hint until 150 + 3600.
    const at150 = scheduler.snapshots.find((s) => s.now === 150)!;
    expect(at150.cacheHints?.get('g')?.get('m')).toEqual({ key: 'm', expiresAt: 3750, loading: false });
  });

  it('a workload without uses has no hints in its snapshots and no reuse rate', () => {
    const scheduler = recording();
    const r = run({ workers: [{ name: 'c' }], jobs: [{ name: 'a', run: 5 }] }, undefined, scheduler);
    expect(scheduler.snapshots.every((s) => s.cacheHints === undefined)).toBe(true);
    expect(r.summary.reuseHitRate).toBeNull();
    // A worker without cost-per-hour costs 1 per hour.
    expect(r.summary.totalCost).toBeCloseTo(5 / 3600, 12);
  });
});

describe('the live placement modes see the hints', () => {
  // z and a start together on the two workers, so a leaves a hint for m on one; b comes later, when both are free.
  const workload = {
    workers: [{ name: 'g', count: 2, gpu: { variant: 'L4', count: 1, memory: '24GiB' } }],
    models: { m: { load: 100 } },
    jobs: [
      { name: 'z', submit: 0, run: 100, gpu: 1 },
      { name: 'a', submit: 0, run: 50, gpu: 1, uses: 'm' },
      { name: 'b', submit: 300, run: 50, gpu: 1, uses: 'm', repeat: { count: 5, every: 200 } },
    ],
  };
  const runWith = (mode: 'adaptive' | 'first-fit', cacheTtl?: number) =>
    simulate(parseWorkload(workload, 'w.yaml'), {
      scheduler: createScheduler({ policy: 'fcfs', placement: { mode, selection: 'first-fit' } }),
      cacheTtl,
    });

  it('adaptive places every later task of the model on the warm worker: no load, reuse hits', () => {
    const r = runWith('adaptive');
    const at = spans(r);
    // Which of the two identical workers z and a get is the jitter's; the b-i follow a's model.
    expect(at['/a']!.slice(0, 2)).toEqual([0, 150]);
    for (let i = 0; i < 5; i++) expect(at[`/b-${i}`]).toEqual([300 + 200 * i, 350 + 200 * i, at['/a']![2]]);
    expect(r.summary.reuseHits).toBe(5);
    // Control: with hints lapsing after 1 s, the jitter spreads the same tasks over both workers.
    const cold = spans(runWith('adaptive', 1));
    expect(new Set([0, 1, 2, 3, 4].map((i) => cold[`/b-${i}`]![2])).size).toBe(2);
  });

  it('first-fit takes the first worker, cold: b-0 pays the load', () => {
    const r = runWith('first-fit');
    expect(spans(r)).toMatchObject({ '/a': [0, 150, 'g-1'], '/b-0': [300, 450, 'g-0'] });
    // b-0 left m on g-0 too: the later ones are warm there.
    expect(r.summary.reuseHits).toBe(4);
  });
});

describe('pipelines in the simulator (needs)', () => {
  it('a stage arrives when the last job it needs ends, not before its own submit', () => {
    const r = run({
      workers: [{ name: 'c', cpu: 4 }],
      jobs: [
        { name: 'train', run: 100 },
        { name: 'prep', run: 30 },
        { name: 'eval', run: 10, needs: ['train', 'prep'] },
        { name: 'report', submit: 500, run: 10, needs: 'eval' },
      ],
    });
    expect(spans(r)).toMatchObject({ '/eval': [100, 110, 'c'], '/report': [500, 510, 'c'] });
    // The stage's wait counts from its arrival.
    expect(r.jobs.find((j) => j.name === '/eval')).toMatchObject({ submit: 100, wait: 0 });
  });

  it('a stage whose need never ran is skipped with the reason, and so is what needs it', () => {
    const r = run({
      workers: [{ name: 'c', cpu: 1 }],
      jobs: [
        { name: 'huge', run: 10, cpu: 8 },
        { name: 'eval', run: 10, needs: 'huge' },
        { name: 'report', run: 10, needs: 'eval' },
      ],
    });
    expect(r.skipped.map((s) => s.name)).toEqual(['/huge', '/eval', '/report']);
    expect(r.skipped[0]!.reason).toMatch(/CPU/);
    expect(r.skipped.slice(1).map((s) => s.reason)).toEqual([
      'needs /huge, which never ran',
      'needs /eval, which never ran',
    ]);
    expect(r.jobs).toEqual([]);
  });
});
