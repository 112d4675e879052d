import { describe, expect, it } from 'vitest';
import { validateConfig, type MachineProbe } from '../../../src/config/index.js';
import {
  attemptIsolation,
  buildLaunch,
  chipDevices,
  CONTAINER_PATH,
  CONTAINER_TOKEN_FILE,
  sliceOf,
  TOKEN_FILE_GID,
  tokenGroupFor,
  type LaunchContext,
  type LaunchPlacement,
} from '../../../src/cluster/controller/launch.js';
import { coordinatorPort, sliceHosts } from '../../../src/model/topology.js';
import type { DeviceRequest } from '../../../src/model/resources.js';
import type { Job, JobSpec, Task, WorkerSpec } from '../../../src/model/types.js';

const GiB = 1024 ** 3;
const PROBE: MachineProbe = { cpus: () => 8, memoryBytes: () => 64 * GiB, gpus: () => [], tpuDevicePaths: () => [] };

const CTX: LaunchContext = {
  clusterId: 'c-1',
  home: '/home/u/.iris',
  socketPath: '/home/u/.iris/iris.sock',
  cliBinDir: '/home/u/.iris/bin',
  baseEnv: { PATH: '/usr/bin:/bin', HOME: '/home/u', SECRET: 'host-only' },
  packageRoot: '/opt/iris',
};

function job(name: string, o: Partial<JobSpec> = {}, device: DeviceRequest | null = null): Job {
  const spec: JobSpec = {
    name,
    user: 'alice',
    command: ['python', 'train.py'],
    env: { LR: '0.1' },
    cwd: null,
    image: null,
    replicas: 1,
    resources: { cpuMillis: 1000, memoryBytes: 8 * GiB, device },
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 100,
    timeoutMs: null,
    schedulingTimeoutMs: null,
    ...o,
  };
  return {
    name,
    run: 7,
    spec,
    depth: 1,
    parent: null,
    submittedAt: 0,
    rootSubmittedAt: 0,
    seq: 0,
    state: 'RUNNING',
    reason: null,
    startedAt: 0,
    finishedAt: null,
    failedTasks: 0,
  };
}

function task(j: Job, index: number): Task {
  return {
    id: `${j.name}/task-${index}`,
    job: j.name,
    index,
    state: 'PENDING',
    attempt: 0,
    submittedAt: 0,
    seq: 0,
    failures: 0,
    preemptions: 0,
    workerId: null,
    exitCode: null,
    reason: null,
    startedAt: null,
    finishedAt: null,
    eligibleAt: null,
  };
}

const place = (worker: WorkerSpec | undefined, deviceIndices: number[], slice?: WorkerSpec[]): LaunchPlacement => ({
  workerId: worker?.id ?? 'local',
  deviceIndices,
  attempt: 2,
  token: 'tok',
  logPath: '/l/attempt-2.log',
  worker,
  slice,
});

/** A 4-host v5litepod-16 slice declared in config, with stand-in chips and per-host names. */
const SLICE = validateConfig(
  {
    slices: [
      {
        name: 'slice-a',
        tpu: 'v5litepod-16',
        cpu: 8,
        memory: '32GiB',
        devices: ['/dev/zero', '/dev/zero', '/dev/zero', '/dev/zero'],
        hostnames: ['h0', 'h1', 'h2', 'h3'],
      },
    ],
    workers: [{ name: 'gpu', gpu: { variant: 'H100', count: 8 } }, { name: 'cpu' }],
  },
  '/t/.irisrc.yaml',
  PROBE,
).workers;
const [GPU, CPU] = SLICE.filter((w) => !w.id.startsWith('slice-'));
const HOSTS = SLICE.filter((w) => w.id.startsWith('slice-'));
const TPU16: DeviceRequest = { type: 'tpu', variant: 'v5litepod-16', chips: 4 };

describe('buildLaunch: processes (unchanged contract)', () => {
  it('inherits the base env, adds the job env and the IRIS_* contract, PATH starts with the shim dir', () => {
    const j = job('/train', { replicas: 3 });
    const launch = buildLaunch(CTX, j, task(j, 1), place(CPU, []));
    expect(launch.env).toEqual({
      PATH: '/home/u/.iris/bin:/usr/bin:/bin',
      HOME: '/home/u',
      SECRET: 'host-only',
      LR: '0.1',
      IRIS_CLUSTER_ID: 'c-1',
      IRIS_JOB_ID: '/train',
      IRIS_RUN_ID: '7',
      IRIS_TASK_ID: '/train/task-1',
      IRIS_TASK_INDEX: '1',
      IRIS_NUM_TASKS: '3',
      IRIS_ATTEMPT: '2',
      IRIS_WORKER_ID: 'cpu',
      IRIS_CONTROLLER_ADDRESS: '/home/u/.iris/iris.sock',
      IRIS_TASK_TOKEN: 'tok',
      IRIS_USER: 'alice',
      IRIS_RESULT_FILE: '/l/attempt-2.d/result.json',
      IRIS_NOTICE_FILE: '/l/attempt-2.d/notice',
    });
    expect(launch.cwd).toBe('/home/u/.iris');
    expect(launch.container).toBeUndefined();
    expect(launch.labels).toEqual({
      'iris.cluster': 'c-1',
      'iris.job': '/train',
      'iris.task': '/train/task-1',
      'iris.attempt': '2',
    });
  });

  it('a job PATH replaces the inherited one, after the shim dir', () => {
    const j = job('/p', { env: { PATH: '/opt/bin' }, cwd: '/work' });
    const launch = buildLaunch(CTX, j, task(j, 0), place(CPU, []));
    expect(launch.env.PATH).toBe('/home/u/.iris/bin:/opt/bin');
    expect(launch.cwd).toBe('/work');
  });

  it('GPU tasks see their host GPU indices', () => {
    const j = job('/g', {}, { type: 'gpu', variant: 'H100', count: 2 });
    const launch = buildLaunch(CTX, j, task(j, 0), place(GPU, [3, 5]));
    expect([launch.env.CUDA_VISIBLE_DEVICES, launch.env.NVIDIA_VISIBLE_DEVICES]).toEqual(['3,5', '3,5']);
    expect(launch.env.TPU_WORKER_ID).toBeUndefined();
  });
});

describe('buildLaunch: containers', () => {
  it('a job image: no host env, only job env + contract + PATH; mounts; cwd from the image', () => {
    const j = job('/c', { image: 'python:3.12' });
    const launch = buildLaunch(CTX, j, task(j, 0), place(CPU, []));
    expect(launch.env.SECRET).toBeUndefined();
    expect(launch.env.HOME).toBeUndefined();
    expect(launch.env.LR).toBe('0.1');
    expect(launch.env.PATH).toBe(`/home/u/.iris/bin:${CONTAINER_PATH}`);
    expect(launch.env.IRIS_CONTROLLER_ADDRESS).toBe('/home/u/.iris/iris.sock');
    expect(launch.cwd).toBe('');
    expect(launch.container).toEqual({
      image: 'python:3.12',
      devices: [],
      gpuIds: [],
      mounts: [
        // The task door's directory, read-only: the socket is still connectable, but not replaceable.
        { host: '/home/u/.iris', container: '/home/u/.iris', readOnly: true },
        { host: '/opt/iris', container: '/opt/iris', readOnly: true },
        { host: '/home/u/.iris/bin', container: '/home/u/.iris/bin', readOnly: true },
        // The attempt's own result directory, and nothing else of the log tree.
        { host: '/l/attempt-2.d', container: '/l/attempt-2.d', readOnly: false },
      ],
      shmBytes: null,
      memlockUnlimited: false,
      privileged: false,
      network: 'bridge',
      user: '65534:65534',
      // The token as a file only the container's processes can read, not in its environment.
      tokenFile: { path: CONTAINER_TOKEN_FILE, hostPath: '/l/attempt-2.token', token: 'tok', gid: TOKEN_FILE_GID },
    });
    expect(launch.env.IRIS_TASK_TOKEN).toBeUndefined();
    expect(launch.env.IRIS_TASK_TOKEN_FILE).toBe('/.iris-task/token');
    expect(launch.env.IRIS_RESULT_FILE).toBe('/l/attempt-2.d/result.json');
    // The notice file lies in the mounted result directory: the container sees it at the same path.
    expect(launch.env.IRIS_NOTICE_FILE).toBe('/l/attempt-2.d/notice');
  });

  it('a Pod (the Kubernetes backend) gets no notice file: it does not see the attempt directory', () => {
    const pods: LaunchContext = { ...CTX, pods: { image: 'python:3.12' } };
    const j = job('/k');
    expect(buildLaunch(pods, j, task(j, 0), place(CPU, [])).env.IRIS_NOTICE_FILE).toBeUndefined();
  });

  it("a Pod does not inherit the daemon's environment: only its job's variables and the IRIS_* contract", () => {
    const pods: LaunchContext = { ...CTX, pods: { image: 'python:3.12' } };
    const j = job('/k');
    const env = buildLaunch(pods, j, task(j, 0), place(CPU, [])).env;
    expect(env.SECRET).toBeUndefined();
    expect(env.HOME).toBeUndefined();
    expect(env.IRIS_TASK_ID).toBe('/k/task-0');
  });

  it('with the task door on TCP, tasks get its URL and containers get no socket directory', () => {
    const tcp: LaunchContext = { ...CTX, controllerAddress: 'http://iris-task-door:7070' };
    const proc = job('/p');
    expect(buildLaunch(tcp, proc, task(proc, 0), place(CPU, [])).env.IRIS_CONTROLLER_ADDRESS).toBe(
      'http://iris-task-door:7070',
    );
    const boxed = job('/c', { image: 'python:3.12' });
    const launch = buildLaunch(tcp, boxed, task(boxed, 0), place(CPU, []));
    expect(launch.env.IRIS_CONTROLLER_ADDRESS).toBe('http://iris-task-door:7070');
    expect(launch.container?.tokenFile?.token).toBe('tok');
    expect(launch.container?.mounts.map((m) => m.host)).toEqual(['/opt/iris', '/home/u/.iris/bin', '/l/attempt-2.d']);
  });

  it('a container runs as the job user-in-container, else the config container-user, else 65534:65534', () => {
    const docker: LaunchContext = {
      ...CTX,
      runtime: { kind: 'docker', image: 'busybox', network: null, containerUser: '1000:1000' },
    };
    const plain = job('/u', { image: 'busybox' }); // the config's default image, resolved at submit
    expect(buildLaunch(docker, plain, task(plain, 0), place(CPU, [])).container?.user).toBe('1000:1000');
    const own = job('/v', { image: 'busybox', containerUser: '0' });
    expect(buildLaunch(docker, own, task(own, 0), place(CPU, [])).container?.user).toBe('0');
    expect(buildLaunch(CTX, own, task(own, 0), place(CPU, [])).container?.user).toBe('0');
    const bare = job('/w', { image: 'busybox' });
    expect(buildLaunch(CTX, bare, task(bare, 0), place(CPU, [])).container?.user).toBe('65534:65534');
  });

  it('network: the job wins over the config, the config over the default (bridge)', () => {
    const hostCfg: LaunchContext = { ...CTX, runtime: { kind: 'docker', image: 'busybox', network: 'host' } };
    const plain = job('/n', { image: 'busybox' });
    expect(buildLaunch(hostCfg, plain, task(plain, 0), place(CPU, [])).container?.network).toBe('host');
    const bridged = job('/b', { image: 'busybox', network: 'bridge' });
    expect(buildLaunch(hostCfg, bridged, task(bridged, 0), place(CPU, [])).container?.network).toBe('bridge');
    const hosted = job('/h', { image: 'busybox', network: 'host' });
    expect(buildLaunch(CTX, hosted, task(hosted, 0), place(CPU, [])).container?.network).toBe('host');
  });

  it(
    'the image is the one admission put in the spec (the config default at submit): none is a process, under ' +
      'runtime docker too',
    () => {
      const docker: LaunchContext = { ...CTX, runtime: { kind: 'docker', image: 'busybox', network: 'bridge' } };
      const defaulted = job('/d', { image: 'busybox' });
      expect(buildLaunch(docker, defaulted, task(defaulted, 0), place(CPU, [])).container).toMatchObject({
        image: 'busybox',
        network: 'bridge',
      });
      const own = job('/e', { image: 'alpine:3' });
      expect(buildLaunch(docker, own, task(own, 0), place(CPU, [])).container?.image).toBe('alpine:3');
      // `--runtime process` (admission leaves the image out): a process, whatever the config's runtime.
      const plain = job('/p');
      expect(buildLaunch(docker, plain, task(plain, 0), place(CPU, [])).container).toBeUndefined();
      const processes: LaunchContext = { ...CTX, runtime: { kind: 'process', image: null, network: 'host' } };
      expect(buildLaunch(processes, plain, task(plain, 0), place(CPU, [])).container).toBeUndefined();
    },
  );

  it('a job PATH and cwd are kept inside the container', () => {
    const j = job('/c', { image: 'python:3.12', env: { PATH: '/venv/bin:/usr/bin' }, cwd: '/app' });
    const launch = buildLaunch(CTX, j, task(j, 0), place(CPU, []));
    expect(launch.env.PATH).toBe('/home/u/.iris/bin:/venv/bin:/usr/bin');
    expect(launch.cwd).toBe('/app');
  });

  it('GPU containers: a device request for the assigned ids, no CUDA_VISIBLE_DEVICES remap, 1 GiB+ shm', () => {
    const j = job('/g', { image: 'cuda:12' }, { type: 'gpu', variant: 'H100', count: 2 });
    const launch = buildLaunch(CTX, j, task(j, 0), place(GPU, [6, 7]));
    expect(launch.container).toMatchObject({
      gpuIds: ['6', '7'],
      devices: [],
      shmBytes: 4 * GiB,
      memlockUnlimited: false,
    });
    expect(launch.env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(launch.env.NVIDIA_VISIBLE_DEVICES).toBeUndefined();
    expect(launch.deviceIndices).toEqual([6, 7]);
  });

  it('a privileged worker makes privileged containers; others never', () => {
    const j = job('/p', { image: 'busybox' });
    expect(buildLaunch(CTX, j, task(j, 0), place({ ...CPU!, privileged: true }, [])).container?.privileged).toBe(true);
    expect(buildLaunch(CTX, j, task(j, 0), place(CPU, [])).container?.privileged).toBe(false);
  });

  it(
    'a child of an unprivileged container task (spec.unprivileged) is never privileged, even on a privileged ' +
      'worker',
    () => {
      const j = job('/p/kid', { image: 'busybox', unprivileged: true });
      expect(buildLaunch(CTX, j, task(j, 0), place({ ...CPU!, privileged: true }, [])).container?.privileged).toBe(
        false,
      );
    },
  );
});

describe("the token file's group", () => {
  it(
    'root takes a group no account has; another owner its own primary group (the only kind it may give a file), ' +
      'never 0',
    () => {
      expect(tokenGroupFor(0, 0)).toBe(TOKEN_FILE_GID);
      expect(tokenGroupFor(1000, 1000)).toBe(1000);
      expect(tokenGroupFor(1000, 0)).toBe(TOKEN_FILE_GID);
      const j = job('/c', { image: 'python:3.12' });
      expect(buildLaunch({ ...CTX, tokenGroup: 1000 }, j, task(j, 0), place(CPU, [])).container?.tokenFile?.gid).toBe(
        1000,
      );
    },
  );
});

describe('attemptIsolation: what a running attempt passes on to its children', () => {
  it("a container: as launched (the config's defaults and the worker's privilege resolved)", () => {
    const j = job('/c', { image: 'python:3.12' }, { type: 'tpu', variant: 'v4-8', chips: 4 });
    const launch = buildLaunch(
      { ...CTX, runtime: { kind: 'process', image: null, network: null, containerUser: '1000:1000' } },
      j,
      task(j, 0),
      place({ ...CPU!, privileged: true }, []),
    );
    expect(attemptIsolation(j.spec, launch.container)).toEqual({
      image: 'python:3.12',
      user: '1000:1000',
      network: 'host',
      privileged: true,
    });
  });

  it(
    "a container with mounts: the job's mounts go into the container (marked as the user's) and on to its " +
      "children, iris's own do not",
    () => {
      const mounts = [
        { source: '/home/u/proj', target: '/home/u/proj', readOnly: false },
        { source: '/srv/data', target: '/data', readOnly: true },
      ];
      const j = job('/c', { image: 'python:3.12', mounts, cwd: '/home/u/proj', containerUser: '1000:1000' });
      const launch = buildLaunch(CTX, j, task(j, 0), place(CPU, []));
      expect(launch.cwd).toBe('/home/u/proj');
      expect(launch.container!.user).toBe('1000:1000');
      expect(launch.container!.mounts.filter((m) => m.user)).toEqual([
        { host: '/home/u/proj', container: '/home/u/proj', readOnly: false, user: true },
        { host: '/srv/data', container: '/data', readOnly: true, user: true },
      ]);
      expect(attemptIsolation(j.spec, launch.container)).toEqual({
        image: 'python:3.12',
        user: '1000:1000',
        network: 'bridge',
        privileged: false,
        mounts,
      });
    },
  );

  it("a process: only its job's own container choices", () => {
    const j = job('/p', { containerUser: '1000', network: 'host' });
    expect(attemptIsolation(j.spec, buildLaunch(CTX, j, task(j, 0), place(CPU, [])).container)).toEqual({
      image: null,
      user: '1000',
      network: 'host',
      privileged: false,
    });
  });

  it("on the kubernetes backend every attempt is a Pod: its job's image, else the backend's", () => {
    expect(attemptIsolation(job('/k').spec, null, { image: 'iris:local' })).toMatchObject({
      image: 'iris:local',
      privileged: false,
    });
    expect(attemptIsolation(job('/k', { image: 'jax:tpu' }).spec, null, { image: 'iris:local' })).toMatchObject({
      image: 'jax:tpu',
    });
  });
});

describe('buildLaunch: a 4-host TPU slice', () => {
  const j = job('/train', { replicas: 4, coschedule: 'tpu-name', image: 'jax:tpu' }, TPU16);
  // the controller passes all workers; sliceOf keeps the slice
  const launches = HOSTS.map((host, i) =>
    buildLaunch(
      CTX,
      j,
      task(j, i),
      place(
        host,
        [0, 1, 2, 3],
        sliceOf(host, () => [GPU!, ...HOSTS].reverse()),
      ),
    ),
  );

  it.each([0, 1, 2, 3])('task %i gets TPU_WORKER_ID %i and the slice-wide variables', (i) => {
    const env = launches[i]!.env;
    expect(env).toMatchObject({
      TPU_WORKER_ID: String(i),
      TPU_WORKER_HOSTNAMES: 'h0,h1,h2,h3',
      TPU_ACCELERATOR_TYPE: 'v5litepod-16',
      TPU_TOPOLOGY: '4x4',
      TPU_CHIPS_PER_HOST_BOUNDS: '2,2,1',
      TPU_HOST_BOUNDS: '2,2,1',
      TPU_SKIP_MDS_QUERY: '1',
      TPU_VISIBLE_CHIPS: '0,1,2,3',
      JAX_COORDINATOR_ADDRESS: `h0:${coordinatorPort('/train')}`,
      JAX_NUM_PROCESSES: '4',
      JAX_PROCESS_ID: String(i),
      IRIS_TASK_INDEX: String(i),
      IRIS_WORKER_ID: `slice-a-${i}`,
    });
  });

  it('chips become /dev/accel<k> devices, with memlock, shm and host networking (the TPU default)', () => {
    expect(launches[2]!.container).toMatchObject({
      image: 'jax:tpu',
      devices: [0, 1, 2, 3].map((k) => ({ host: '/dev/zero', container: `/dev/accel${k}` })),
      gpuIds: [],
      shmBytes: 4 * GiB,
      memlockUnlimited: true,
      privileged: false,
      network: 'host',
      user: '65534:65534',
    });
  });

  it('a TPU job still takes bridge when it or the config asks for it', () => {
    const bridged = job('/train', { replicas: 4, coschedule: 'tpu-name', image: 'jax:tpu', network: 'bridge' }, TPU16);
    expect(buildLaunch(CTX, bridged, task(bridged, 0), place(HOSTS[0], [0, 1, 2, 3], HOSTS)).container?.network).toBe(
      'bridge',
    );
  });

  it('the same variables for a process task (no container)', () => {
    const p = job('/train', { replicas: 4, coschedule: 'tpu-name' }, TPU16);
    const launch = buildLaunch(CTX, p, task(p, 3), place(HOSTS[3], [0, 1, 2, 3], HOSTS));
    expect(launch.container).toBeUndefined();
    expect(launch.env).toMatchObject({ TPU_WORKER_ID: '3', JAX_PROCESS_ID: '3', SECRET: 'host-only' });
  });

  it('the coordinator port is stable per job and in 8476..9475', () => {
    expect(coordinatorPort('/train')).toBe(coordinatorPort('/train'));
    const ports = new Set(['/a', '/b', '/c', '/train', '/x/y'].map(coordinatorPort));
    expect(ports.size).toBe(5);
    for (const port of ports) expect(port >= 8476 && port < 9476).toBe(true);
  });
});

describe('buildLaunch: single-host TPU and device paths', () => {
  it('a single-host variant: worker 0, its own hostname, no JAX coordinator, assigned chips only', () => {
    const worker: WorkerSpec = {
      id: 't',
      cpuMillis: 8000,
      memoryBytes: 64 * GiB,
      device: { type: 'tpu', variant: 'v6e-8', count: 8 },
      attributes: {},
      devicePaths: Array.from({ length: 8 }, (_, k) => `/dev/accel${k}`),
    };
    const j = job('/s', { image: 'jax:tpu' }, { type: 'tpu', variant: 'v6e-8', chips: 8 });
    const launch = buildLaunch(CTX, j, task(j, 0), place(worker, [0, 1, 2, 3, 4, 5, 6, 7], [worker]));
    expect(launch.env).toMatchObject({
      TPU_WORKER_ID: '0',
      TPU_WORKER_HOSTNAMES: 'localhost',
      TPU_CHIPS_PER_HOST_BOUNDS: '2,4,1',
      TPU_HOST_BOUNDS: '1,1,1',
      TPU_TOPOLOGY: '2x4',
    });
    expect(launch.env.JAX_COORDINATOR_ADDRESS).toBeUndefined();
    expect(launch.container?.devices).toHaveLength(8);
  });

  it('chipDevices: VFIO chips keep their path and bring /dev/vfio/vfio; unknown paths are not invented', () => {
    const vfio = { ...HOSTS[0]!, devicePaths: ['/dev/vfio/0', '/dev/vfio/1', '/dev/vfio/2', '/dev/vfio/3'] };
    expect(chipDevices(vfio, [1, 3])).toEqual([
      { host: '/dev/vfio/1', container: '/dev/vfio/1' },
      { host: '/dev/vfio/3', container: '/dev/vfio/3' },
      { host: '/dev/vfio/vfio', container: '/dev/vfio/vfio' },
    ]);
    expect(chipDevices({ ...HOSTS[0]!, devicePaths: [] }, [0, 1, 2, 3])).toEqual([]);
    expect(chipDevices(undefined, [0])).toEqual([]);
  });

  it('sliceHosts orders by numeric tpu-worker-id; a worker without tpu-name is its own slice', () => {
    const shuffled = [HOSTS[3]!, HOSTS[1]!, CPU!, HOSTS[0]!, HOSTS[2]!];
    expect(sliceHosts(HOSTS[2]!, shuffled).map((w) => w.id)).toEqual([
      'slice-a-0',
      'slice-a-1',
      'slice-a-2',
      'slice-a-3',
    ]);
    expect(
      sliceOf(CPU, () => {
        throw new Error('not needed');
      }),
    ).toEqual([CPU]);
    expect(sliceOf(undefined, () => [])).toEqual([]);
  });
});
