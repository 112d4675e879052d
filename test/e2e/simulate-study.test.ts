/**
 * E2E: `iris simulate --study` and the placement flags on the built binary. The study's table is
 * what docs/simulate.md shows (test/sim/study.test.ts checks every cell); here the binary must
 * print it, give the rows with --json, and refuse bad flags with a message, a hint and exit 2.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, describeRun, runIris } from './harness.js';

beforeAll(() => assertBuilt());

describe('iris simulate --study (built CLI)', () => {
  it('prints the table documented in docs/simulate.md', async () => {
    const args = ['simulate', '--study'];
    const r = await runIris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    const doc = readFileSync(path.join(ROOT, 'docs', 'simulate.md'), 'utf8');
    // The first-fit row of the documented table, cell by cell, appears in the printed row.
    const row = /\| first-fit \| first-fit \| ([^\n]+) \|/.exec(doc)![1]!.split(' | ');
    expect(row[0]).toBe('off');
    expect(r.stdout).toMatch(
      new RegExp(`first-fit +first-fit +${row.map((c) => c.replace(/[.%]/g, (m) => `\\${m}`)).join(' +')}`),
    );
    // The merging rows of the documented table (docs/simulate.md, "Task merging").
    const merged = /\| bursts \| on \| ([^\n]+) \|/.exec(doc)![1]!.split(' | ');
    expect(r.stdout).toMatch(new RegExp(`bursts +on +${merged.map((c) => c.replace(/[.]/g, '\\.')).join(' +')}`));
    // Every mode runs now, the baselines included.
    const baseline = /\| static-worker \| first-fit \| ([^\n]+) \|/.exec(doc)![1]!.split(' | ');
    expect(r.stdout).toMatch(
      new RegExp(`static-worker +first-fit +${baseline.map((c) => c.replace(/[.%]/g, (m) => `\\${m}`)).join(' +')}`),
    );
  });

  it('--json gives every mode × selection; bad flags are refused with a hint', async () => {
    const r = await runIris(['simulate', '--study', '--seed', '7', '--json']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.seed).toBe(7);
    expect(body.rows).toHaveLength(20);
    expect(body.rows.every((row: { metrics: { makespan: number } }) => row.metrics.makespan > 0)).toBe(true);
    expect(body.merging.map((row: { arrivals: string; merge: boolean }) => `${row.arrivals} ${row.merge}`)).toEqual([
      'steady false',
      'steady true',
      'bursts false',
      'bursts true',
    ]);
    const bad = await runIris(['simulate', 'docs/examples/workload.yaml', '--placement', 'fastest']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Error: unknown placement mode "fastest"');
    expect(bad.stderr).toContain('Hint: use one of: adaptive, first-fit, static-worker, fixed-pipeline, round-robin');
    const ok = await runIris([
      'simulate',
      'docs/examples/workload.yaml',
      '--placement',
      'first-fit',
      '--selection',
      'first-fit',
      '--cache-ttl',
      '30m',
      '--json',
    ]);
    expect(ok.code, describeRun(['simulate'], ok)).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      placement: 'first-fit',
      selection: 'first-fit',
      summary: { reuseHitRate: null, disabledWorkerHours: null },
    });
    for (const mode of ['static-worker', 'fixed-pipeline', 'round-robin']) {
      const args = ['simulate', 'docs/examples/workload.yaml', '--placement', mode, '--json'];
      const run = await runIris(args);
      expect(run.code, describeRun(args, run)).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ placement: mode, summary: { unfinished: 0 } });
    }
  });
});
