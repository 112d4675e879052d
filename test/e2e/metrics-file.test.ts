/**
 * E2E: `<home>/metrics/metrics.json` on the built CLI (no metrics port): after a job ran it holds
 * the same samples as `iris metrics` (GET /metrics) at one quiet moment, and the cluster's stop
 * writes it one last time with the values the cluster had.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetricSample, MetricsFileContent } from '../../src/api/metrics.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
  - {name: w1, cpu: 2, memory: 2GiB, cost-per-hour: 3}
`;

/** The process's own metrics (CPU, memory, event loop) change with every read: left out. */
const moving = (s: MetricSample) => s.name.startsWith('iris_process_') || s.name.startsWith('iris_nodejs_');
const key = (s: MetricSample) => `${s.name}${JSON.stringify(s.labels)}`;
const comparable = (samples: MetricSample[]) =>
  samples
    .filter((s) => !moving(s))
    .map((s) => `${key(s)} ${s.value}`)
    .sort();

describe('metrics.json', () => {
  const c = withCluster(CONFIG);
  const file = () => path.join(c.home, 'metrics', 'metrics.json');
  const fromFile = (): MetricsFileContent => JSON.parse(readFileSync(file(), 'utf8')) as MetricsFileContent;
  const served = () => c.json<MetricSample[]>(['metrics']);

  it('holds the same counters and gauges as /metrics after a job ran, and is written at stop', async () => {
    const run = await c.iris(['run', '--name', 'ok', '--cpu', '0.1', '--', 'true'], { timeoutMs: 60_000 });
    expect(run.code, describeRun(['run'], run)).toBe(0);
    // Quiet now: the file catches up within a second of the last change.
    let last: string[] = [];
    const same = await waitUntil(
      'metrics.json to equal /metrics',
      async () => {
        if (!existsSync(file())) return false;
        last = comparable(await served());
        return JSON.stringify(comparable(fromFile().metrics.flatMap((m) => m.samples))) === JSON.stringify(last);
      },
      Boolean,
      { timeoutMs: 15_000, client: c.client },
    ).catch((error: Error) => {
      const have = existsSync(file()) ? comparable(fromFile().metrics.flatMap((m) => m.samples)) : 'no file';
      throw new Error(`${error.message}\nserved: ${last.join('\n')}\nfile: ${JSON.stringify(have)}`);
    });
    expect(same).toBe(true);
    const content = fromFile();
    expect(content.version).toBe(2);
    const samples = content.metrics.flatMap((m) => m.samples);
    expect(samples).toContainEqual({ name: 'iris_jobs', labels: { state: 'SUCCEEDED' }, value: 1 });
    expect(samples).toContainEqual({ name: 'iris_dispatches_total', labels: {}, value: 1 });
    expect(samples).toContainEqual({ name: 'iris_workers_cost_per_hour', labels: {}, value: 4 });
    const pass = content.metrics.find((m) => m.name === 'iris_scheduling_pass_duration_seconds');
    expect(pass?.type).toBe('histogram');
    expect(pass?.samples.some((s) => s.name === 'iris_scheduling_pass_duration_seconds_bucket')).toBe(true);
    expect(content.metrics.find((m) => m.name === 'iris_dispatches_total')?.type).toBe('counter');

    // At stop: the last write has the values /metrics had (nothing ran in between).
    const before = comparable(await served());
    const stopAt = Date.now();
    await c.stop();
    const after = fromFile();
    // Written by the stop itself: the cluster was quiet, so no write of a change came after stopAt.
    expect(after.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(stopAt);
    const final = comparable(after.metrics.flatMap((m) => m.samples));
    // The stop's own pass (if any) may add to the pass histogram; every other sample is unchanged.
    const notPass = (lines: string[]) => lines.filter((l) => !l.startsWith('iris_scheduling_pass_duration_seconds'));
    expect(notPass(final)).toEqual(notPass(before));
  }, 60_000);
});
