/**
 * E2E: `iris simulate --preemption` on the built binary. The preemption study's documented rows
 * (docs/simulate.md, "Preemption study"; every cell checked by test/sim/preemption-study.test.ts)
 * are what the binary reports for docs/examples/preemption.yaml without and with preemption; the
 * preemption flags are refused with a message, a hint and exit 2 where they do not apply.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, describeRun, runIris } from './harness.js';

beforeAll(() => assertBuilt());

const WORKLOAD = 'docs/examples/preemption.yaml';

/** The documented study row whose first cell is `first`, as trimmed cells. */
function documentedRow(first: string): string[] {
  const doc = readFileSync(path.join(ROOT, 'docs', 'simulate.md'), 'utf8');
  const line = doc.split('\n').find((l) => l.startsWith(`| ${first} |`));
  if (!line) throw new Error(`docs/simulate.md has no preemption study row "${first}"`);
  return line
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

interface Band {
  band: string;
  waitMean: number;
  waitMedian: number;
  waitP95: number;
  slowdownMean: number;
}

function cells(body: {
  summary: { bands: Band[]; preemption?: { tasks: number; lostCpuSeconds: number }; makespan: number };
}): string[] {
  const band = (name: string) => body.summary.bands.find((b) => b.band === name)!;
  const interactive = band('interactive');
  const batch = band('batch');
  const whole = (n: number) => String(Math.round(n));
  return [
    whole(interactive.waitMean),
    whole(interactive.waitMedian),
    whole(interactive.waitP95),
    batch.slowdownMean.toFixed(2),
    whole(batch.waitMean),
    whole(body.summary.preemption?.tasks ?? 0),
    whole(body.summary.preemption?.lostCpuSeconds ?? 0),
    whole(body.summary.makespan),
  ];
}

describe('iris simulate --preemption (built CLI)', () => {
  it('reports the documented study rows: waits, batch slowdown, tasks preempted, CPU-seconds lost', async () => {
    const off = await runIris(['simulate', WORKLOAD, '--json']);
    expect(off.code, describeRun(['simulate', WORKLOAD], off)).toBe(0);
    expect(cells(JSON.parse(off.stdout))).toEqual(documentedRow('off').slice(1));

    const args = ['simulate', WORKLOAD, '--preemption', '--preempt-exempt', '10m', '--json'];
    const on = await runIris(args);
    expect(on.code, describeRun(args, on)).toBe(0);
    const body = JSON.parse(on.stdout);
    expect(body.preemption).toEqual({ grace: 30, exempt: 600 });
    expect(cells(body)).toEqual(documentedRow('exempt 600 s').slice(1));
    // Each preempted job says how often and what it lost; only batch jobs are ever stopped.
    const preempted = body.jobs.filter((j: { preemptions?: number }) => j.preemptions !== undefined);
    expect(preempted.length).toBeGreaterThan(0);
    expect(preempted.every((j: { band?: string }) => j.band === 'batch')).toBe(true);

    const text = await runIris(['simulate', WORKLOAD, '--preemption']);
    expect(text.code, describeRun(['simulate', WORKLOAD, '--preemption'], text)).toBe(0);
    const row = documentedRow('exempt 60 s');
    expect(text.stdout).toContain(`grace 30s, exempt 1m00s: ${row[6]} tasks stopped, ${row[7]} CPU-seconds lost`);
    expect(text.stdout).toMatch(/BAND +JOBS +WAIT MEAN \(S\) +MEDIAN +P95 +SLOWDOWN +PREEMPTED +CPU-S LOST/);
    expect(text.stdout).toMatch(new RegExp(`interactive +30 +${row[1]} +${row[2]} +${row[3]} `));
  });

  it('refuses the preemption flags where they do not apply', async () => {
    const alone = await runIris(['simulate', WORKLOAD, '--preempt-grace', '10s']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('Error: --preempt-grace applies with --preemption only');
    expect(alone.stderr).toContain('Hint: add --preemption');
    const study = await runIris(['simulate', '--study', '--preemption']);
    expect(study.code).toBe(2);
    expect(study.stderr).toContain('Error: --preemption does not apply to --study');
    const bad = await runIris(['simulate', WORKLOAD, '--preemption', '--preempt-exempt', 'soon']);
    expect(bad.code).toBe(2);
  });
});
