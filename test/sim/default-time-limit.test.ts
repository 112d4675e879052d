/**
 * `iris simulate --default-time-limit`: jobs without a time limit of their own get the live
 * cluster's default limit instead of their run time; jobs with one keep it; --predict then plans
 * them with their predicted runtime, as the live cluster does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/engine.js';
import { loadWorkload, parseDefaultTimeLimit, swfWorkload } from '../../src/sim/load.js';
import { createScheduler } from '../../src/sim/policy.js';
import { runSimulation } from '../../src/sim/service.js';
import { parseSwf } from '../../src/sim/swf.js';
import { parseWorkload } from '../../src/sim/workload-file.js';
import { withDefaultTimeLimit, type SimJob } from '../../src/sim/workload.js';
import { refusal, rejection } from '../helpers/refusal.js';

const DAY = 86_400;

/** SWF rows on 4 processors, user 1, executable 1; requested -1: no limit of its own. */
function trace(rows: Array<[id: number, submit: number, run: number, procs: number, requested: number]>): string {
  const lines = rows.map(([id, submit, run, p, req]) =>
    [id, submit, -1, run, p, -1, -1, p, req, -1, 1, 1, 1, 1, 1, -1, -1, -1].join(' '),
  );
  return ['; MaxProcs: 4', ...lines].join('\n') + '\n';
}

// /job-1 and /job-2 (no limit of their own) run 10 s each: the key's history is [10, 10] when
// /job-3 (no limit, 2 processors, really 10 s) arrives at 40. /job-4 needs the whole machine and
// says 10 s; /job-5 (2 processors, says and runs 1000 s) arrives at 42 and fits beside /job-3.
// Hand-computed, policy easy:
// - limits = run times (the reader's rule): /job-3 ends at 50, /job-4 is reserved at 50 and
//   /job-5 would delay it: /job-4 starts at 50, /job-5 at 60.
// - default limit 1 day: /job-3 is planned to end at 40 + 1 day, /job-4's reservation is there,
//   and /job-5 (ends at 1042) backfills at 42; /job-4 starts only when /job-5 ends, at 1042.
// - default limit 1 day with --predict: /job-3 is predicted to run 10 s (the mean of 10 and 10),
//   so /job-4 is reserved at 50 again: /job-4 starts at 50, /job-5 at 60.
const TEXT = trace([
  [1, 0, 10, 4, -1],
  [2, 20, 10, 4, -1],
  [3, 40, 10, 2, -1],
  [4, 41, 10, 4, 10],
  [5, 42, 1000, 2, 1000],
]);

function workload(limit?: number) {
  const w = swfWorkload(parseSwf(TEXT, 'd.swf'), 'd.swf');
  return limit === undefined ? w : { ...w, jobs: withDefaultTimeLimit(w.jobs, limit) };
}

function starts(limit: number | undefined, predict: boolean): Record<string, number> {
  const result = simulate(workload(limit), { scheduler: createScheduler({ policy: 'easy' }), predict });
  expect(result.unfinished).toEqual([]);
  return Object.fromEntries(result.jobs.map((j) => [j.name, j.start]));
}

describe('withDefaultTimeLimit', () => {
  it('gives SWF jobs without a requested time the limit; jobs with one keep theirs', () => {
    expect(workload().jobs.map((j) => j.timeLimit)).toEqual([10, 10, 10, 10, 1000]);
    expect(workload(DAY).jobs.map((j) => j.timeLimit)).toEqual([DAY, DAY, DAY, 10, 1000]);
    // Run times are untouched: a job still runs what it ran.
    expect(workload(DAY).jobs.map((j) => j.run)).toEqual([10, 10, 10, 10, 1000]);
  });

  it('reaches children in a workload file; a file-wide or own time-limit is kept', () => {
    const raw = {
      workers: [{ name: 'w', cpu: 4 }],
      jobs: [
        { name: 'free', run: 10, children: [{ name: 'kid', after: 1, run: 5 }] },
        { name: 'own', run: 10, 'time-limit': 30 },
      ],
    };
    const limited = withDefaultTimeLimit(parseWorkload(raw, 'w.yaml').jobs, 3600);
    const byName = (jobs: SimJob[], name: string) => jobs.find((j) => j.name === name)!;
    expect(byName(limited, '/free').timeLimit).toBe(3600);
    expect(byName(limited, '/free').children[0]!.timeLimit).toBe(3600);
    expect(byName(limited, '/own').timeLimit).toBe(30);
    const fileWide = parseWorkload({ ...raw, 'time-limit': '2h' }, 'w.yaml');
    expect(withDefaultTimeLimit(fileWide.jobs, 3600).map((j) => j.timeLimit)).toEqual([7200, 30]);
  });

  it('a limit shorter than the run stops the job at the limit', () => {
    const text = trace([[1, 0, 100, 1, -1]]);
    const w = swfWorkload(parseSwf(text, 's.swf'), 's.swf');
    const result = simulate(
      { ...w, jobs: withDefaultTimeLimit(w.jobs, 60) },
      { scheduler: createScheduler({ policy: 'easy' }) },
    );
    expect(result.jobs[0]).toMatchObject({ start: 0, end: 60, run: 60, timeLimited: true });
    expect(result.summary.timeLimited).toBe(1);
  });
});

describe('--default-time-limit with and without --predict', () => {
  it('the default limit pushes the reservation out; prediction brings it back (hand-computed)', () => {
    const exact = starts(undefined, false);
    expect([exact['/job-4'], exact['/job-5']]).toEqual([50, 60]);
    const day = starts(DAY, false);
    expect([day['/job-4'], day['/job-5']]).toEqual([1042, 42]);
    const predicted = starts(DAY, true);
    expect([predicted['/job-4'], predicted['/job-5']]).toEqual([50, 60]);
  });
});

describe('refusals', () => {
  it('parseDefaultTimeLimit takes durations of at least 1 s', () => {
    expect(parseDefaultTimeLimit('24h')).toBe(DAY);
    expect(parseDefaultTimeLimit('90')).toBe(90);
    for (const text of ['0', '0.5', '500ms']) {
      const error = refusal(() => parseDefaultTimeLimit(text));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(
        `invalid --default-time-limit "${text}": expected a duration of at least 1s such as 24h`,
      );
      expect(error.hint).toMatch(/default is 24h/);
    }
    expect(refusal(() => parseDefaultTimeLimit('soon')).message).toMatch(/invalid time "soon"/);
    expect(refusal(() => parseDefaultTimeLimit('-5m')).exitCode).toBe(2);
  });

  describe('loadWorkload and runSimulation', () => {
    let dir: string;
    let file: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'iris-default-limit-'));
      file = path.join(dir, 'd.swf');
      writeFileSync(file, TEXT);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('refuse a limit below 1 s or not finite', async () => {
      for (const bad of [0, -1, 0.5, Number.NaN, Infinity]) {
        const error = await rejection(loadWorkload(file, { defaultTimeLimit: bad }));
        expect(error.message).toMatch(/^invalid --default-time-limit .*: expected a duration of at least 1s/);
      }
    });

    const run = async (options: { defaultTimeLimit?: number; predict?: boolean }) => {
      const base = { trace: file, order: 'fcfs' as const, policy: 'easy', queueDepth: 32, reservationDepth: 64 };
      const outcome = await runSimulation({ ...base, ...options });
      if (outcome.mode !== 'iris') throw new Error('expected an iris run');
      const starts = Object.fromEntries(outcome.result.jobs.map((j) => [j.name, j.start]));
      return { info: outcome.info, starts: [starts['/job-4'], starts['/job-5']] };
    };

    it('report the limit and how many jobs it applies to; predictions default on with it', async () => {
      const on = await run({ defaultTimeLimit: DAY });
      expect(on.info.defaultTimeLimit).toEqual({ seconds: DAY, jobs: 3 });
      expect(on.info.predict).toBe(true);
      expect(on.starts).toEqual([50, 60]);
      const off = await run({ defaultTimeLimit: DAY, predict: false });
      expect(off.info.predict).toBeUndefined();
      expect(off.starts).toEqual([1042, 42]);
      // Without a default limit predictions stay off unless asked for.
      const plain = await run({});
      expect(plain.info.predict).toBeUndefined();
      expect(plain.info.defaultTimeLimit).toBeUndefined();
    });
  });
});
