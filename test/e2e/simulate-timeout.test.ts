/**
 * E2E: `iris simulate` on the built binary ends a task stopped by its time limit as the live
 * cluster does: the job's final state is TIMEOUT in `--json`, its other running task is stopped
 * then (the next job starts on what it freed), and a pipeline stage that needs it never runs,
 * with the live `--after` reason. The engine's rules are unit-tested in test/sim/timeout.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, describeRun, runIris } from './harness.js';

let dir: string;
let workload: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'iris-e2e-sim-timeout-'));
  workload = path.join(dir, 'timeout.yaml');
  // 2 CPUs. /x holds one until 30; /train's task 0 starts at 0, task 1 at 30. Task 0 reaches the
  // limit at 50: /train ends TIMEOUT, task 1 is stopped then, and /z (both CPUs) starts at 50.
  writeFileSync(
    workload,
    [
      'workers:',
      '  - {name: w, cpu: 2}',
      'jobs:',
      '  - {name: x, run: 30, cpu: 1}',
      "  - {name: train, run: 100, 'time-limit': 50, cpu: 1, replicas: 2}",
      '  - {name: z, submit: 1, run: 10, cpu: 2}',
      '  - {name: eval, run: 10, needs: train}',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('iris simulate: a task stopped by its time limit (built CLI)', () => {
  it('ends its job TIMEOUT, stops its other task then, and skips the stage that needs it', async () => {
    const args = ['simulate', workload, '--policy', 'fcfs', '--json'];
    const r = await runIris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    const out = JSON.parse(r.stdout) as {
      jobs: Array<{ name: string; state: string; start: number; end: number; timeLimited: boolean }>;
      skipped: Array<{ name: string; reason: string }>;
    };
    const by = Object.fromEntries(out.jobs.map((j) => [j.name, j]));
    expect(by['/train']).toMatchObject({ state: 'TIMEOUT', start: 0, end: 50, timeLimited: true });
    expect(by['/z']).toMatchObject({ state: 'SUCCEEDED', start: 50, end: 60 });
    expect(out.skipped).toEqual([{ name: '/eval', reason: 'dependency /train ended TIMEOUT' }]);
  });

  it('names the skipped stage and why in the text report', async () => {
    const args = ['simulate', workload, '--policy', 'fcfs'];
    const r = await runIris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toMatch(/\/eval\s+skipped\s+dependency \/train ended TIMEOUT/);
  });
});
