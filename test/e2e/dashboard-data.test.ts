/**
 * E2E: the two read routes of the dashboard's Workers view on the built binary — GET /v1/timeline
 * (which attempt ran on which worker over the last hour, a running one without an end) and GET
 * /v1/metrics/series (the in-memory samples: running tasks while a job runs, pending jobs rising
 * when one cannot fit) — and both refused to a task's token (owner only).
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { MetricsSeries } from '../../src/api/metrics.js';
import type { TimelineResponse } from '../../src/api/timeline.js';
import { waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 1GiB}
metrics:
  series-interval: 200ms
`;

function get(
  socketPath: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: 'GET', path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function getJson<T>(socketPath: string, path: string): Promise<T> {
  const r = await get(socketPath, path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

describe('the dashboard data routes', () => {
  const c = withCluster(CONFIG);
  const gate = () => c.gate('long');

  it('the timeline shows a finished and a running job with their worker, the running one without an end', async () => {
    const run = await c.iris(['run', '--name', 'short', '--cpu', '1', '--', 'true'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const before = Date.now();
    await c.submit(['--name', 'long', '--cpu', '1'], ['sh', '-c', gate().hold]);
    await c.waitForState('/long', 'RUNNING');
    const timeline = await getJson<TimelineResponse>(c.socket, '/v1/timeline');
    expect(timeline.to - timeline.from).toBe(3_600_000);
    expect(timeline.to).toBeGreaterThanOrEqual(before);
    expect(timeline.attempts.map((a) => a.job)).toEqual(['/long', '/short']);
    const [long, short] = timeline.attempts;
    expect(long).toMatchObject({ task: '/long/task-0', attempt: 0, worker: 'w0', end: null, state: 'RUNNING' });
    expect(short).toMatchObject({ task: '/short/task-0', attempt: 0, worker: 'w0', state: 'SUCCEEDED' });
    expect(short!.end).toBeGreaterThanOrEqual(short!.start);
    expect(short!.end).toBeLessThanOrEqual(long!.start);
    // `since` as epoch ms: a window that opens after the short job ended holds only the long one.
    const after = await getJson<TimelineResponse>(c.socket, `/v1/timeline?since=${short!.end! + 1}`);
    expect(after.attempts.map((a) => a.job)).toEqual(['/long']);
    expect((await get(c.socket, '/v1/timeline?since=soon')).status).toBe(400);
  });

  it('the series shows the running task, then pending jobs rising when a job cannot fit', async () => {
    const series = () => getJson<MetricsSeries>(c.socket, '/v1/metrics/series');
    const first = await series();
    expect(first.intervalMs).toBe(200);
    const running = await waitUntil(
      'a sample with the long job running',
      series,
      (s) => s.samples.some((x) => x.runningTasks >= 1 && x.pendingJobs === 0),
      { timeoutMs: 10_000 },
    );
    const busy = running.samples.find((x) => x.runningTasks >= 1)!;
    expect(busy.cpu).toEqual({ used: 1, total: 2 });
    expect(busy.memoryBytes.total).toBe(1024 ** 3);
    expect(busy.accelerators).toEqual({ used: 0, total: 0 });
    // Two CPUs asked while one is held: it waits.
    await c.submit(['--name', 'blocked', '--cpu', '2'], ['true']);
    const later = await waitUntil(
      'a sample with the blocked job pending',
      series,
      (s) => s.samples.some((x) => x.pendingJobs >= 1),
      { timeoutMs: 10_000 },
    );
    const times = later.samples.map((x) => x.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const rise = later.samples.findIndex((x) => x.pendingJobs >= 1);
    expect(later.samples.slice(0, rise).some((x) => x.pendingJobs === 0 && x.runningTasks >= 1)).toBe(true);
    expect((await c.iris(['cancel', '/blocked'])).code).toBe(0);
  });

  it("a task's token is refused both routes (they show every user's work)", async () => {
    await c.submit(
      ['--name', 'peek', '--cpu', '0.1'],
      ['sh', '-c', `echo "token=$IRIS_TASK_TOKEN"; ${c.gate('peek').hold}`],
    );
    const lines = await c.waitForLog('/peek', 'token=');
    const token = /token=(\S+)/.exec(lines.map((l) => l.text).join('\n'))![1]!;
    for (const [path, what] of [
      ['/v1/timeline', 'the timeline'],
      ['/v1/metrics/series', 'the metrics series'],
    ] as const) {
      const r = await get(c.socket, path, { 'x-iris-task-token': token });
      expect(r.status, `${path}: ${r.body}`).toBe(403);
      expect(r.body).toContain(`${what} (`);
      expect(r.body).toContain("is for the cluster's owner only");
    }
    c.gate('peek').open();
    gate().open();
  });
});
