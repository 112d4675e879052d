/**
 * `iris config` (issue 34 §2): the effective settings with where each came from, like `scontrol
 * show config`. Every key of the config schema is listed once as a dotted path, with `file`,
 * `default`, `env` (IRIS_HOME, IRIS_CONFIG picks the file) or `flag` (--metrics-port); a running
 * cluster that loaded another file is named.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configKeys } from '../../src/config/effective.js';
import { describeRun, E2ECluster } from './harness.js';

interface Setting {
  key: string;
  value: string;
  source: string;
  by?: string;
}
interface View {
  config: { path: string | null; origin: string | null };
  running: {
    pid: number;
    config: { path: string | null };
    metrics: { url: string | null };
    sameFile: boolean;
    changedSinceStart: boolean;
  } | null;
  settings: Setting[];
}

const CONFIG = 'stop-grace: 30s\nqueue:\n  policy: fcfs\nworkers:\n  - {name: w0, cpu: 1, memory: 1GiB}\n';

const clusters: E2ECluster[] = [];
async function cluster(config?: string): Promise<E2ECluster> {
  const c = await E2ECluster.create({ ...(config === undefined ? {} : { config }), noStart: true });
  clusters.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.dispose()));
});

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

const byKey = (view: View) => new Map(view.settings.map((s) => [s.key, s]));

describe('iris config', () => {
  it('lists every key of the schema once, each with its value and source (file or default)', async () => {
    const c = await cluster(CONFIG);
    const file = path.join(realpathSync(c.cwd), '.irisrc.yaml');
    const view = await c.json<View>(['config']);
    expect(view.config).toEqual({ path: file, origin: 'search' });
    expect(view.running).toBeNull();
    const settings = byKey(view);
    expect(settings.get('stop-grace')).toEqual({ key: 'stop-grace', value: '30s', source: 'file', by: file });
    expect(settings.get('queue.policy')).toMatchObject({ value: 'fcfs', source: 'file' });
    expect(settings.get('queue.depth')).toEqual({ key: 'queue.depth', value: '32', source: 'default' });
    expect(settings.get('deadlock-grace')).toMatchObject({ value: '30s', source: 'default' });
    expect(settings.get('runtime')).toMatchObject({ value: 'process', source: 'default' });
    expect(settings.get('backend.kind')).toMatchObject({ value: 'local', source: 'default' });
    expect(settings.get('workers[0].memory')).toMatchObject({ value: '1GiB', source: 'file' });
    expect(settings.get('home')).toEqual({ key: 'home', value: c.home, source: 'env', by: 'IRIS_HOME' });
    // Every schema key appears (a list the file gives, as its entries), and no key twice.
    const keys = view.settings.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const schemaKey of configKeys().map((k) => k.join('.'))) {
      expect(keys.some((k) => k === schemaKey || k.startsWith(`${schemaKey}[`) || k.startsWith(`${schemaKey}.`))).toBe(
        true,
      );
    }
  });

  it('prints one aligned line per key with the source in its own column', async () => {
    const c = await cluster(CONFIG);
    const r = await c.iris(['config']);
    expect(r.code, describeRun(['config'], r)).toBe(0);
    const file = path.join(realpathSync(c.cwd), '.irisrc.yaml');
    expect(r.stdout).toContain(`Config file:  ${file} (found by searching from`);
    const lines = r.stdout.split('\n');
    const header = lines.find((l) => l.startsWith('KEY'))!;
    expect(header).toMatch(/^KEY\s+VALUE\s+SOURCE$/);
    const column = header.indexOf('SOURCE');
    const row = (key: string) => lines.find((l) => l.startsWith(`${key} `))!;
    expect(row('stop-grace')).toMatch(/^stop-grace\s+30s\s+file$/);
    expect(row('placement.merge.max-batch')).toMatch(/^placement\.merge\.max-batch\s+4\s+default$/);
    expect(row('stop-grace').indexOf('file')).toBe(column);
    expect(row('queue.depth').indexOf('default')).toBe(column);
  });

  it('flags and the environment: --metrics-port, IRIS_CONFIG, and no file at all', async () => {
    const c = await cluster(CONFIG);
    const flagged = byKey(await c.json<View>(['config', '--metrics-port', '9464']));
    expect(flagged.get('metrics.port')).toEqual({
      key: 'metrics.port',
      value: '9464',
      source: 'flag',
      by: '--metrics-port',
    });
    const other = path.join(c.root, 'other');
    mkdirSync(other);
    const otherFile = path.join(other, 'iris.yaml');
    writeFileSync(otherFile, 'time-limit: 2h\n', { mode: 0o644 });
    const viaEnv = await c.json<View>(['config'], { env: { IRIS_CONFIG: otherFile } });
    expect(viaEnv.config).toEqual({ path: otherFile, origin: 'env' });
    expect(byKey(viaEnv).get('time-limit')).toMatchObject({ value: '2h', source: 'file' });
    expect(byKey(viaEnv).get('stop-grace')).toMatchObject({ value: '10s', source: 'default' });
    const bare = await c.json<View>(['config'], { cwd: other });
    expect(bare.config).toEqual({ path: null, origin: null });
    expect(bare.settings.every((s) => s.source !== 'file')).toBe(true);
    const text = await c.iris(['config'], { cwd: other });
    expect(text.stdout).toMatch(/^Config file:\s+none: built-in defaults/m);
  });

  it('no file: the built-in worker is one line per key, with the config key names, source default', async () => {
    const c = await cluster(CONFIG);
    const other = path.join(c.root, 'bare');
    mkdirSync(other);
    const bare = await c.json<View>(['config'], { cwd: other });
    const workers = bare.settings.filter((s) => s.key.startsWith('workers'));
    const keys = ['name', 'cpu', 'memory', 'privileged', 'cost-per-hour'].map((k) => `workers[0].${k}`);
    expect(workers.map((s) => s.key)).toEqual(keys);
    expect(workers.every((s) => s.source === 'default')).toBe(true);
    expect(workers[0]).toEqual({ key: 'workers[0].name', value: 'local', source: 'default' });
    expect(workers[1]!.value).toMatch(/^\d+(\.\d+)?$/);
    expect(workers[2]!.value).toMatch(/^\d+(\.\d+)?[KMGT]iB$/);
    const text = await c.iris(['config'], { cwd: other });
    expect(text.stdout).toMatch(/^workers\[0\]\.name\s+local\s+default$/m);
    // No map widens the VALUE column: every row stays narrow.
    const rows = text.stdout.split('\n').filter((l) => /^[a-z]/.test(l));
    expect(rows.filter((l) => l.includes('{'))).toEqual([]);
    expect(Math.max(...rows.map((l) => l.length))).toBeLessThan(80);
  });

  it("a file's worker lists the defaults of the keys it leaves out, and only those that have one", async () => {
    const c = await cluster('workers:\n  - {name: w0, memory: 1GiB}\n');
    const workers = (await c.json<View>(['config'])).settings.filter((s) => s.key.startsWith('workers'));
    expect(workers.map((s) => `${s.key} ${s.value} ${s.source}`)).toEqual([
      'workers[0].name w0 file',
      'workers[0].memory 1GiB file',
      'workers[0].cpu 1 default',
      'workers[0].privileged false default',
      'workers[0].cost-per-hour 1 default',
    ]);
    const text = (await c.iris(['config'])).stdout;
    expect(text).toMatch(/^workers\[0\]\.cost-per-hour\s+1\s+default$/m);
    expect(text).not.toMatch(/^workers\[0\]\.(count|gpu|tpu|hostname|power-watts)/m);
  });

  it('a missing --config file is named as from --config, with a hint about --config', async () => {
    const c = await cluster(CONFIG);
    const missing = path.join(c.root, 'nope.yaml');
    const r = await c.iris(['config', '--config', missing]);
    expect(r.code, describeRun(['config'], r)).toBe(2);
    expect(r.stderr).toContain(`Error: config file not found: ${missing} (from --config)`);
    expect(r.stderr).toContain('Hint: fix the path, or drop --config to search for .irisrc.yaml / iris.config.ts');
    expect(r.stderr).not.toContain('unset IRIS_CONFIG');
    // The path from IRIS_CONFIG still says so.
    const viaEnv = await c.iris(['config'], { env: { IRIS_CONFIG: missing } });
    expect(viaEnv.stderr).toContain(`Error: config file not found: ${missing} (from IRIS_CONFIG)`);
    expect(viaEnv.stderr).toContain('unset IRIS_CONFIG');
  });

  it('names the running cluster and its metrics URL, and says when it loaded another file', async () => {
    const c = await cluster(CONFIG);
    const port = await freePort();
    const args = ['cluster', 'start', '--detach', '--metrics-port', String(port)];
    const started = await c.iris(args, { timeoutMs: 30_000 });
    expect(started.code, describeRun(args, started)).toBe(0);
    const url = `http://127.0.0.1:${port}/metrics`;
    const same = await c.json<View>(['config']);
    expect(same.running).toMatchObject({ sameFile: true, changedSinceStart: false, metrics: { url } });
    expect((await c.iris(['config'])).stdout).toMatch(
      /^Cluster:\s+running \(pid \d+\) with this file; metrics on http/m,
    );
    // The cluster read its file once, at start: a later change is pointed out.
    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), `${CONFIG}time-limit: 2h\n`);
    expect((await c.json<View>(['config'])).running).toMatchObject({ sameFile: true, changedSinceStart: true });
    expect((await c.iris(['config'])).stdout).toContain('changed after it started');
    const otherFile = path.join(c.root, 'iris.yaml');
    writeFileSync(otherFile, 'time-limit: 2h\n', { mode: 0o644 });
    const other = await c.json<View>(['config', '--config', otherFile]);
    const loaded = path.join(realpathSync(c.cwd), '.irisrc.yaml');
    expect(other.running).toMatchObject({ config: { path: loaded }, sameFile: false });
    const text = await c.iris(['config', '--config', otherFile]);
    expect(text.stdout).toContain(`with ${loaded}, not the file above`);
  });
});
