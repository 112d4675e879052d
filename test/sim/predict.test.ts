/** The simulator's runtime predictions (--predict): the planner plans keyed jobs with their last runs' mean. */
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/engine.js';
import { swfWorkload } from '../../src/sim/load.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseSwf } from '../../src/sim/swf.js';

/** SWF rows on 4 processors; requested -1: no limit of its own (predicted, key user 1 / app 1). */
function trace(rows: Array<[id: number, submit: number, run: number, procs: number, requested: number]>): string {
  const lines = rows.map(([id, submit, run, p, req]) =>
    [id, submit, -1, run, p, -1, -1, p, req, -1, 1, 1, 1, 1, 1, -1, -1, -1].join(' '),
  );
  return ['; MaxProcs: 4', ...lines].join('\n') + '\n';
}

// Two 10 s runs of the key, then /job-3 of the same key runs 100 s (its limit: the run time, the
// reader's rule). /job-4 needs the whole machine; /job-5 could backfill beside /job-3 only if
// /job-3 is planned to run its 100 s.
const TEXT = trace([
  [1, 0, 10, 4, -1],
  [2, 20, 10, 4, -1],
  [3, 40, 100, 2, -1],
  [4, 41, 10, 4, 10],
  [5, 42, 50, 2, 50],
]);

function starts(predict: boolean): Record<string, number> {
  const workload = swfWorkload(parseSwf(TEXT, 'p.swf'), 'p.swf');
  const result = simulate(workload, { scheduler: createScheduler({ policy: 'easy' }), predict });
  expect(result.unfinished).toEqual([]);
  return Object.fromEntries(result.jobs.map((j) => [j.name, j.start]));
}

describe('simulate --predict', () => {
  it('keys SWF jobs without a requested time by user and executable', () => {
    const workload = swfWorkload(parseSwf(TEXT, 'p.swf'), 'p.swf');
    expect(workload.jobs.map((j) => j.runsOf)).toEqual(['u1/a1', 'u1/a1', 'u1/a1', undefined, undefined]);
  });

  it('plans a keyed job with its predicted runtime, and corrects it while the limit still stops nothing early', () => {
    const off = starts(false);
    const on = starts(true);
    // Off: /job-3 is planned to end at 140, so /job-5 (ends at 92) backfills at once.
    expect(off['/job-5']).toBe(42);
    // On: /job-3 is predicted to end at 50 (then 60, 80, 120 as it outlives it): /job-5 would delay /job-4.
    expect(on['/job-5']).toBeGreaterThan(42);
    // /job-3 really runs its 100 s either way: /job-4 starts when it ends.
    expect(off['/job-4']).toBe(140);
    expect(on['/job-4']).toBe(140);
  });
});
