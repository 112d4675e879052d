import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IrisError } from '../../src/model/errors.js';
import { runSimulation, type SimulationOptions } from '../../src/sim/service.js';

function swfLine(id: number, submit: number, run: number, procs: number): string {
  return [id, submit, -1, run, procs, -1, -1, procs, run, -1, 1, 7, 1, 1, 1, -1, -1, -1].join(' ');
}

let dir: string;
let trace: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iris-sim-service-'));
  trace = path.join(dir, 'small.swf');
  writeFileSync(
    trace,
    ['; MaxProcs: 4', swfLine(1, 0, 10, 2), swfLine(2, 1, 10, 3), swfLine(3, 2, 10, 4)].join('\n') + '\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = (over: Partial<SimulationOptions> = {}): SimulationOptions => ({
  trace,
  order: 'fcfs',
  policy: 'easy',
  queueDepth: 32,
  reservationDepth: 64,
  ...over,
});

describe('runSimulation', () => {
  it('runs a trace through the iris scheduler and writes the plot when asked', async () => {
    const plot = path.join(dir, 'run.svg');
    const outcome = await runSimulation(base({ plot }));
    expect(outcome.mode).toBe('iris');
    if (outcome.mode !== 'iris') return;
    expect(outcome.info).toEqual({
      trace,
      kind: 'swf',
      policy: 'easy',
      placement: 'adaptive',
      selection: 'first-fit',
      order: 'fcfs',
      queueDepth: 32,
      reservationDepth: 64,
      procs: 4,
      workers: 1,
      window: null,
    });
    expect(outcome.result.summary.jobs).toBe(3);
    expect(outcome.result.jobs.map((j) => j.start)).toEqual([0, 10, 20]);
    expect(outcome.plot).toBe(plot);
    expect(existsSync(plot) && readFileSync(plot, 'utf8').startsWith('<svg')).toBe(true);
  });

  it('reproduces the RLScheduler setup with compat', async () => {
    const outcome = await runSimulation(
      base({ compat: 'rlscheduler', backfill: true, window: { start: 0, count: 3 } }),
    );
    expect(outcome.mode).toBe('rlscheduler');
    if (outcome.mode !== 'rlscheduler') return;
    expect(outcome.info).toEqual({ trace, procs: 4, order: 'fcfs', backfill: true });
    expect(outcome.result.windows.map((w) => [w.start, w.count])).toEqual([[0, 3]]);
  });

  it('refuses an unknown policy and a compat run on a non-SWF trace', async () => {
    await expect(runSimulation(base({ policy: 'lottery' }))).rejects.toThrow(IrisError);
    await expect(runSimulation(base({ trace: path.join(dir, 'w.yaml'), compat: 'rlscheduler' }))).rejects.toThrow(
      'needs an SWF trace',
    );
  });
});
