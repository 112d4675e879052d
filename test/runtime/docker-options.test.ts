import { describe, expect, it } from 'vitest';
import { containerCreateOptions, containerName, KEPT_CAPABILITIES } from '../../src/runtime/docker/create-options.js';
import { formatBytes as modelFormatBytes } from '../../src/model/resources.js';

const formatBytes = (bytes: number) => modelFormatBytes(bytes, { trimZero: true });
import { commandCandidates } from '../../src/runtime/docker/command-check.js';
import { engineAddress } from '../../src/runtime/docker/engine.js';
import { keyFromLabels } from '../../src/runtime/docker/reclaim.js';
import { isMemlockRefused } from '../../src/runtime/docker/errors.js';
import { hostMemlockHardLimit } from '../../src/runtime/docker/memlock.js';
import type { ContainerSpec, TaskLaunch } from '../../src/runtime/types.js';

const spec = (over: Partial<ContainerSpec> = {}): ContainerSpec => ({
  image: 'img:1',
  devices: [],
  gpuIds: [],
  mounts: [],
  shmBytes: null,
  memlockUnlimited: false,
  privileged: false,
  network: 'bridge',
  ...over,
});

const launch = (over: Partial<TaskLaunch> = {}): TaskLaunch => ({
  key: { job: '/train', task: '/train/task-3', attempt: 2 },
  argv: ['python', 'train.py', '--lr', '0.1'],
  env: { PATH: '/usr/bin:/bin', IRIS_TASK_ID: '/train/task-3' },
  cwd: '/work',
  logPath: '/tmp/x.log',
  resources: { cpuMillis: 1500, memoryBytes: 256 * 1024 * 1024, device: null },
  deviceIndices: [],
  labels: { 'iris.cluster': 'c1', 'iris.job': '/train', 'iris.task': '/train/task-3', 'iris.attempt': '2' },
  container: spec(),
  ...over,
});

const ENGINE = { init: true, ncpu: 8 };

describe('containerCreateOptions', () => {
  it('carries the command, exactly the env, cwd, labels and a readable unique name', () => {
    const o = containerCreateOptions(launch(), ENGINE, { suffix: 'ab12' });
    expect(o.name).toBe('iris-train.task-3-a2-ab12');
    expect(o.Image).toBe('img:1');
    expect(o.Cmd).toEqual(['python', 'train.py', '--lr', '0.1']);
    expect(o.Env).toEqual(['PATH=/usr/bin:/bin', 'IRIS_TASK_ID=/train/task-3']);
    expect(o.WorkingDir).toBe('/work');
    expect(o.Labels).toEqual({
      'iris.cluster': 'c1',
      'iris.job': '/train',
      'iris.task': '/train/task-3',
      'iris.attempt': '2',
      'iris.runtime': 'docker',
    });
    expect(o).toMatchObject({ Tty: false, OpenStdin: false, AttachStdin: false });
  });

  it(
    "a token file: bind-mounted read-only, its group added to the container's processes, nothing of the token in " +
      'the request',
    () => {
      const tokenFile = {
        path: '/.iris-task/token',
        hostPath: '/h/.iris/logs/t/@1/task-0/attempt-0.token',
        token: 'secret',
        gid: 1000,
      };
      const mounts = [{ host: '/h/.iris/tasks', container: '/h/.iris/tasks', readOnly: false }];
      const o = containerCreateOptions(launch({ container: spec({ tokenFile, mounts }) }), ENGINE, { suffix: 'x' });
      expect(o.HostConfig?.GroupAdd).toEqual(['1000']);
      expect(o.HostConfig?.Binds).toEqual([
        '/h/.iris/tasks:/h/.iris/tasks',
        '/h/.iris/logs/t/@1/task-0/attempt-0.token:/.iris-task/token:ro',
      ]);
      expect(JSON.stringify(o)).not.toContain('secret');
      expect(containerCreateOptions(launch(), ENGINE, { suffix: 'x' }).HostConfig?.GroupAdd).toBeUndefined();
    },
  );

  it("leaves WorkingDir unset for the image's own ('' cwd)", () => {
    expect(containerCreateOptions(launch({ cwd: '' }), ENGINE, { suffix: 'x' }).WorkingDir).toBeUndefined();
  });

  it('sets cpu, memory without swap, pids, init, network and the reduced capability profile', () => {
    const h = containerCreateOptions(launch(), ENGINE, { suffix: 'x' }).HostConfig!;
    expect(h).toMatchObject({
      NanoCpus: 1_500_000_000,
      Memory: 268435456,
      MemorySwap: 268435456,
      PidsLimit: 4096,
      Init: true,
      NetworkMode: 'bridge',
      CapDrop: ['ALL'],
      CapAdd: [...KEPT_CAPABILITIES],
      SecurityOpt: ['no-new-privileges'],
    });
    expect(h.Privileged).toBeUndefined();
    expect(h.CapAdd).not.toContain('NET_RAW');
    expect(h.CapAdd).not.toContain('MKNOD');
    expect(h.DeviceRequests).toBeUndefined();
    expect(h.Devices).toBeUndefined();
  });

  it("runs as the launch's user, or the image's own when the launch names none", () => {
    const base = launch();
    const withUser = { ...base, container: { ...base.container!, user: '65534:65534' } };
    expect(containerCreateOptions(withUser, ENGINE, { suffix: 'x' }).User).toBe('65534:65534');
    expect(containerCreateOptions(base, ENGINE, { suffix: 'x' }).User).toBeUndefined();
  });

  it('caps NanoCpus at the engine CPU count and keeps at least 0.01 CPU', () => {
    expect(
      containerCreateOptions(
        launch({ resources: { cpuMillis: 64_000, memoryBytes: 0, device: null } }),
        { init: false, ncpu: 2 },
        { suffix: 'x' },
      ).HostConfig,
    ).toMatchObject({ NanoCpus: 2_000_000_000, Init: false });
    expect(
      containerCreateOptions(launch({ resources: { cpuMillis: 1, memoryBytes: 0, device: null } }), ENGINE, {
        suffix: 'x',
      }).HostConfig!.NanoCpus,
    ).toBe(10_000_000);
    const none = containerCreateOptions(launch({ resources: { cpuMillis: 0, memoryBytes: 0, device: null } }), ENGINE, {
      suffix: 'x',
    }).HostConfig!;
    expect(none.NanoCpus).toBeUndefined();
    expect(none.Memory).toBeUndefined();
  });

  it('maps devices, GPU ids, mounts, shm, memlock and privileged', () => {
    const o = containerCreateOptions(
      launch({
        container: spec({
          devices: [
            { host: '/dev/accel0', container: '/dev/accel0' },
            { host: '/dev/zero', container: '/dev/accel1' },
          ],
          gpuIds: ['0', '3'],
          mounts: [
            { host: '/run/iris', container: '/run/iris', readOnly: false },
            { host: '/opt/iris', container: '/opt/iris', readOnly: true },
          ],
          shmBytes: 1 << 30,
          memlockUnlimited: true,
          privileged: true,
          network: 'host',
        }),
      }),
      ENGINE,
      { suffix: 'x', pidsLimit: 100 },
    );
    const h = o.HostConfig!;
    expect(h.Devices).toEqual([
      { PathOnHost: '/dev/accel0', PathInContainer: '/dev/accel0', CgroupPermissions: 'rwm' },
      { PathOnHost: '/dev/zero', PathInContainer: '/dev/accel1', CgroupPermissions: 'rwm' },
    ]);
    expect(h.DeviceRequests).toEqual([
      { Driver: 'nvidia', Count: 0, DeviceIDs: ['0', '3'], Capabilities: [['gpu']], Options: {} },
    ]);
    expect(h.Binds).toEqual(['/run/iris:/run/iris', '/opt/iris:/opt/iris:ro']);
    expect(h).toMatchObject({
      ShmSize: 1 << 30,
      Ulimits: [{ Name: 'memlock', Soft: -1, Hard: -1 }],
      Privileged: true,
      NetworkMode: 'host',
      PidsLimit: 100,
    });
    expect(h.CapDrop).toBeUndefined();
  });

  it('a known host memlock limit replaces unlimited; launches without memlock get none', () => {
    const tpu = launch({ container: spec({ memlockUnlimited: true }) });
    expect(containerCreateOptions(tpu, ENGINE, { suffix: 'x', memlockBytes: 8 << 20 }).HostConfig!.Ulimits).toEqual([
      { Name: 'memlock', Soft: 8 << 20, Hard: 8 << 20 },
    ]);
    expect(
      containerCreateOptions(launch(), ENGINE, { suffix: 'x', memlockBytes: 8 << 20 }).HostConfig!.Ulimits,
    ).toBeUndefined();
  });

  it('reads the hard memlock limit from /proc limits text (null when unlimited or absent)', () => {
    const limits = (soft: string, hard: string) =>
      `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ` +
      `1048576              1048576              files     \nMax locked memory         ${soft}              ` +
      `${hard}              bytes     \n`;
    expect(hostMemlockHardLimit(limits('65536', '8388608'))).toBe(8388608);
    expect(hostMemlockHardLimit(limits('unlimited', 'unlimited'))).toBeNull();
    expect(hostMemlockHardLimit('Max open files 1 1 files\n')).toBeNull();
  });

  it('recognises the engine refusing the memlock limit', () => {
    const refused = {
      statusCode: 400,
      json: {
        message:
          'failed to create shim task: OCI runtime create failed: runc create failed: unable to start container ' +
          'process: error during container init: error setting rlimits for ready process: error setting rlimit ' +
          'type 8: operation not permitted: unknown',
      },
    };
    expect(isMemlockRefused(refused)).toBe(true);
    expect(
      isMemlockRefused({ statusCode: 400, json: { message: 'error setting rlimit type 7: operation not permitted' } }),
    ).toBe(false);
  });

  it('refuses a launch without a container spec', () => {
    expect(() => containerCreateOptions(launch({ container: null }), ENGINE, { suffix: 'x' })).toThrow(
      /no container spec/,
    );
  });
});

describe('docker helpers', () => {
  it('names containers with only allowed characters', () => {
    const name = containerName(launch({ key: { job: '/a b', task: '/a b/ü:x/task-0', attempt: 0 } }), 'ff00');
    expect(name).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/);
    expect(name).toBe('iris-a.b.x.task-0-a0-ff00');
  });

  it('formats memory limits', () => {
    expect(formatBytes(256 * 1024 * 1024)).toBe('256MiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5GiB');
    expect(formatBytes(512)).toBe('512B');
  });

  it('parses engine addresses', () => {
    expect(engineAddress(undefined)).toEqual({
      url: 'unix:///var/run/docker.sock',
      socketPath: '/var/run/docker.sock',
    });
    expect(engineAddress('unix:///tmp/d.sock')).toEqual({ url: 'unix:///tmp/d.sock', socketPath: '/tmp/d.sock' });
    expect(engineAddress('tcp://10.0.0.2:2376')).toEqual({ url: 'tcp://10.0.0.2:2376', host: '10.0.0.2', port: 2376 });
    expect(() => engineAddress('ssh://me@host')).toThrow(/unsupported Docker engine address "ssh:\/\/me@host"/);
  });

  it('looks commands up like execvp', () => {
    expect(commandCandidates('sh', { PATH: '/usr/bin:/bin' }, '')).toEqual(['/usr/bin/sh', '/bin/sh']);
    expect(commandCandidates('/opt/x', {}, '')).toEqual(['/opt/x']);
    expect(commandCandidates('./run.sh', {}, '/work')).toEqual(['/work/run.sh']);
    expect(commandCandidates('./run.sh', {}, '')).toBeNull();
    expect(commandCandidates('sh', {}, '/')).toBeNull();
    expect(commandCandidates('sh', { PATH: 'bin:/bin' }, '/')).toBeNull();
  });

  it('reads task keys from labels', () => {
    expect(keyFromLabels({ 'iris.job': '/j', 'iris.task': '/j/task-1', 'iris.attempt': '4' })).toEqual({
      job: '/j',
      task: '/j/task-1',
      attempt: 4,
    });
    expect(keyFromLabels({ 'iris.task': '/j/task-1' })).toBeNull();
  });
});
