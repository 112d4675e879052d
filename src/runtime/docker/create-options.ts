/**
 * Pure translation of a TaskLaunch into the Docker engine's container-create request.
 *
 * Security profile of an iris container (unless the worker's config opts into `privileged`):
 * - Capabilities: all dropped, then only these added back: CHOWN, DAC_OVERRIDE, FOWNER, FSETID,
 *   KILL, SETGID, SETUID, NET_BIND_SERVICE (what ordinary programs, package installs and
 *   servers need). Compared with Docker's default set this removes NET_RAW (raw sockets, ping
 *   spoofing), MKNOD (creating device nodes), AUDIT_WRITE, SETFCAP (file capabilities),
 *   SETPCAP and SYS_CHROOT.
 * - `no-new-privileges`: setuid binaries and file capabilities cannot raise privileges.
 * - No privileged mode; devices are mapped one by one (TPU chips or stand-ins, rwm), GPUs only
 *   through the engine's NVIDIA device request for the assigned ids.
 * - Limits: NanoCpus from the cpu request (capped at the engine's CPU count), Memory from the
 *   memory request with MemorySwap equal to it (no swap), a PidsLimit (default 4096).
 * - Init: the engine's init (docker-init/tini) is PID 1 when the engine has one, so SIGTERM
 *   reaches a shell task and orphans are reaped; when it exits, the kernel ends the rest.
 * - User: the launch's (by default 65534:65534, nobody), so the task is not uid 0; the kept
 *   capabilities then apply only to a task that runs as root on purpose (`--user-in-container 0`).
 * - Network: the launch's (`bridge` unless the job or the config asks for `host`).
 * - Task token: not in the environment; a file bind-mounted read-only (token-file.ts), readable
 *   through one added group (GroupAdd) that host processes of the container's uid lack.
 * - The engine's own seccomp and AppArmor defaults stay in place.
 */
import type { ContainerCreateOptions } from 'dockerode';
import type { TaskLaunch } from '../types.js';

/** Capabilities an iris container keeps (all others are dropped). */
export const KEPT_CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'NET_BIND_SERVICE',
] as const;

export const DEFAULT_PIDS_LIMIT = 4096;
/** The engine refuses NanoCpus below 0.01 CPU. */
const MIN_NANO_CPUS = 10_000_000;

/** What the create request depends on besides the launch (asked of the engine once). */
export interface EngineInfo {
  /** The engine has an init binary (docker-init) to run as PID 1. */
  init: boolean;
  /** CPUs the engine can give a container (NanoCpus above this are refused). */
  ncpu: number;
}

export interface CreateOptionsExtra {
  /** Random suffix that makes the container name unique (e.g. 4 base-36 chars). */
  suffix: string;
  pidsLimit?: number;
  /**
   * memlock in bytes for a launch that asks for unlimited, when the engine cannot raise it that
   * far (it then runs at the host's hard limit); absent: unlimited.
   */
  memlockBytes?: number;
}

export const RUNTIME_LABEL = 'iris.runtime';

/** `iris-<task path>-a<attempt>-<suffix>` with only the characters Docker allows in names. */
export function containerName(launch: TaskLaunch, suffix: string): string {
  const path = launch.key.task
    .replace(/^\/+/, '')
    .replace(/[^a-zA-Z0-9_.-]+/g, '.')
    .replace(/^[._-]+/, '')
    .slice(0, 120);
  return `iris-${path === '' ? 'task' : path}-a${launch.key.attempt}-${suffix}`;
}

/** The labels of an attempt's container: the launch's, the key (used by reclaim) and the runtime. */
export function containerLabels(launch: TaskLaunch): Record<string, string> {
  return {
    ...launch.labels,
    'iris.job': launch.key.job,
    'iris.task': launch.key.task,
    'iris.attempt': String(launch.key.attempt),
    [RUNTIME_LABEL]: 'docker',
  };
}

export function containerCreateOptions(
  launch: TaskLaunch,
  engine: EngineInfo,
  extra: CreateOptionsExtra,
): ContainerCreateOptions & { name: string } {
  const spec = launch.container;
  if (!spec) throw new Error('containerCreateOptions: the launch has no container spec');
  const { cpuMillis, memoryBytes } = launch.resources;
  const hostConfig: NonNullable<ContainerCreateOptions['HostConfig']> = {
    NetworkMode: spec.network,
    Init: engine.init,
    PidsLimit: extra.pidsLimit ?? DEFAULT_PIDS_LIMIT,
    SecurityOpt: ['no-new-privileges'],
  };
  if (cpuMillis > 0) {
    const wanted = Math.max(MIN_NANO_CPUS, Math.round(cpuMillis * 1_000_000));
    hostConfig.NanoCpus = engine.ncpu > 0 ? Math.min(wanted, engine.ncpu * 1_000_000_000) : wanted;
  }
  if (memoryBytes > 0) {
    hostConfig.Memory = memoryBytes;
    hostConfig.MemorySwap = memoryBytes;
  }
  if (spec.privileged) {
    hostConfig.Privileged = true;
  } else {
    hostConfig.CapDrop = ['ALL'];
    hostConfig.CapAdd = [...KEPT_CAPABILITIES];
  }
  if (spec.devices.length > 0) {
    hostConfig.Devices = spec.devices.map((d) => ({
      PathOnHost: d.host,
      PathInContainer: d.container,
      CgroupPermissions: 'rwm',
    }));
  }
  if (spec.gpuIds.length > 0) {
    hostConfig.DeviceRequests = [
      { Driver: 'nvidia', Count: 0, DeviceIDs: [...spec.gpuIds], Capabilities: [['gpu']], Options: {} },
    ];
  }
  const binds = spec.mounts.map((m) => `${m.host}:${m.container}${m.readOnly ? ':ro' : ''}`);
  if (spec.tokenFile) binds.push(`${spec.tokenFile.hostPath}:${spec.tokenFile.path}:ro`);
  if (binds.length > 0) hostConfig.Binds = binds;
  if (spec.shmBytes !== null) hostConfig.ShmSize = spec.shmBytes;
  // The group that may read the token file (token-file.ts); the container's user keeps its own groups.
  if (spec.tokenFile) hostConfig.GroupAdd = [String(spec.tokenFile.gid)];
  if (spec.memlockUnlimited) {
    const limit = extra.memlockBytes ?? -1;
    hostConfig.Ulimits = [{ Name: 'memlock', Soft: limit, Hard: limit }];
  }

  const options: ContainerCreateOptions & { name: string } = {
    name: containerName(launch, extra.suffix),
    Image: spec.image,
    Cmd: [...launch.argv],
    Env: Object.entries(launch.env).map(([k, v]) => `${k}=${v}`),
    Labels: containerLabels(launch),
    Tty: false,
    OpenStdin: false,
    StdinOnce: false,
    AttachStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: hostConfig,
  };
  if (launch.cwd !== '') options.WorkingDir = launch.cwd;
  if (spec.user !== undefined) options.User = spec.user;
  return options;
}
