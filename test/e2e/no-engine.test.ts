/**
 * E2E: a cluster whose Docker engine does not answer still runs process jobs, and refuses a job
 * that asks for an image at submit with the engine's address and how to start it (no stack trace,
 * nothing stored).
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeRun, withCluster } from './harness.js';

describe('a cluster with no reachable Docker engine', () => {
  const c = withCluster({ config: 'workers:\n  - {name: w0, cpu: 2, memory: 2GiB}\n', noStart: true });
  let dockerHost = '';
  beforeAll(async () => {
    dockerHost = `unix://${path.join(c.root, 'no-docker.sock')}`;
    const r = await c.iris(['cluster', 'start', '--detach'], { env: { DOCKER_HOST: dockerHost }, timeoutMs: 30_000 });
    expect(r.code, describeRun(['cluster', 'start'], r)).toBe(0);
  });

  it('refuses --image at submit with the address and a hint, and still runs process jobs', async () => {
    const args = ['submit', '--name', 'boxed', '--image', 'iris-test/busybox', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(6);
    expect(r.stderr).toContain(`Docker engine not reachable at ${dockerHost}`);
    expect(r.stderr).toMatch(/start it with "sudo systemctl start docker"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await c.jobs()).toEqual([]);

    const run = await c.iris(['run', '--name', 'plain', '--', 'sh', '-c', 'echo ran']);
    expect(run.code, describeRun(['run'], run)).toBe(0);
    expect(run.stdout).toMatch(/ran/);
  });
});
