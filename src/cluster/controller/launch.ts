/**
 * Pure construction of a TaskLaunch from a job, a task and its placement: the task's full
 * environment (inherited base env for processes, the job's -e variables, the IRIS_* contract
 * including IRIS_RUN_ID, the job's run id, IRIS_RESULT_FILE (resultFileFor) and, except on the Kubernetes
 * backend, IRIS_NOTICE_FILE (noticeFileFor); the task token
 * as IRIS_TASK_TOKEN for a process, as a file named by IRIS_TASK_TOKEN_FILE for a container),
 * GPU/TPU variables), its log path, labels and, for jobs with an image, the container spec
 * (chip devices, GPU ids, mounts, shm, memlock, user, network). The runtime applies it as-is
 * (docs/architecture.md, "Runtimes"; the container's security profile: docs/security.md).
 *
 * A container runs as the job's `--user-in-container`, else the config's `container-user`, else
 * 65534:65534 (nobody); on the job's `--network`, else the config's `network`, else `bridge` —
 * except TPU jobs, which default to `host` (the hosts of a local slice and JAX's coordinator
 * meet on localhost and TPU_WORKER_HOSTNAMES).
 */
import path from 'node:path';
import { DEFAULT_CONTAINER_USER, type ContainerNetwork } from '../../model/image.js';
import { sliceHosts, tpuTaskEnv } from '../../model/topology.js';
import type { CallerIsolation } from '../../model/caller.js';
import type { Job, JobSpec, Task, WorkerSpec } from '../../model/types.js';
import type { ContainerSpec, TaskLaunch } from '../../runtime/types.js';
import { attemptLogPath } from '../state/stored-row.js';

export interface LaunchContext {
  clusterId: string;
  home: string;
  /**
   * The task door's socket: tasks' IRIS_CONTROLLER_ADDRESS (unless `controllerAddress`), its directory mounted into
   * containers.
   */
  socketPath: string;
  /**
   * The task door on TCP (config `task-door.advertise`, `http://HOST:PORT`): when set, tasks get
   * it in IRIS_CONTROLLER_ADDRESS instead of the socket, and containers get no socket mounted.
   */
  controllerAddress?: string;
  /** Directory holding the `iris` shim, prepended to PATH so tasks can run `iris submit`. */
  cliBinDir: string;
  /**
   * Environment every process task starts from (the cluster's own, minus IRIS_* variables); containers do not get it.
   */
  baseEnv: Readonly<Record<string, string>>;
  /** Root of the iris package, mounted read-only into containers so the `iris` shim works there. */
  packageRoot?: string;
  /**
   * The config's runtime defaults (`runtime`, `image`, `network`, `container-user`); absent:
   * processes; containers as 65534:65534 on bridge (TPU jobs: host). A null network: the default.
   */
  runtime?: {
    kind: 'process' | 'docker';
    image: string | null;
    network: ContainerNetwork | null;
    containerUser?: string;
  };
  /** Bytes of output per attempt after which its log is cut (`log-limit`); absent: no limit. */
  logLimitBytes?: number;
  /**
   * The Kubernetes backend: every attempt runs as a Pod, of its container's image, else its job's,
   * else this one (`backend.image`). Absent: the local runtimes (a launch without a container is a
   * host process).
   */
  pods?: { image: string | null };
  /** The group of containers' token files (tokenGroupFor the daemon's uid and gid); absent: TOKEN_FILE_GID. */
  tokenGroup?: number;
}

/** The root of every attempt's log tree: `<home>/logs`. */
export function logsRootFor(home: string): string {
  return path.join(home, 'logs');
}

/**
 * Where the process runtime keeps every attempt's spools and status file (`<home>/spool`, one
 * directory shared by all attempts: runtime/process/wrapper.ts attemptFiles).
 */
export function spoolDirFor(home: string): string {
  return path.join(home, 'spool');
}

/**
 * Where an attempt's log is written: `logs/<job path>/@<run>/task-<i>/attempt-<n>.log`
 * (state/stored-row.ts attemptLogPath, the one home of that layout, which also stores such a path
 * in a few bytes). Readers use the attempt's stored `logPath`, never this function.
 */
export function logPathFor(home: string, job: Pick<Job, 'name' | 'run'>, taskIndex: number, attempt: number): string {
  return attemptLogPath(logsRootFor(home), job.name, job.run, taskIndex, attempt);
}

/**
 * Where an attempt may write its results as JSON (`IRIS_RESULT_FILE`): `result.json` in the
 * attempt's own directory `attempt-<n>.d/` beside its log, so it lives and is pruned with the
 * run's logs. A container gets exactly that directory mounted read-write (and nothing else of
 * the log tree); the supervisor creates it before the launch, and removes it (with the log's
 * directories) once the attempt's end is recorded if nothing was written there.
 */
export function resultFileFor(logPath: string): string {
  return path.join(`${logPath.replace(/\.log$/, '')}.d`, 'result.json');
}

/**
 * Where a merged attempt finds the data of every task it serves (`IRIS_MERGED_FILE`, docs/cli.md
 * "Task merging"): `merged.json` in the attempt's own directory, so a container sees it too.
 */
export function mergedFileFor(logPath: string): string {
  return path.join(`${logPath.replace(/\.log$/, '')}.d`, 'merged.json');
}

/** One task of a merged batch as its data file lists it (mergedData). */
export interface MergedTaskData {
  task: string;
  job: string;
  attempt: number;
  /** Its IRIS_TASK_* and IRIS_JOB_ID / IRIS_RUN_ID values and its job's own variables (`--env`). */
  env: Record<string, string>;
}

/** The data file's entry of `task` of `job` (attempt `attempt`). */
export function mergedData(job: Job, task: Task, attempt: number): MergedTaskData {
  return {
    task: task.id,
    job: job.name,
    attempt,
    env: {
      ...job.spec.env,
      IRIS_JOB_ID: job.name,
      IRIS_RUN_ID: String(job.run),
      IRIS_TASK_ID: task.id,
      IRIS_TASK_INDEX: String(task.index),
      IRIS_NUM_TASKS: String(job.spec.replicas),
      IRIS_ATTEMPT: String(attempt),
    },
  };
}

/**
 * Where iris tells an attempt why it is being stopped (`IRIS_NOTICE_FILE`): `notice` in the same
 * `attempt-<n>.d/` as its result file (so a container sees it at the same path). iris writes it,
 * one line such as `preempted by /eval (interactive)`, before the attempt's SIGTERM when it is
 * preempted (supervisor.ts); iris never reads it.
 */
export function noticeFileFor(logPath: string): string {
  return path.join(`${logPath.replace(/\.log$/, '')}.d`, 'notice');
}

/** The daemon's environment without variables that would confuse a task about who it is. */
export function inheritableEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key.startsWith('IRIS_')) continue;
    out[key] = value;
  }
  return out;
}

/** Where a task was placed: the scheduler's placement plus the worker and, for TPU tasks, its slice. */
export interface LaunchPlacement {
  workerId: string;
  deviceIndices: number[];
  attempt: number;
  token: string;
  logPath: string;
  /** The worker the task runs on (its device paths, hostname, privileged opt-in, tpu attributes). */
  worker?: WorkerSpec;
  /** The hosts of the worker's TPU slice (`sliceOf`); order does not matter. */
  slice?: readonly WorkerSpec[];
}

/** PATH inside a container when the job sets none (the usual Linux default), after the iris shim dir. */
export const CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Smallest /dev/shm of an accelerator container. */
export const MIN_ACCELERATOR_SHM_BYTES = 1024 ** 3;

/** The workers of `worker`'s TPU slice among `all` (just the worker without a tpu-name); cheap for others. */
export function sliceOf(worker: WorkerSpec | undefined, all: () => readonly WorkerSpec[]): WorkerSpec[] {
  if (!worker) return [];
  return worker.attributes['tpu-name'] === undefined ? [worker] : sliceHosts(worker, all());
}

/** The image of a job that names none: the configured one when the runtime is docker, else none (a process). */
export function defaultImage(runtime: LaunchContext['runtime']): string | null {
  return runtime?.kind === 'docker' ? runtime.image : null;
}

/**
 * The image a job runs in, or null for a process: what admission resolved into its spec (its own
 * `--image`, its container parent's, else the configured default at submit; none for
 * `--runtime process`). The config's default is not applied again here, so a process job stays
 * a process under a cluster whose default runtime is docker.
 */
export function imageFor(job: Job): string | null {
  return job.spec.image || null;
}

/**
 * Chip device files for a container: the worker's path of each assigned chip, as /dev/accel<k>
 * inside (k = the chip's index on the worker, matching TPU_VISIBLE_CHIPS), or at the same path
 * for VFIO chips (/dev/vfio/<n>, plus the /dev/vfio/vfio control device they need). Chips
 * without a known path are not mapped: iris never invents a device.
 */
export function chipDevices(worker: WorkerSpec | undefined, chips: readonly number[]): ContainerSpec['devices'] {
  const paths = worker?.devicePaths ?? [];
  const devices: ContainerSpec['devices'] = [];
  let vfio = false;
  for (const k of chips) {
    const host = paths[k];
    if (host === undefined) continue;
    if (host.startsWith('/dev/vfio/')) {
      vfio = true;
      devices.push({ host, container: host });
    } else {
      devices.push({ host, container: `/dev/accel${k}` });
    }
  }
  if (vfio && !devices.some((d) => d.host === '/dev/vfio/vfio'))
    devices.push({ host: '/dev/vfio/vfio', container: '/dev/vfio/vfio' });
  return devices;
}

/** Where a container finds its task token (IRIS_TASK_TOKEN_FILE): a directory of its own at the root, in no image. */
export const CONTAINER_TOKEN_FILE = '/.iris-task/token';
/** The token file's group when the cluster's owner is root: a gid no account should have. */
export const TOKEN_FILE_GID = 2_000_000;

/**
 * The group of containers' token files (LaunchContext.tokenGroup), which iris adds to the groups
 * of every container's processes, for a cluster owner of `uid`/`gid`: root may give a file any
 * group and takes TOKEN_FILE_GID; another owner may give its files only its own groups and takes
 * its primary group (a host process of a container's uid, nobody by default, is not in it).
 */
export function tokenGroupFor(uid: number, gid: number): number {
  return uid === 0 || gid === 0 ? TOKEN_FILE_GID : gid;
}

/** Where the token file of an attempt's container is kept on the host: beside its log, `attempt-<n>.token`. */
export function tokenFileFor(logPath: string): string {
  return `${logPath.replace(/\.log$/, '')}.token`;
}

function containerSpec(ctx: LaunchContext, job: Job, image: string, placement: LaunchPlacement): ContainerSpec {
  const device = job.spec.resources.device;
  const mounts: ContainerSpec['mounts'] = [];
  const mount = (host: string, readOnly: boolean) => {
    if (!mounts.some((m) => m.host === host)) mounts.push({ host, container: host, readOnly });
  };
  // Read-only: connecting to the socket needs no write access to its directory, and a container
  // (whatever its user) can then neither remove nor replace the door other tasks connect to.
  if (ctx.controllerAddress === undefined) mount(path.dirname(ctx.socketPath), true);
  if (ctx.packageRoot) mount(ctx.packageRoot, true);
  mount(ctx.cliBinDir, true);
  mount(path.dirname(resultFileFor(placement.logPath)), false);
  for (const m of job.spec.mounts ?? [])
    mounts.push({ host: m.source, container: m.target, readOnly: m.readOnly, user: true });
  const accelerator = device !== null;
  return {
    image,
    devices: device?.type === 'tpu' ? chipDevices(placement.worker, placement.deviceIndices) : [],
    gpuIds: device?.type === 'gpu' ? placement.deviceIndices.map(String) : [],
    mounts,
    shmBytes: accelerator ? Math.max(MIN_ACCELERATOR_SHM_BYTES, Math.floor(job.spec.resources.memoryBytes / 2)) : null,
    memlockUnlimited: device?.type === 'tpu',
    privileged: placement.worker?.privileged === true && job.spec.unprivileged !== true,
    network: containerNetwork(ctx, job),
    user: containerUserFor(ctx.runtime, job),
    tokenFile: {
      path: CONTAINER_TOKEN_FILE,
      hostPath: tokenFileFor(placement.logPath),
      token: placement.token,
      gid: ctx.tokenGroup ?? TOKEN_FILE_GID,
    },
  };
}

/**
 * The user a job's container runs as: its `--user-in-container`, else the config's `container-user`, else 65534:65534.
 */
export function containerUserFor(runtime: LaunchContext['runtime'], job: Job): string {
  return job.spec.containerUser ?? runtime?.containerUser ?? DEFAULT_CONTAINER_USER;
}

/**
 * Who a job's tasks run as, as far as the launch says: null for a process, else the container's
 * user (what runtime/task-file.ts taskFileOwner reads). For an attempt whose launch is gone (one
 * recovered after a restart), from the job and the config's runtime defaults.
 */
export function taskRunAs(runtime: LaunchContext['runtime'], job: Job): { user: string } | null {
  return job.spec.image ? { user: containerUserFor(runtime, job) } : null;
}

/**
 * What a running attempt runs in, as its children inherit it (src/cluster/admission/isolation.ts):
 * its container as launched (image, user, network, privileged, the mounts its job asked for); on the Kubernetes backend
 * (`pods`) a Pod of its image, with its job's own user and network choices (a Pod gets no
 * security context from iris); a process only its job's own `--user-in-container` and `--network`.
 */
export function attemptIsolation(
  spec: JobSpec,
  container: ContainerSpec | null | undefined,
  pods?: LaunchContext['pods'],
): CallerIsolation {
  const choices = { user: spec.containerUser ?? null, network: spec.network ?? null, privileged: false };
  if (pods !== undefined) return { image: container?.image ?? spec.image ?? pods.image, ...choices };
  if (container) {
    const mounts = container.mounts
      .filter((m) => m.user)
      .map((m) => ({ source: m.host, target: m.container, readOnly: m.readOnly }));
    return {
      image: container.image,
      user: container.user ?? null,
      network: container.network,
      privileged: container.privileged,
      ...(mounts.length > 0 ? { mounts } : {}),
    };
  }
  return { image: null, ...choices };
}

/** The job's `--network`, else the config's, else bridge; TPU jobs default to host. */
export function containerNetwork(ctx: LaunchContext, job: Job): ContainerNetwork {
  return job.spec.network ?? ctx.runtime?.network ?? (job.spec.resources.device?.type === 'tpu' ? 'host' : 'bridge');
}

/**
 * The complete launch of one attempt. Host processes inherit ctx.baseEnv; containers and Pods
 * start from an empty environment (the image's own plus exactly this env: the job's variables, the IRIS_*
 * contract, accelerator variables and PATH). GPU containers get their GPUs through the engine's
 * device request, which renumbers them from 0 inside, so CUDA_VISIBLE_DEVICES is set only for
 * processes (host indices).
 */
export function buildLaunch(ctx: LaunchContext, job: Job, task: Task, placement: LaunchPlacement): TaskLaunch {
  const spec = job.spec;
  const image = imageFor(job);
  // Only a host process inherits the daemon's environment: a Pod runs elsewhere, and a copy per
  // launch of 10,000 Pods was the largest thing the controller held (issue 36).
  const inherits = image === null && ctx.pods === undefined;
  const env: Record<string, string> = inherits ? { ...ctx.baseEnv, ...spec.env } : { ...spec.env };
  const basePath =
    image === null
      ? (spec.env.PATH ?? ctx.baseEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin')
      : (spec.env.PATH ?? CONTAINER_PATH);
  Object.assign(env, {
    PATH: `${ctx.cliBinDir}${image === null ? path.delimiter : ':'}${basePath}`,
    IRIS_CLUSTER_ID: ctx.clusterId,
    IRIS_JOB_ID: job.name,
    IRIS_RUN_ID: String(job.run),
    IRIS_TASK_ID: task.id,
    IRIS_TASK_INDEX: String(task.index),
    IRIS_NUM_TASKS: String(spec.replicas),
    IRIS_ATTEMPT: String(placement.attempt),
    IRIS_WORKER_ID: placement.workerId,
    IRIS_CONTROLLER_ADDRESS: ctx.controllerAddress ?? ctx.socketPath,
    // A process gets its token in the environment (only the owner's uid can read it there); a
    // container gets a file only its own processes can read (ContainerSpec.tokenFile).
    ...(image === null ? { IRIS_TASK_TOKEN: placement.token } : { IRIS_TASK_TOKEN_FILE: CONTAINER_TOKEN_FILE }),
    IRIS_USER: spec.user,
    IRIS_RESULT_FILE: resultFileFor(placement.logPath),
    // A Pod does not see the host's attempt directory: it gets no notice file (only its grace period).
    ...(ctx.pods === undefined ? { IRIS_NOTICE_FILE: noticeFileFor(placement.logPath) } : {}),
  });
  const device = spec.resources.device;
  if (device?.type === 'gpu' && placement.deviceIndices.length > 0 && image === null) {
    const ids = placement.deviceIndices.join(',');
    env.CUDA_VISIBLE_DEVICES = ids;
    env.NVIDIA_VISIBLE_DEVICES = ids;
  }
  if (device?.type === 'tpu') {
    const worker: WorkerSpec = placement.worker ?? {
      id: placement.workerId,
      cpuMillis: 0,
      memoryBytes: 0,
      device: { type: 'tpu', variant: device.variant, count: 0 },
      attributes: {},
    };
    Object.assign(
      env,
      tpuTaskEnv({
        variant: device.variant,
        jobName: job.name,
        taskIndex: task.index,
        replicas: spec.replicas,
        worker,
        hosts: placement.slice && placement.slice.length > 0 ? sliceHosts(worker, placement.slice) : [worker],
        chips: placement.deviceIndices,
      }),
    );
  }
  return {
    key: { job: job.name, task: task.id, attempt: placement.attempt },
    argv: spec.command,
    env,
    cwd: image === null ? (spec.cwd ?? ctx.home) : (spec.cwd ?? ''),
    logPath: placement.logPath,
    ...(ctx.logLimitBytes === undefined ? {} : { logLimitBytes: ctx.logLimitBytes }),
    resources: spec.resources,
    deviceIndices: placement.deviceIndices,
    labels: {
      'iris.cluster': ctx.clusterId,
      'iris.job': job.name,
      'iris.task': task.id,
      'iris.attempt': String(placement.attempt),
    },
    ...(image === null ? {} : { container: containerSpec(ctx, job, image, placement) }),
    workerId: placement.workerId,
    ...(spec.coschedule ? { gang: { id: `${job.name}@${job.run}`, size: spec.replicas } } : {}),
  };
}
