/**
 * E2E: the detached cluster process (server/cluster-process.ts, started by `cluster start
 * --detach`): its resident memory stays small while it runs process jobs (no Docker client, no CLI
 * framework, no per-attempt buffers left to the collector; bench/memory.mjs measures the same on
 * a bigger scale), it gives a burst's garbage back once it is quiet (server/idle-compaction.ts),
 * it stops gracefully on SIGTERM, and a bad config is a usage error.
 *
 * The memory bounds are generous (about 20% above what a quiet 2-core machine shows): they catch a
 * cluster that loads what it does not need or lets its heap grow with garbage, not noise.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { E2ECluster, describeRun, isRunning, waitUntil } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 8, memory: 8GiB}
`;

/** VmRSS and VmHWM of `pid` in MB. */
function memoryOf(pid: number): { rssMB: number; hwmMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

describe('the detached cluster process', () => {
  const clusters: E2ECluster[] = [];
  afterAll(async () => {
    for (const c of clusters) await c.dispose();
  });

  it('stays small: idle, after 600 trivial tasks (RSS once it is quiet), and at its peak', {
    timeout: 180_000,
  }, async () => {
    const c = await E2ECluster.create({ config: CONFIG });
    clusters.push(c);
    const pid = c.pid()!;
    const idle = memoryOf(pid);
    // ~74 MB quietly (~92 before the start-up compaction and without undici, TLS and zlib loaded).
    expect(idle.rssMB, `idle RSS ${idle.rssMB.toFixed(1)} MB`).toBeLessThan(90);
    const { name } = await c.client.submit({
      name: 'trivial',
      command: ['true'],
      cpu: 1,
      memory: '16M',
      replicas: 600,
    });
    const ended = await c.waitForEnd(name, { timeoutMs: 150_000 });
    expect(ended.state).toBe('SUCCEEDED');
    // Once quiet, the cluster gives the burst's garbage back (idle-compaction.ts, right after the
    // end event went out): ~84 MB quietly, ~117 MB when the cluster kept the burst's heap.
    const after = await waitUntil(
      "the burst's heap given back",
      async () => memoryOf(pid),
      (m) => m.rssMB < 100,
      { timeoutMs: 5_000 },
    ).catch(() => memoryOf(pid));
    expect(
      after.rssMB,
      `RSS ${after.rssMB.toFixed(1)} MB within 5 s of the end of 600 tasks (idle ${idle.rssMB.toFixed(1)} MB)`,
    ).toBeLessThan(100);
    expect(
      after.hwmMB,
      `peak RSS ${after.hwmMB.toFixed(1)} MB after 600 tasks (idle ${idle.rssMB.toFixed(1)} MB)`,
    ).toBeLessThan(140);
  });

  it('stops gracefully on SIGTERM, and refuses a bad config file with exit 2 naming it', {
    timeout: 60_000,
  }, async () => {
    const c = await E2ECluster.create({ config: CONFIG });
    clusters.push(c);
    const pid = c.pid()!;
    process.kill(pid, 'SIGTERM');
    await waitUntil(
      'the cluster process to exit',
      async () => isRunning(pid),
      (running) => !running,
      { timeoutMs: 20_000 },
    );
    const log = readFileSync(path.join(c.home, 'cluster.log'), 'utf8');
    expect(log).toContain('iris cluster ready on');
    expect(log).toContain('iris cluster stopped');

    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), 'workers: 5\n');
    const r = await c.iris(['cluster', 'start', '--detach']);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
    expect(r.stderr).toContain('.irisrc.yaml: workers: expected a list of workers');
    expect(r.stderr).toContain('Hint:');
  });
});
