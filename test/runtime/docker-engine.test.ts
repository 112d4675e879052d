/**
 * DockerRuntime behaviour beyond the shared contract, on the REAL engine: OOM kills, env/cwd,
 * labels, limits and the capability profile as the engine applied them, device mapping with a
 * stand-in, GPU device requests (created and inspected; the start fails clearly without the
 * NVIDIA runtime), containers removed from outside, reclaim of stopped containers, an absent
 * engine, a missing image, and a container reaching a host unix socket through a bind mount.
 */
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerRuntime } from '../../src/runtime/docker/runtime.js';
import { containerCreateOptions } from '../../src/runtime/docker/create-options.js';
import { followLines, readLines, type LogRecord } from '../logs/read.js';
import type { ContainerSpec, RunningTask, TaskLaunch } from '../../src/runtime/types.js';
import {
  BUSYBOX,
  NODE_IMAGE,
  containersWithLabel,
  docker,
  dockerTestEnv,
  inspectContainer,
} from '../helpers/docker.js';

const env = await dockerTestEnv();
const MiB = 1024 * 1024;

async function waitForLine(path: string, text: string, ms = 15_000): Promise<void> {
  const signal = AbortSignal.timeout(ms);
  for await (const rec of followLines(path, signal, { fromStart: true, pollMs: 20 })) if (rec.text === text) return;
  throw new Error(`timed out waiting for "${text}" in ${path}`);
}

const stdout = (lines: LogRecord[]): string[] => lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
const stderr = (lines: LogRecord[]): string[] => lines.filter((l) => l.stream === 'stderr').map((l) => l.text);

describe.skipIf(!env.run)(`DockerRuntime on the real engine (${env.why})`, () => {
  let dir = '';
  const runtime = new DockerRuntime();
  const cluster = `docker-test-${process.pid}-${Date.now().toString(36)}`;
  const started: RunningTask[] = [];
  let n = 0;

  const makeLaunch = (
    argv: string[],
    container: Partial<ContainerSpec> = {},
    over: Partial<TaskLaunch> = {},
  ): TaskLaunch => {
    const i = ++n;
    const key = { job: '/dk', task: `/dk/task-${i}`, attempt: 0 };
    return {
      key,
      argv,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', IRIS_TASK_ID: key.task },
      cwd: '',
      logPath: join(dir, `task-${i}`, 'attempt-0.log'),
      resources: { cpuMillis: 250, memoryBytes: 128 * MiB, device: null },
      deviceIndices: [],
      labels: { 'iris.cluster': cluster, 'iris.job': key.job, 'iris.task': key.task, 'iris.attempt': '0' },
      container: {
        image: BUSYBOX,
        devices: [],
        gpuIds: [],
        mounts: [],
        shmBytes: null,
        memlockUnlimited: false,
        privileged: false,
        network: 'host',
        ...container,
      },
      ...over,
    };
  };

  const run = async (launch: TaskLaunch) => {
    const task = await runtime.launch(launch);
    started.push(task);
    const exit = await task.exited;
    return { task, exit, lines: await readLines(launch.logPath) };
  };

  /** The container of a running attempt (found by its task label). */
  const containerOf = (launch: TaskLaunch): string => {
    const ids = containersWithLabel('iris.task', launch.key.task).filter(
      (id) => inspectContainer(id).Config.Labels['iris.cluster'] === cluster,
    );
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-docker-')));
  });
  afterAll(async () => {
    await Promise.all(started.map((t) => runtime.stop(t, 0).catch(() => undefined)));
    await runtime.close();
    for (const id of containersWithLabel('iris.cluster', cluster)) docker(['rm', '-f', id]);
    await rm(dir, { recursive: true, force: true });
  });

  it('reports an OOM kill as such (its task ends OUT_OF_MEMORY) with the limit in the reason', async () => {
    // busybox tail keeps the current "line" of /dev/zero (no newline ever) in memory.
    const { exit } = await run(
      makeLaunch(['tail', '/dev/zero'], {}, { resources: { cpuMillis: 500, memoryBytes: 16 * MiB, device: null } }),
    );
    expect({ ...exit, usage: undefined }).toEqual({
      exitCode: null,
      signal: 'SIGKILL',
      oom: true,
      reason: 'OOM killed (memory limit 16MiB)',
    });
  }, 60_000);

  it("runs in the image's working directory for '' and in the given one otherwise, with the given env", async () => {
    const own = await run(
      makeLaunch(['sh', '-c', 'pwd; echo "$GREETING"'], {}, { env: { PATH: '/bin', GREETING: 'hi there' } }),
    );
    expect(stdout(own.lines)).toEqual(['/', 'hi there']);
    const given = await run(makeLaunch(['pwd'], {}, { cwd: '/tmp' }));
    expect(stdout(given.lines)).toEqual(['/tmp']);
  });

  it('carries the labels, limits and capability profile, not privileged, with an init as PID 1', async () => {
    const launch = makeLaunch([
      'sh',
      '-c',
      'grep CapEff /proc/self/status; cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max; ' +
        'cat /proc/1/comm; echo ready; while :; do sleep 1; done',
    ]);
    const task = await runtime.launch(launch);
    started.push(task);
    await waitForLine(launch.logPath, 'ready');
    const info = inspectContainer(containerOf(launch));
    expect(info.Config.Labels).toMatchObject({ ...launch.labels, 'iris.runtime': 'docker' });
    expect(info.Name).toMatch(/^\/iris-dk\.task-\d+-a0-[0-9a-f]{4}$/);
    expect(info.HostConfig).toMatchObject({
      NanoCpus: 250_000_000,
      Memory: 128 * MiB,
      MemorySwap: 128 * MiB,
      PidsLimit: 4096,
      Privileged: false,
      Init: true,
      NetworkMode: 'host',
    });
    expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges']);
    expect(info.State.Pid).toBe(task.pid);
    const out = stdout(await readLines(launch.logPath));
    // CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID NET_BIND_SERVICE = bits 0,1,3,4,5,6,7,10.
    expect(out[0]).toMatch(/^CapEff:\s+00000000000004fb$/);
    expect(out[1]).toBe('4096');
    expect(out[2]).toMatch(/^(docker-init|tini)$/);
    // SIGTERM reaches a shell without a trap (the init forwards it): it ends well before the grace.
    const t0 = Date.now();
    await runtime.stop(task, 20_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect({ ...(await task.exited), usage: undefined }).toEqual({ exitCode: 143, signal: null });
    expect(containersWithLabel('iris.task', launch.key.task)).toEqual([]);
  });

  it("a token file: readable by the container's user through the added group, removed with the container", async () => {
    const gid = process.getuid?.() === 0 ? 2_000_000 : process.getgid!();
    const hostPath = join(dir, `token-${n}`);
    const launch = makeLaunch(['sh', '-c', 'id -G; cat /.iris-task/token'], {
      user: '65534:65534',
      tokenFile: { path: '/.iris-task/token', hostPath, token: 'tok-123', gid },
    });
    const { exit, lines } = await run(launch);
    expect(exit.exitCode, stderr(lines).join('\n')).toBe(0);
    expect(stdout(lines)[0]!.split(' ')).toContain(String(gid));
    expect(stdout(lines)).toContain('tok-123');
    expect(existsSync(hostPath)).toBe(false);
  });

  it('a launch that fails leaves no token file behind', async () => {
    const hostPath = join(dir, `token-failed-${n}`);
    const launch = makeLaunch(['no-such-command'], {
      tokenFile: { path: '/.iris-task/token', hostPath, token: 't', gid: process.getgid!() },
    });
    await expect(runtime.launch(launch)).rejects.toThrow(/command not found/);
    expect(existsSync(hostPath)).toBe(false);
  });

  it('maps a stand-in device into the container', async () => {
    const { exit, lines } = await run(
      makeLaunch(['sh', '-c', 'test -c /dev/accel0 && echo char; head -c 4 /dev/accel0 | od -An -tx1'], {
        devices: [{ host: '/dev/zero', container: '/dev/accel0' }],
      }),
    );
    expect(exit.exitCode).toBe(0);
    expect(stdout(lines).map((l) => l.trim())).toEqual(['char', '00 00 00 00']);
  });

  it('sends GPU ids as an NVIDIA device request, and a start without the NVIDIA runtime fails clearly', async () => {
    const launch = makeLaunch(['true'], { gpuIds: ['0', '1'] });
    const client = new Docker();
    const created = await client.createContainer(
      containerCreateOptions(launch, await runtime.engineInfo(), { suffix: 'gpu0' }),
    );
    try {
      const info = await created.inspect();
      expect(info.HostConfig.DeviceRequests).toEqual([
        { Driver: 'nvidia', Count: 0, DeviceIDs: ['0', '1'], Capabilities: [['gpu']], Options: {} },
      ]);
    } finally {
      await created.remove({ force: true });
    }
    const hasNvidia = Object.keys(JSON.parse(docker(['info', '--format', '{{json .Runtimes}}']))).includes('nvidia');
    if (hasNvidia) return; // a GPU host: the start may well succeed
    const again = makeLaunch(['true'], { gpuIds: ['0', '1'] });
    const err = await runtime.launch(again).catch((e: unknown) => e as Error & { lost?: string });
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      'the Docker engine has no NVIDIA runtime for the requested GPUs (0,1): install the NVIDIA Container Toolkit ' +
        'on this host, or run the job without GPUs',
    );
    expect((err as { lost?: string }).lost).toBeUndefined();
    expect(containersWithLabel('iris.task', again.key.task)).toEqual([]);
  });

  it('reports a container removed from outside as lost', async () => {
    const launch = makeLaunch(['sh', '-c', 'echo ready; while :; do sleep 1; done']);
    const task = await runtime.launch(launch);
    started.push(task);
    await waitForLine(launch.logPath, 'ready');
    docker(['rm', '-f', containerOf(launch)]);
    const exit = await task.exited;
    expect(exit.lost).toBe('container vanished (removed outside iris)');
    expect(stdout(await readLines(launch.logPath))).toEqual(['ready']);
  });

  it('reclaim removes stopped and never-started containers of this cluster only', async () => {
    const other = `${cluster}-other`;
    const mk = (c: string, task: string) =>
      docker([
        'create',
        '--label',
        `iris.cluster=${c}`,
        '--label',
        'iris.job=/old',
        '--label',
        `iris.task=${task}`,
        '--label',
        'iris.attempt=1',
        BUSYBOX,
        'true',
      ]);
    mk(cluster, '/old/task-0');
    const exitedId = mk(cluster, '/old/task-1');
    docker(['start', '-a', exitedId]);
    const foreign = mk(other, '/old/task-0');
    try {
      const keys = await new DockerRuntime().reclaim(cluster, [], 1000);
      expect(keys).toEqual(
        expect.arrayContaining([
          { job: '/old', task: '/old/task-0', attempt: 1 },
          { job: '/old', task: '/old/task-1', attempt: 1 },
        ]),
      );
      expect(keys).toHaveLength(2);
      expect(containersWithLabel('iris.cluster', cluster)).toEqual([]);
      expect(containersWithLabel('iris.cluster', other)).toEqual([
        expect.stringMatching(new RegExp(`^${foreign.slice(0, 12)}`)),
      ]);
    } finally {
      docker(['rm', '-f', foreign]);
    }
  });

  it('a missing image that cannot be pulled is a clear launch failure', async () => {
    const rt = new DockerRuntime({ pullTimeoutMs: 10_000 });
    const launch = makeLaunch(['true'], { image: 'iris-test/no-such-image:never' });
    await expect(rt.launch(launch)).rejects.toThrow(
      'image not found: iris-test/no-such-image:never (no registry reachable? build it locally, e.g. with docker ' +
        'import or docker load)',
    );
  }, 30_000);

  it('an unreachable engine gives one clear line (probe) and a `lost` launch error', async () => {
    const host = `unix://${dir}/no-engine.sock`;
    expect(await DockerRuntime.probe({ host })).toEqual({
      ok: false,
      message:
        `Docker engine not reachable at ${host} (connect ENOENT); start it with "sudo systemctl start ` +
        `docker" (or "sudo dockerd &"), or set DOCKER_HOST`,
    });
    const tcp = await DockerRuntime.probe({ host: 'tcp://127.0.0.1:1' });
    expect(tcp).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^Docker engine not reachable at tcp:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED\); start it/,
      ),
    });
    const err = (await new DockerRuntime({ host }).launch(makeLaunch(['true'])).catch((e: unknown) => e)) as Error & {
      lost?: string;
    };
    expect(err.lost).toBe(((await DockerRuntime.probe({ host })) as { message: string }).message);
    expect(err.message).toBe(err.lost);
    expect(await DockerRuntime.probe()).toMatchObject({ ok: true, apiVersion: expect.stringMatching(/^1\.\d+$/) });
  });

  it('a broken engine connection while a task runs is reported as lost', async () => {
    // A unix-socket proxy in front of the real engine, cut while the task runs.
    const proxyPath = join(dir, 'proxy.sock');
    const sockets = new Set<Socket>();
    const proxy = createNetServer((client) => {
      const upstream = connect('/var/run/docker.sock');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(proxyPath, resolve));
    const viaProxy = new DockerRuntime({ host: `unix://${proxyPath}` });
    const launch = makeLaunch(['sh', '-c', 'echo ready; while :; do sleep 1; done']);
    const task = await viaProxy.launch(launch);
    await waitForLine(launch.logPath, 'ready');
    const id = containerOf(launch);
    const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
    try {
      const exit = await task.exited;
      expect(exit.lost).toMatch(/^Docker engine error: /);
      // The engine still runs the container: the next life of the cluster reclaims it.
      expect(inspectContainer(id).State.Running).toBe(true);
    } finally {
      docker(['rm', '-f', id]);
    }
  });

  describe('a container reaches a host unix socket through a bind-mounted directory', () => {
    let server: Server;
    let sockDir = '';
    const seen: string[] = [];
    beforeAll(async () => {
      sockDir = join(dir, 'controller');
      await mkdir(sockDir);
      server = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.end(`hello from the host, ${req.url}`);
      });
      await new Promise<void>((resolve) => server.listen(join(sockDir, 'api.sock'), resolve));
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('node inside iris-test/node requests the host server over the socket', async () => {
      const script =
        `require('http').get({ socketPath: process.env.SOCK, path: '/jobs' }, (r) => { let b = ''; ` +
        `r.on('data', (d) => (b += d)); r.on('end', () => console.log(r.statusCode, b)); }).on('error', (e) => { ` +
        `console.error(e.message); process.exit(2); });`;
      const { exit, lines } = await run(
        makeLaunch(
          ['node', '-e', script],
          {
            image: NODE_IMAGE,
            network: 'bridge',
            mounts: [{ host: sockDir, container: '/run/iris', readOnly: false }],
          },
          {
            env: { PATH: '/usr/local/bin:/bin', SOCK: '/run/iris/api.sock' },
            resources: { cpuMillis: 1000, memoryBytes: 256 * MiB, device: null },
          },
        ),
      );
      expect(stderr(lines)).toEqual([]);
      expect({ ...exit, usage: undefined }).toEqual({ exitCode: 0, signal: null });
      expect(stdout(lines)).toEqual(['200 hello from the host, /jobs']);
      expect(seen).toEqual(['GET /jobs']);
    }, 60_000);
  });
});
