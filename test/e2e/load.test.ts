/**
 * E2E: load — 500 submissions from 20 concurrent socket clients (plus a few concurrent CLI
 * submissions) are all accepted with unique names and none is lost.
 */
import { describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import type { JobSummary, SubmitResponse } from '../../src/api/types.js';
import { ARRIVAL_PASS_INTERVAL_MS } from '../../src/cluster/controller/controller.js';
import { waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: wide, cpu: 64, memory: 64GiB}
`;

describe('load', () => {
  const c = withCluster(CONFIG);

  it('500 submissions from 20 concurrent clients are all accepted with unique names, none lost', {
    timeout: 120_000,
  }, async () => {
    const clients = Array.from({ length: 20 }, () => new SocketClient({ socketPath: c.socket, env: {} }));
    const accepted: SubmitResponse[] = [];
    const errors: unknown[] = [];
    await Promise.all(
      clients.map(async (client, i) => {
        for (let k = 0; k < 25; k++) {
          // Half with generated names (the uniqueness check under contention), half named.
          const request =
            k % 2 === 0
              ? { command: ['true'], cpu: 0.05, memory: '16M' }
              : { name: `load-${i}-${k}`, command: ['true'], cpu: 0.05, memory: '16M' };
          try {
            accepted.push(await client.submit(request));
          } catch (error) {
            errors.push(error);
          }
        }
      }),
    );
    expect(errors.map(String)).toEqual([]);
    expect(accepted).toHaveLength(500);
    const names = new Set(accepted.map((r) => r.name));
    expect(names.size).toBe(500);

    const listed = await c.json<JobSummary[]>(['jobs', '--all']);
    const listedNames = new Set(listed.map((j) => j.name));
    for (const name of names) expect(listedNames.has(name)).toBe(true);
    expect(listed).toHaveLength(500);

    const finished = await waitUntil(
      'all 500 jobs to succeed',
      () => c.client.jobs(),
      (jobs) => jobs.length === 500 && jobs.every((j) => j.state === 'SUCCEEDED'),
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(finished.filter((j) => j.state === 'SUCCEEDED')).toHaveLength(500);
  });

  it('concurrent CLI submissions are all accepted', async () => {
    const results: string[] = [];
    const queue = Array.from({ length: 12 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          results.push(await c.submit(['--name', `cli-${i}`, '--cpu', '0.05'], ['true']));
        }
      }),
    );
    expect(new Set(results).size).toBe(12);
    const listed = await c.client.jobs();
    expect(listed.filter((j) => j.name.startsWith('/cli-'))).toHaveLength(12);
  });

  it('a burst of 1,000 submissions behind a full cluster is scheduled in far fewer passes, and all run', {
    timeout: 180_000,
  }, async () => {
    const gate = c.gate('burst');
    await c.submit(['--name', 'burst-hold', '--cpu', '64'], ['sh', '-c', gate.hold]);
    await c.waitForState('/burst-hold', 'RUNNING');
    const before = (await c.client.cluster()).queue.passes;
    const clients = Array.from({ length: 20 }, () => new SocketClient({ socketPath: c.socket, env: {} }));
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, i) => {
        for (let k = 0; k < 50; k++)
          await client.submit({ name: `burst-${i}-${k}`, command: ['true'], cpu: 0.5, memory: '16M' });
      }),
    );
    const elapsedMs = performance.now() - started;
    const info = await c.client.cluster();
    expect(info.queue.pending).toBe(1000);
    const passes = info.queue.passes - before;
    console.log(`1,000 submissions from 20 clients in ${Math.round(elapsedMs)} ms: ${passes} scheduling passes`);
    expect(passes).toBeGreaterThan(0);
    // Passes for submissions alone run at most every ARRIVAL_PASS_INTERVAL_MS (one more may follow the last).
    expect(passes).toBeLessThanOrEqual(Math.ceil(elapsedMs / ARRIVAL_PASS_INTERVAL_MS) + 2);
    expect(passes).toBeLessThan(500);
    gate.open();
    const done = await waitUntil(
      'all 1,000 burst jobs to end',
      () => c.client.cluster(),
      (now) => now.queue.pending === 0 && now.queue.running === 0,
      { timeoutMs: 150_000, intervalMs: 500 },
    );
    expect(done.queue.jobs.FAILED ?? 0).toBe(0);
  });
});
