/**
 * E2E: the Prometheus metrics on the built CLI — `iris metrics` (text and --json) after jobs ran,
 * the requeue counter after a retried job, the same text over `--metrics-port` on loopback, a busy
 * port refused at start, a task refused, and the density series file and its SVG plot.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { E2ECluster, describeRun, waitUntil, withCluster } from './harness.js';
import { freePort } from '../helpers/free-port.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
  - {name: w1, cpu: 2, memory: 2GiB}
metrics:
  density: true
  density-bucket: 1s
`;

const sampleLines = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('iris metrics', () => {
  const c = withCluster({ config: CONFIG, noStart: true });
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const r = await c.iris(['cluster', 'start', '--detach', '--metrics-port', String(port)], { timeoutMs: 30_000 });
    expect(r.code, describeRun(['cluster', 'start'], r)).toBe(0);
  });

  it('shows jobs by state and requeues by reason after a succeeded and a retried job', async () => {
    for (const args of [
      ['run', '--name', 'ok', '--cpu', '0.1', '--', 'true'],
      ['run', '--name', 'again', '--cpu', '0.1', '--max-retries', '1', '--', 'sh', '-c', '[ "$IRIS_ATTEMPT" -ge 1 ]'],
      ['run', '--name', 'bad', '--cpu', '0.1', '--', 'false'],
    ]) {
      await c.iris(args, { timeoutMs: 60_000 });
    }
    const r = await c.iris(['metrics']);
    expect(r.code, describeRun(['metrics'], r)).toBe(0);
    const lines = sampleLines(r.stdout);
    expect(lines).toEqual(
      expect.arrayContaining([
        'iris_jobs{state="SUCCEEDED"} 2',
        'iris_jobs{state="FAILED"} 1',
        'iris_task_requeues_total{reason="retry"} 1',
        'iris_task_requeues_total{reason="preemption"} 0',
        'iris_job_failures_total{cause="task_failed"} 1',
        'iris_dispatches_total 4',
        'iris_workers{state="READY"} 2',
        'iris_workers_cost_per_hour 2',
        'iris_queue_tasks 0',
      ]),
    );
    expect(r.stdout).toContain('# TYPE iris_scheduling_pass_duration_seconds histogram');
    // Every job needed at least one pass to be placed.
    const passes = Number(/^iris_scheduling_pass_duration_seconds_count (\d+)$/m.exec(r.stdout)?.[1]);
    expect(passes).toBeGreaterThanOrEqual(3);
    expect(lines.some((l) => l.startsWith('iris_process_resident_memory_bytes '))).toBe(true);
  });

  it('--json gives the samples as {name, labels, value}', async () => {
    const samples = await c.json<Array<{ name: string; labels: Record<string, string>; value: number }>>(['metrics']);
    expect(samples).toContainEqual({ name: 'iris_jobs', labels: { state: 'SUCCEEDED' }, value: 2 });
    expect(samples).toContainEqual({ name: 'iris_task_requeues_total', labels: { reason: 'retry' }, value: 1 });
  });

  it('serves the same metrics on 127.0.0.1:PORT/metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(sampleLines(text)).toEqual(
      expect.arrayContaining(['iris_jobs{state="SUCCEEDED"} 2', 'iris_task_requeues_total{reason="retry"} 1']),
    );
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('a task may not read the metrics (owner only)', async () => {
    const r = await c.iris(
      ['run', '--name', 'peek', '--cpu', '0.1', '--', 'sh', '-c', 'iris metrics; echo "exit=$?"'],
      { timeoutMs: 60_000 },
    );
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const log = (await c.logs('/peek')).map((l) => l.text).join('\n');
    expect(log).toContain('exit=4');
    expect(log).toContain("the metrics (they count every user's jobs) is for the cluster's owner only");
  });

  it('a busy metrics port is a clear start-up error', async () => {
    const other = await E2ECluster.create({ config: CONFIG, noStart: true });
    const blocker: Server = createServer();
    const busy = await freePort();
    await new Promise<void>((resolve) => blocker.listen(busy, '127.0.0.1', resolve));
    try {
      const r = await other.iris(['cluster', 'start', '--detach', '--metrics-port', String(busy)], {
        timeoutMs: 30_000,
      });
      expect(r.code, describeRun(['cluster', 'start'], r)).toBe(6);
      expect(r.stderr).toContain(`the metrics port ${busy} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await other.dispose();
    }
  });

  it('writes the density series and plots it as an SVG with two series', async () => {
    const live = await c.json<{
      bucketSeconds: number;
      buckets: Array<{ start: number; submissions: number; activeWorkers: number }>;
    }>(['metrics', 'density']);
    expect(live.bucketSeconds).toBe(1);
    expect(live.buckets.reduce((n, b) => n + b.submissions, 0)).toBe(4);
    expect(live.buckets.at(-1)!.activeWorkers).toBe(2);
    // Written periodically while it runs.
    const file = path.join(c.home, 'metrics', 'task_worker_density.json');
    await waitUntil(
      'the density file',
      async () => existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as typeof live).buckets.length > 0,
      Boolean,
      { timeoutMs: 15_000 },
    );
    await c.stop();
    // Written at stop, and read from the file when no cluster runs.
    const saved = JSON.parse(readFileSync(file, 'utf8')) as typeof live;
    expect(saved.buckets.reduce((n, b) => n + b.submissions, 0)).toBe(4);
    const svgFile = path.join(c.cwd, 'density.svg');
    const r = await c.iris(['metrics', 'density', '--plot', svgFile]);
    expect(r.code, describeRun(['metrics', 'density'], r)).toBe(0);
    expect(r.stdout).toContain(`wrote ${svgFile}`);
    const svg = readFileSync(svgFile, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<(path|polyline)\b/g)?.length).toBe(2);
    expect(svg).toContain('tasks submitted');
    expect(svg).toContain('active workers');
    const table = await c.iris(['metrics', 'density']);
    expect(table.stdout).toMatch(/BUCKET \(UTC\)\s+SUBMITTED\s+ACTIVE WORKERS/);
  });
});
