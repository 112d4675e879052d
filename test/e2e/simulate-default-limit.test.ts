/**
 * E2E: `iris simulate --default-time-limit` on the built binary. Jobs without a requested time get
 * the live cluster's default limit, which pushes a reservation a day out; predictions (on by
 * default with the flag) bring it back. The starts are computed by hand in
 * test/sim/default-time-limit.test.ts; here the binary must give them and refuse a bad limit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, describeRun, runIris } from './harness.js';

let dir: string;
let trace: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'iris-e2e-default-limit-'));
  trace = path.join(dir, 'unlimited.swf');
  // id, submit, run, procs, requested (-1: none) on 4 processors, all of user 1 / executable 1.
  const rows = [
    [1, 0, 10, 4, -1],
    [2, 20, 10, 4, -1],
    [3, 40, 10, 2, -1],
    [4, 41, 10, 4, 10],
    [5, 42, 1000, 2, 1000],
  ].map(([id, submit, run, p, req]) =>
    [id, submit, -1, run, p, -1, -1, p, req, -1, 1, 1, 1, 1, 1, -1, -1, -1].join(' '),
  );
  writeFileSync(trace, ['; MaxProcs: 4', ...rows].join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function starts(...flags: string[]): Promise<number[]> {
  const args = ['simulate', trace, '--policy', 'easy', '--json', ...flags];
  const r = await runIris(args);
  expect(r.code, describeRun(args, r)).toBe(0);
  const jobs: Array<{ name: string; start: number }> = JSON.parse(r.stdout).jobs;
  return ['/job-4', '/job-5'].map((name) => jobs.find((j) => j.name === name)!.start);
}

describe('iris simulate --default-time-limit (built CLI)', () => {
  it('the default limit pushes the reservation out; predictions bring it back', async () => {
    expect(await starts()).toEqual([50, 60]);
    expect(await starts('--default-time-limit', '24h', '--no-predict')).toEqual([1042, 42]);
    expect(await starts('--default-time-limit', '24h')).toEqual([50, 60]);
  });

  it('refuses a limit under 1s with a hint', async () => {
    const r = await runIris(['simulate', trace, '--default-time-limit', '0s']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error: invalid --default-time-limit "0s": expected a duration of at least 1s');
    expect(r.stderr).toContain("Hint: the live cluster's default is 24h");
  });
});
