/**
 * E2E: logs under load, with bounded sizes — 200 jobs running at once, each printing 1,000
 * numbered lines, are all read back complete and in order (every job through the log route the
 * CLI uses, and a sample through `iris logs` itself).
 */
import { describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const JOBS = 200;
const LINES = 1000;
const CONFIG = `
stop-grace: 1s
workers:
  - {name: wide, cpu: 64, memory: 64GiB}
`;

const expected = (job: number) => Array.from({ length: LINES }, (_, i) => `job ${job} line ${i + 1}`);

describe('logs under load', () => {
  const c = withCluster(CONFIG);

  it(`${JOBS} jobs x ${LINES} numbered lines are read back complete and in order`, { timeout: 240_000 }, async () => {
    const clients = Array.from({ length: 10 }, () => new SocketClient({ socketPath: c.socket, env: {} }));
    await Promise.all(
      clients.map(async (client, k) => {
        for (let j = k; j < JOBS; j += clients.length) {
          await client.submit({
            name: `lines-${j}`,
            command: ['seq', '-f', `job ${j} line %g`, '1', String(LINES)],
            cpu: 0.05,
            memory: '16M',
          });
        }
      }),
    );
    const done = await waitUntil(
      `all ${JOBS} jobs to end`,
      () => c.client.jobs(),
      (jobs) => jobs.length === JOBS && jobs.every((j) => j.state === 'SUCCEEDED' || j.state === 'FAILED'),
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    expect(done.filter((j) => j.state !== 'SUCCEEDED')).toEqual([]);

    for (let j = 0; j < JOBS; j++) {
      const lines = await c.logs(`/lines-${j}`);
      expect(
        lines.map((l) => l.text),
        `/lines-${j}`,
      ).toEqual(expected(j));
      expect(new Set(lines.map((l) => l.stream))).toEqual(new Set(['stdout']));
    }
    for (const j of [0, 99, JOBS - 1]) {
      const args = ['logs', `lines-${j}`];
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(0);
      const texts = r.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.slice(line.indexOf(`job ${j} line`)));
      expect(texts).toEqual(expected(j));
    }
  });
});
