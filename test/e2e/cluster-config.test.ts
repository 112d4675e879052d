/**
 * What the running cluster was started with (issue 34 §2): `iris cluster status` names the config
 * file it loaded (or says it runs on the defaults) and its metrics URL; `cluster start --detach
 * --metrics-port N` prints that URL; a failed detached start shows only its own output, not an
 * earlier start's errors; a `backend:` block without `kind` is the local backend.
 */
import { createServer } from 'node:net';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterInfo, WorkerInfo } from '../../src/api/types.js';
import { describeRun, E2ECluster } from './harness.js';

const WORKER = 'workers:\n  - {name: w0, cpu: 1, memory: 1GiB}\n';

/** A TCP port nothing listens on now (the kernel's pick for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const clusters: E2ECluster[] = [];
async function cluster(config?: string): Promise<E2ECluster> {
  const c = await E2ECluster.create({ ...(config === undefined ? {} : { config }), noStart: true });
  clusters.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.dispose()));
});

describe('iris cluster status: the config file and the metrics URL', () => {
  it('names the config file the cluster loaded, in text and --json', async () => {
    const c = await cluster(WORKER);
    await c.start();
    const file = path.join(realpathSync(c.cwd), '.irisrc.yaml');
    const info = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(info.config).toEqual({ path: file });
    expect(info.metrics).toEqual({ url: null });
    const text = await c.iris(['cluster', 'status']);
    expect(text.code, describeRun(['cluster', 'status'], text)).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Config:\\s+${file.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(text.stdout).not.toMatch(/^Metrics:/m);
  });

  it('says the cluster runs on the defaults when no file was found: path null', async () => {
    const c = await cluster();
    await c.start();
    const info = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(info.config).toEqual({ path: null });
    const text = await c.iris(['cluster', 'status']);
    expect(text.stdout).toMatch(/^Config:\s+.*defaults/m);
  });

  it('--metrics-port N: start --detach prints the metrics URL and status shows it', async () => {
    const c = await cluster(WORKER);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/metrics`;
    const args = ['cluster', 'start', '--detach', '--metrics-port', String(port)];
    const started = await c.iris(args, { timeoutMs: 30_000 });
    expect(started.code, describeRun(args, started)).toBe(0);
    expect(started.stdout).toContain(`metrics on ${url}`);
    expect((await c.json<ClusterInfo>(['cluster', 'status'])).metrics).toEqual({ url });
    expect((await c.iris(['cluster', 'status'])).stdout).toMatch(new RegExp(`^Metrics:\\s+${url}$`, 'm'));
    const scrape = await fetch(url);
    expect(scrape.status).toBe(200);
  });
});

describe('iris cluster start --detach that fails', () => {
  it("shows only this start's output, not an earlier start's errors", async () => {
    const c = await cluster('stop-grace: soonish\n');
    const first = await c.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
    expect(first.code, describeRun(['cluster', 'start'], first)).toBe(2);
    expect(first.stderr).toContain('soonish');
    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), 'time-limit: never-ish\n');
    const second = await c.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
    expect(second.code, describeRun(['cluster', 'start'], second)).toBe(2);
    expect(second.stderr).toContain('never-ish');
    expect(second.stderr).not.toContain('soonish');
  });

  it('a missing --config file is named as from --config, with a hint about --config', async () => {
    const c = await cluster(WORKER);
    const missing = path.join(c.root, 'nope.yaml');
    const args = ['cluster', 'start', '--detach', '--config', missing];
    const r = await c.iris(args, { timeoutMs: 30_000 });
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toContain(`Error: config file not found: ${missing} (from --config)`);
    expect(r.stderr).toContain('fix the path, or drop --config to search for .irisrc.yaml / iris.config.ts');
    expect(r.stderr).not.toContain('unset IRIS_CONFIG');
  });
});

describe('backend: a block without kind', () => {
  it('is the local backend, as configuration.md says', async () => {
    const c = await cluster(`backend: {}\n${WORKER}`);
    const r = await c.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(0);
    const workers = await c.json<WorkerInfo[]>(['workers']);
    expect(workers.map((w) => w.id)).toEqual(['w0']);
  });
});
