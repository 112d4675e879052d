import { describe, expect, it } from 'vitest';
import { simulate, type SimResult } from '../../src/sim/engine.js';
import { DEFAULT_SIM_ELASTIC, type SimElasticSettings } from '../../src/sim/elastic.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

/** Two 1-CPU workers (a is the dearer); j1 runs on a at 0; j2 and j3 arrive together at 200. */
const WORKLOAD = {
  workers: [
    { name: 'a', 'cost-per-hour': 2 },
    { name: 'b', 'cost-per-hour': 1 },
  ],
  jobs: [
    { name: 'j1', submit: 0, run: 10 },
    { name: 'j2', submit: 200, run: 100 },
    { name: 'j3', submit: 200, run: 10 },
  ],
};

function run(elastic?: SimElasticSettings): SimResult {
  const scheduler = createScheduler({ policy: 'fcfs', placement: { mode: 'first-fit', selection: 'first-fit' } });
  return simulate(parseWorkload(WORKLOAD, 'w.yaml'), { scheduler, ...(elastic ? { elastic } : {}) });
}

const starts = (r: SimResult) => Object.fromEntries(r.jobs.map((j) => [j.name, [j.start, j.workers.join(',')]]));

describe('the elastic coordinator in the simulator', () => {
  it('off: no polls, no disabled time', () => {
    const r = run();
    expect(starts(r)).toEqual({ '/j1': [0, 'a'], '/j2': [200, 'a'], '/j3': [200, 'b'] });
    expect(r.summary.disabledWorkerHours).toBeNull();
    // Fleet cost: both workers enabled over the 300 s makespan, (2 + 1) per hour.
    expect(r.summary.fleetCost).toBeCloseTo((3 * 300) / 3600, 12);
  });

  it('disables a worker idle for idle-disable and enables it when the queue passes the threshold', () => {
    // Polls every 30 s from 0. At 60, b has been idle 60 s: disabled (a, idle since 10, stays: min-active 1).
    // At 200 j2 takes a and j3 waits; the poll at 210 sees queue 1 > 0 and enables b, where j3 starts.
    const r = run(DEFAULT_SIM_ELASTIC);
    expect(starts(r)).toEqual({ '/j1': [0, 'a'], '/j2': [200, 'a'], '/j3': [210, 'b'] });
    expect(r.summary.disabledWorkerHours).toBeCloseTo((210 - 60) / 3600, 12);
    // Polls are not workload events: the makespan still ends at the last task's end.
    expect(r.summary.makespan).toBe(300);
    // b (1 per hour) was off from 60 to 210: the fleet pays for the rest only.
    expect(r.summary.fleetCost).toBeCloseTo((3 * 300 - 1 * 150) / 3600, 12);
  });

  it('the cooldown holds a worker disabled until it has passed', () => {
    // b was toggled at 60: with a 200 s cooldown it can be enabled from 260, at the poll of 270.
    const r = run({ ...DEFAULT_SIM_ELASTIC, cooldown: 200 });
    expect(starts(r)['/j3']).toEqual([270, 'b']);
    expect(r.summary.disabledWorkerHours).toBeCloseTo((270 - 60) / 3600, 12);
  });

  it('min-active keeps workers enabled; a run with nothing left to do ends', () => {
    const r = run({ ...DEFAULT_SIM_ELASTIC, minActive: 2 });
    expect(starts(r)['/j3']).toEqual([200, 'b']);
    expect(r.summary.disabledWorkerHours).toBe(0);
  });
});
