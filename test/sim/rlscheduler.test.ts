import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IrisError } from '../../src/model/errors.js';
import {
  RLSCHEDULER_WINDOWS,
  rlschedulerWorkload,
  simulateRlscheduler,
  type CompatOptions,
} from '../../src/sim/rlscheduler.js';
import { parseSwf, type SwfJob } from '../../src/sim/swf.js';
import { refusal } from '../helpers/refusal.js';

let nextIndex = 0;
/** A job for hand-built traces; the estimate defaults to the run time. */
const j = (id: number, submit: number, run: number, procs: number, requestedTime = run): SwfJob => ({
  id,
  submit,
  run,
  procs,
  requestedTime,
  index: nextIndex++,
  user: 1,
  app: -1,
  requestGiven: true,
});

/** Start time of every job of the single window covering the whole hand-built trace. */
function starts(jobs: SwfJob[], options: Omit<CompatOptions, 'windows'>): Record<number, number> {
  const result = simulateRlscheduler(jobs, { ...options, windows: [{ start: 0, count: jobs.length }] });
  return Object.fromEntries(result.windows[0]!.jobs.map((r) => [r.id, r.start]));
}

const errorOf = (fn: () => unknown): IrisError => refusal(fn);

describe('RLScheduler compatibility semantics (hand-built traces, 4 processors)', () => {
  it('a committed head is not displaced by a shorter job that arrives while it waits', () => {
    // Job 2 becomes the head alone at t=1 and is blocked; job 3 (shorter) arrives at t=2.
    // SJF re-choosing would start 3 at t=100 and 2 at t=105; the committed head starts first.
    const jobs = [j(1, 0, 100, 4), j(2, 1, 50, 3), j(3, 2, 5, 2)];
    expect(starts(jobs, { procs: 4, order: 'sjf', backfill: false })).toEqual({ 1: 0, 2: 100, 3: 150 });
  });

  it('an arrival at the same time as a completion is queued before the completion', () => {
    // At t=10 job 4 arrives and job 1 ends. Arrival first: when the committed head (2) starts
    // at t=10, job 4 is already queued and SJF picks it before job 3.
    const jobs = [j(1, 0, 10, 4), j(2, 3, 100, 2), j(3, 4, 50, 2), j(4, 10, 1, 2)];
    expect(starts(jobs, { procs: 4, order: 'sjf', backfill: false })).toEqual({ 1: 0, 2: 10, 3: 11, 4: 10 });
  });

  it('fcfs without backfilling never lets a later job pass a blocked head', () => {
    const jobs = [j(1, 0, 100, 3), j(2, 1, 10, 4), j(3, 2, 1, 1)];
    expect(starts(jobs, { procs: 4, order: 'fcfs', backfill: false })).toEqual({ 1: 0, 2: 100, 3: 110 });
  });

  it('backfills only jobs whose estimate ends strictly before the reserved time', () => {
    // Head 2 is reserved for t=100 (job 1's estimated end). Job 3 would end at exactly 100:
    // not backfilled. Job 4 ends at 99: backfilled at its arrival.
    const jobs = [j(1, 0, 100, 3), j(2, 1, 10, 4), j(3, 2, 98, 1), j(4, 3, 96, 1)];
    expect(starts(jobs, { procs: 4, order: 'fcfs', backfill: true })).toEqual({ 1: 0, 2: 100, 3: 110, 4: 3 });
  });

  it('backfills in submit order whatever the queue order', () => {
    // When job 2 starts at t=10, SJF makes job 5 the head (blocked, reserved for t=110). The
    // freed processor goes to job 3 (submitted first), not to the shorter job 4.
    const jobs = [j(1, 0, 10, 4), j(2, 1, 100, 3), j(3, 2, 60, 1), j(4, 3, 30, 1), j(5, 4, 5, 4)];
    expect(starts(jobs, { procs: 4, order: 'sjf', backfill: true })).toEqual({ 1: 0, 2: 10, 3: 10, 4: 70, 5: 110 });
  });

  it('has no extra-processor rule: a long narrow job waits even if it would not delay the head', () => {
    // EASY would start job 3 at t=2 on the processor the head leaves unused; here it waits.
    const jobs = [j(1, 0, 100, 2), j(2, 1, 10, 3), j(3, 2, 500, 1)];
    expect(starts(jobs, { procs: 4, order: 'fcfs', backfill: true })).toEqual({ 1: 0, 2: 100, 3: 100 });
  });

  it('uses the requested time as the estimate and the run time as the duration', () => {
    // Job 1 asks for 200 s but ends at 50: the head starts at 50, not at its reserved 200.
    // Job 3 (estimate 100, ends by 102 < 200) is backfilled; job 4 (estimate 300) is not.
    const jobs = [j(1, 0, 50, 3, 200), j(2, 1, 10, 4), j(3, 2, 20, 1, 100), j(4, 3, 5, 1, 300)];
    expect(starts(jobs, { procs: 4, order: 'fcfs', backfill: true })).toEqual({ 1: 0, 2: 50, 3: 2, 4: 60 });
  });

  it('reports wait, run and bounded slowdown per job and per window', () => {
    const jobs = [j(1, 0, 100, 4), j(2, 0, 5, 4), j(3, 10, 100, 4)];
    const result = simulateRlscheduler(jobs, {
      procs: 4,
      order: 'fcfs',
      backfill: false,
      windows: [{ start: 0, count: 3 }],
    });
    const w = result.windows[0]!;
    expect(w.jobs).toEqual([
      { id: 1, submit: 0, start: 0, wait: 0, run: 100, procs: 4 },
      { id: 2, submit: 0, start: 100, wait: 100, run: 5, procs: 4 },
      { id: 3, submit: 10, start: 105, wait: 95, run: 100, procs: 4 },
    ]);
    // Bounded slowdowns 1, (100+5)/10 = 10.5, 195/100 = 1.95.
    expect(w.avgBoundedSlowdown).toBeCloseTo((1 + 10.5 + 1.95) / 3, 12);
    expect(result.mean).toBe(w.avgBoundedSlowdown);
  });

  it('each window starts empty at its first job and only its own jobs arrive', () => {
    // Window 1..2 ignores job 1 (which would still be running) and job 4 (later).
    const jobs = [j(1, 0, 1000, 4), j(2, 5, 10, 4), j(3, 6, 10, 4), j(4, 7, 1, 4)];
    const result = simulateRlscheduler(jobs, {
      procs: 4,
      order: 'fcfs',
      backfill: false,
      windows: [{ start: 1, count: 2 }],
    });
    expect(result.windows[0]!.jobs.map((r) => [r.id, r.start])).toEqual([
      [2, 5],
      [3, 15],
    ]);
  });
});

describe('RLScheduler workload preparation and errors', () => {
  it('turns a negative run time into 10 s, drops zero run times and orders by job id', () => {
    const text = ['3 20 -1 30 1 -1 -1 1 -1', '1 0 -1 -1 1 -1 -1 1 500', '2 10 -1 0 1 -1 -1 1 -1'].join('\n');
    const prepared = rlschedulerWorkload(parseSwf(text).jobs);
    expect(prepared.map((p) => [p.id, p.run, p.requestedTime])).toEqual([
      [1, 10, 500],
      [3, 30, 30],
    ]);
  });

  it('refuses a job wider than the machine, naming it', () => {
    const err = errorOf(() =>
      simulateRlscheduler([j(1, 0, 10, 2), j(7, 1, 10, 8)], {
        procs: 4,
        order: 'fcfs',
        backfill: false,
        windows: [{ start: 0, count: 2 }],
      }),
    );
    expect(err.message).toBe('job 7 needs 8 processors but the machine has 4; it could never start');
  });

  it('refuses a window past the end of the trace and a bad machine size', () => {
    const jobs = [j(1, 0, 10, 1), j(2, 1, 10, 1)];
    expect(errorOf(() => simulateRlscheduler(jobs, { procs: 4, order: 'fcfs', backfill: false })).message).toBe(
      `window ${RLSCHEDULER_WINDOWS[0]}:1024 runs past the end of the trace (2 usable jobs)`,
    );
    expect(errorOf(() => simulateRlscheduler(jobs, { procs: 0, order: 'fcfs', backfill: false })).message).toMatch(
      /positive whole number/,
    );
  });
});

const TRACE = resolve(process.cwd(), '../shared/traces/lublin_256.swf');
const haveTrace = existsSync(TRACE);
if (!haveTrace) console.warn(`skipping RLScheduler Table V reproduction: ${TRACE} not found`);

/** Zhang et al., RLScheduler (SC 2020), Table V, FCFS on lublin_256.swf, 256 processors. */
const PUBLISHED = {
  noBackfill: {
    mean: 7273.77,
    windows: [6862.26, 7034.45, 9090.84, 5405.5, 7847.37, 6366.98, 7655.81, 7535.14, 10071.42, 4867.95],
  },
  backfill: {
    mean: 235.82,
    windows: [163.71, 263.5, 247.54, 128.57, 261.42, 239.81, 192.07, 358.81, 297.78, 204.96],
  },
};

describe.skipIf(!haveTrace)('RLScheduler Table V on lublin_256.swf (256 processors)', () => {
  const jobs = haveTrace ? parseSwf(readFileSync(TRACE, 'utf8'), TRACE).jobs : [];

  for (const [name, backfill] of [
    ['noBackfill', false],
    ['backfill', true],
  ] as const) {
    it(`FCFS ${backfill ? 'with' : 'without'} backfilling matches every published value to ±0.01`, () => {
      const result = simulateRlscheduler(jobs, { procs: 256, order: 'fcfs', backfill });
      expect(result.windows.map((w) => w.start)).toEqual(RLSCHEDULER_WINDOWS);
      expect(result.windows.every((w) => w.count === 1024 && w.jobs.length === 1024)).toBe(true);
      const got = result.windows.map((w) => w.avgBoundedSlowdown);
      const want = PUBLISHED[name].windows;
      const off = got.flatMap((g, k) =>
        Math.abs(g - want[k]!) <= 0.01 ? [] : [`window ${k} (${RLSCHEDULER_WINDOWS[k]}): ${g} vs ${want[k]}`],
      );
      expect(off).toEqual([]);
      expect(Math.abs(result.mean - PUBLISHED[name].mean)).toBeLessThanOrEqual(0.01);
    });
  }

  for (const order of ['sjf', 'f1'] as const) {
    for (const backfill of [false, true]) {
      it(`${order} ${backfill ? 'with' : 'without'} backfilling completes and is deterministic`, () => {
        const a = simulateRlscheduler(jobs, { procs: 256, order, backfill });
        const b = simulateRlscheduler(jobs, { procs: 256, order, backfill });
        expect(b).toEqual(a);
        expect(a.windows).toHaveLength(10);
        for (const w of a.windows) {
          expect(w.jobs).toHaveLength(1024);
          expect(w.jobs.every((r) => r.start >= r.submit && r.wait === r.start - r.submit)).toBe(true);
          expect(w.avgBoundedSlowdown).toBeGreaterThanOrEqual(1);
        }
        // Reordering the queue is what these policies are for: both beat FCFS by far.
        expect(a.mean).toBeLessThan(PUBLISHED[backfill ? 'backfill' : 'noBackfill'].mean);
      });
    }
  }
});
