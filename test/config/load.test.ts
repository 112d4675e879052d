import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IrisError } from '../../src/model/errors.js';
import { loadConfig } from '../../src/config/index.js';
import { rejection } from '../helpers/refusal.js';

let root: string;
let savedXdg: string | undefined;
let counter = 0;

/**
 * A fresh directory under the test root; each test gets its own tree. Modes are set explicitly:
 * iris refuses a config that others could change (src/config/find.ts), so a umask of 002 must not
 * make these files group-writable.
 */
async function freshDir(): Promise<string> {
  const dir = path.join(root, `case-${counter++}`);
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

async function write(file: string, content: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  await chmod(file, 0o644);
  return file;
}

const loadError = (promise: Promise<unknown>): Promise<IrisError> => rejection(promise);

const YAML_CONFIG = `
home: ~/.iris-dev
stop-grace: 5s
workers:
  - name: cpu-0
    cpu: 8
    memory: 16GiB
    attributes: { region: us-central1 }
  - name: gpu-0
    cpu: 16
    memory: 64GiB
    gpu: { variant: H100, count: 8 }
  - name: tpu-a-0
    cpu: 8
    memory: 32GiB
    tpu: { variant: v5litepod-16 }
    attributes: { tpu-name: slice-a, tpu-worker-id: 0 }
quotas:
  alice: { cpu: 8, memory: 32GiB, accelerators: 8, pending-tasks: 100 }
`;

beforeAll(async () => {
  // realpath: cosmiconfig reports resolved paths; /tmp may be a symlink on some systems.
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'iris-config-')));
  await chmod(root, 0o755);
  // Keep the global config dir (~/.config/iris) of whoever runs the tests out of the search.
  savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = path.join(root, 'xdg');
});

afterAll(async () => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  await rm(root, { recursive: true, force: true });
});

// loadConfig reads XDG_CONFIG_HOME from the env it is given.
const env: NodeJS.ProcessEnv = {};
beforeEach(() => {
  for (const key of Object.keys(env)) delete env[key];
  env.XDG_CONFIG_HOME = path.join(root, 'xdg');
});

describe('loadConfig: searching', () => {
  it('finds .irisrc.yaml in a parent directory (walks up from cwd)', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, '.irisrc.yaml'), YAML_CONFIG);
    const deep = path.join(project, 'src', 'jobs', 'deep');
    await mkdir(deep, { recursive: true });
    const config = await loadConfig({ cwd: deep, env });
    expect(config.source).toBe(file);
    expect(config.home).toBe(path.join(os.homedir(), '.iris-dev'));
    expect(config.defaults.stopGraceMs).toBe(5000);
    expect(config.workers.map((w) => w.id)).toEqual(['cpu-0', 'gpu-0', 'tpu-a-0']);
    expect(config.workers[2]!.attributes).toEqual({
      'tpu-name': 'slice-a',
      'tpu-worker-id': '0',
      'device-type': 'tpu',
      'device-variant': 'v5litepod-16',
    });
    expect(config.workers[2]!.device).toEqual({ type: 'tpu', variant: 'v5litepod-16', count: 4 });
    expect(config.workers[1]!.attributes).toEqual({ 'device-type': 'gpu', 'device-variant': 'H100' });
    expect(config.workers[0]!.attributes).toEqual({ region: 'us-central1', 'device-type': 'cpu' });
    expect(config.quotas.get('alice')).toEqual({
      maxRunningCpuMillis: 8000,
      maxRunningMemoryBytes: 32 * 1024 ** 3,
      maxRunningAccelerators: 8,
      maxPendingTasks: 100,
      weight: 1,
      hard: false,
    });
  });

  it('the nearest file wins over one further up', async () => {
    const project = await freshDir();
    await write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: outer }]\n');
    const inner = await write(path.join(project, 'sub', '.irisrc.yml'), 'workers: [{ name: inner }]\n');
    await mkdir(path.join(project, 'sub', 'leaf'), { recursive: true });
    const config = await loadConfig({ cwd: path.join(project, 'sub', 'leaf'), env });
    expect(config.source).toBe(inner);
    expect(config.workers[0]!.id).toBe('inner');
  });

  it('stops at stopDir', async () => {
    const project = await freshDir();
    await write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: outer }]\n');
    const sub = path.join(project, 'sub');
    await mkdir(sub, { recursive: true });
    const config = await loadConfig({ cwd: sub, env, stopDir: sub });
    expect(config.source).toBeNull();
  });

  it('defaults when no file is found', async () => {
    const empty = await freshDir();
    const probe = {
      cpus: () => 3,
      memoryBytes: () => 5 * 1024 ** 3,
      gpus: () => [{ index: 0, name: 'NVIDIA L4' }],
      tpuDevicePaths: () => [],
    };
    const config = await loadConfig({ cwd: empty, env, stopDir: empty, probe });
    expect(config.source).toBeNull();
    expect(config.home).toBeNull();
    expect(config.workers).toEqual([
      {
        id: 'local',
        cpuMillis: 3000,
        memoryBytes: 5 * 1024 ** 3,
        device: { type: 'gpu', variant: 'L4', count: 1 },
        attributes: { 'device-type': 'gpu', 'device-variant': 'L4' },
      },
    ]);
    expect(config.quotas.size).toBe(0);
    expect(config.defaults).toEqual({
      maxPreemptions: 100,
      stopGraceMs: 10_000,
      timeLimitMs: 24 * 3_600_000,
      retryBackoffMs: null,
    });
    expect(config.queue).toEqual({ policy: 'easy', depth: 32, reservationDepth: 64, maxReservationDepth: 100_000 });
    expect(config.runtime).toEqual({
      kind: 'process',
      image: null,
      network: null,
      containerUser: '65534:65534',
      containerProcessChildren: false,
      workspace: true,
      mounts: [],
    });
  });

  it('an empty rc file is skipped by the search', async () => {
    const project = await freshDir();
    await write(path.join(project, '.irisrc.yaml'), '');
    const config = await loadConfig({ cwd: project, env, stopDir: project });
    expect(config.source).toBeNull();
  });

  it('loads iris.config.ts (Node type stripping)', async () => {
    const project = await freshDir();
    const file = await write(
      path.join(project, 'iris.config.ts'),
      `interface Worker { name: string; cpu: number; memory: string; gpu?: { variant: string; count: number } }
const gpus: number = 4;
const workers: Worker[] = [
  { name: 'ts-cpu', cpu: 2, memory: '4GiB' },
  { name: 'ts-gpu', cpu: 8, memory: '32GiB', gpu: { variant: 'A100', count: gpus } },
];
export default {
  'stop-grace': '250ms',
  workers,
  quotas: { bob: { 'pending-tasks': 5 } as const },
} satisfies Record<string, unknown>;
`,
    );
    // Also a YAML file in the same directory: iris.config.ts comes first.
    await write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: yaml }]\n');
    const sub = path.join(project, 'nested');
    await mkdir(sub, { recursive: true });
    const config = await loadConfig({ cwd: sub, env });
    expect(config.source).toBe(file);
    expect(config.defaults.stopGraceMs).toBe(250);
    expect(config.workers.map((w) => [w.id, w.cpuMillis, w.device])).toEqual([
      ['ts-cpu', 2000, { type: 'cpu', variant: null, count: 0 }],
      ['ts-gpu', 8000, { type: 'gpu', variant: 'A100', count: 4 }],
    ]);
    expect(config.quotas.get('bob')?.maxPendingTasks).toBe(5);
  });

  it('an iris.config.mjs exporting a function', async () => {
    const project = await freshDir();
    const file = await write(
      path.join(project, 'iris.config.mjs'),
      `export default async () => ({ workers: [{ name: 'from-fn', cpu: 3 }] });\n`,
    );
    const config = await loadConfig({ cwd: project, env, stopDir: project });
    expect(config.source).toBe(file);
    expect(config.workers[0]).toMatchObject({ id: 'from-fn', cpuMillis: 3000 });
  });

  it('reads the iris key of package.json, and .irisrc without extension', async () => {
    const a = await freshDir();
    const pkg = await write(
      path.join(a, 'package.json'),
      JSON.stringify({ name: 'x', iris: { workers: [{ name: 'pkg', cpu: 2 }] } }),
    );
    const fromPkg = await loadConfig({ cwd: a, env, stopDir: a });
    expect(fromPkg.source).toBe(pkg);
    expect(fromPkg.workers[0]!.id).toBe('pkg');

    const b = await freshDir();
    await write(path.join(b, 'package.json'), JSON.stringify({ name: 'y' }));
    const rc = await write(path.join(b, '.irisrc'), 'workers:\n  - name: plain-rc\n');
    const fromRc = await loadConfig({ cwd: b, env, stopDir: b });
    expect(fromRc.source).toBe(rc);
    expect(fromRc.workers[0]!.id).toBe('plain-rc');
  });

  it('reads .irisrc.json', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, '.irisrc.json'), JSON.stringify({ 'max-preemptions': 7 }));
    const config = await loadConfig({ cwd: project, env, stopDir: project });
    expect(config.source).toBe(file);
    expect(config.defaults.maxPreemptions).toBe(7);
  });
});

describe('loadConfig: explicit paths', () => {
  it('explicitPath loads that file, relative to cwd, ignoring the search', async () => {
    const project = await freshDir();
    await write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: searched }]\n');
    const file = await write(
      path.join(project, 'conf', 'cluster.yaml'),
      'workers: [{ name: explicit, memory: 1GiB }]\n',
    );
    const config = await loadConfig({ cwd: project, explicitPath: 'conf/cluster.yaml', env });
    expect(config.source).toBe(file);
    expect(config.workers[0]).toMatchObject({ id: 'explicit', memoryBytes: 1024 ** 3 });
  });

  it('IRIS_CONFIG acts as an explicit path; explicitPath wins over it', async () => {
    const project = await freshDir();
    const viaEnv = await write(path.join(project, 'env.yaml'), 'workers: [{ name: via-env }]\n');
    const viaArg = await write(path.join(project, 'arg.yaml'), 'workers: [{ name: via-arg }]\n');
    env.IRIS_CONFIG = viaEnv;
    expect((await loadConfig({ cwd: '/', env })).workers[0]!.id).toBe('via-env');
    expect((await loadConfig({ cwd: '/', env, explicitPath: viaArg })).workers[0]!.id).toBe('via-arg');
  });

  it('a missing explicit file is a clear error', async () => {
    const project = await freshDir();
    const error = await loadError(loadConfig({ cwd: project, explicitPath: 'nope.yaml', env }));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toBe(`config file not found: ${path.join(project, 'nope.yaml')} (from --config)`);
    expect(error.hint).toBe('fix the path, or drop --config to search for .irisrc.yaml / iris.config.ts');

    env.IRIS_CONFIG = path.join(project, 'gone.yaml');
    const fromEnv = await loadError(loadConfig({ cwd: project, env }));
    expect(fromEnv.message).toBe(`config file not found: ${path.join(project, 'gone.yaml')} (from IRIS_CONFIG)`);
    expect(fromEnv.hint).toBe('check the path, or unset IRIS_CONFIG to search for .irisrc.yaml / iris.config.ts');
    const both = await loadError(loadConfig({ cwd: project, explicitPath: 'nope.yaml', env }));
    expect(both.hint).toBe(`fix the path, or drop --config to load IRIS_CONFIG (${env.IRIS_CONFIG})`);
  });

  it('an explicit directory is an error', async () => {
    const project = await freshDir();
    const error = await loadError(loadConfig({ cwd: project, explicitPath: project, env }));
    expect(error.message).toMatch(/config path is not a file/);
  });

  it('an empty explicit file gives defaults but reports its path', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, 'empty.yaml'), '');
    const config = await loadConfig({ cwd: project, explicitPath: file, env });
    expect(config.source).toBe(file);
    expect(config.workers[0]!.id).toBe('local');
  });
});

describe('loadConfig: errors name the file and the key', () => {
  it('validation errors in a found YAML file carry its full path', async () => {
    const project = await freshDir();
    const file = await write(
      path.join(project, '.irisrc.yaml'),
      'workers:\n  - name: a\n  - name: b\n    memory: lots\n',
    );
    const sub = path.join(project, 'deeper');
    await mkdir(sub, { recursive: true });
    const error = await loadError(loadConfig({ cwd: sub, env }));
    expect(error.message).toBe(
      `${file}: workers[1].memory: invalid memory "lots": expected a size such as 512M, 4GiB or 2G`,
    );
  });

  it('validation errors in a TS file carry its path', async () => {
    const project = await freshDir();
    const file = await write(
      path.join(project, 'iris.config.ts'),
      `const config: { workers: Array<{ name: string; cpus: number }> } = { workers: [{ name: 'a', cpus: 2 }] ` +
        `};\nexport default config;\n`,
    );
    const error = await loadError(loadConfig({ cwd: project, env, stopDir: project }));
    expect(error.message).toBe(`${file}: workers[0].cpus: unknown key (did you mean "cpu"?)`);
  });

  it('YAML syntax errors name the file', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, '.irisrc.yaml'), 'workers:\n  - name: a\n   cpu: [1\n');
    const error = await loadError(loadConfig({ cwd: project, env, stopDir: project }));
    expect(error.code).toBe('invalid_argument');
    expect(error.message.startsWith(`${file}: invalid YAML: `)).toBe(true);
  });

  it('duplicate YAML keys are rejected', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, '.irisrc.yaml'), 'home: /a\nhome: /b\n');
    const error = await loadError(loadConfig({ cwd: project, env, stopDir: project }));
    expect(error.message.startsWith(`${file}: invalid YAML: `)).toBe(true);
  });

  it('JSON syntax errors name the file', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, '.irisrc.json'), '{ "workers": [ }');
    const error = await loadError(loadConfig({ cwd: project, env, stopDir: project }));
    expect(error.message.startsWith(`${file}: invalid JSON: `)).toBe(true);
  });

  it('a TS file that does not load names the file', async () => {
    const project = await freshDir();
    const file = await write(path.join(project, 'iris.config.ts'), `export default { workers: [ ;\n`);
    const error = await loadError(loadConfig({ cwd: project, env, stopDir: project }));
    expect(error.code).toBe('invalid_argument');
    expect(error.message.startsWith(`${file}: could not load: `)).toBe(true);
  });
});
