/**
 * The one interface every task runtime implements: process/ (local process groups), docker/
 * (containers), src/kube (Pods), and for tests test/runtime/fake/ (in memory). A runtime executes
 * fully resolved launches and reports exits; it never decides anything. The local ones and the
 * fake pass test/runtime/contract.ts.
 */
import type { Readable, Writable } from 'node:stream';
import type { ResourceSpec } from '../model/resources.js';

export interface TaskKey {
  job: string;
  task: string;
  attempt: number;
}

/** How a container runtime runs an attempt (absent/null: the attempt is a local process). */
export interface ContainerSpec {
  image: string;
  /** Host device -> container path (TPU chips or stand-ins), like `docker run --device HOST:CONTAINER`. */
  devices: { host: string; container: string }[];
  /** GPU ids for a Docker device request (driver nvidia, capability gpu); empty for none. */
  gpuIds: string[];
  /**
   * Bind mounts. The task door's directory (read-only: a socket there is still connectable) is
   * one of them. `user`: a mount the job asked for (JobSpec.mounts), whose `host` is a real path
   * resolved at submit; the runtime refuses the launch when it no longer is (a link put there since).
   */
  mounts: { host: string; container: string; readOnly: boolean; user?: boolean }[];
  /** /dev/shm size in bytes, or null for the engine's default. */
  shmBytes: number | null;
  /** Raise the memlock limit to unlimited (TPU runtimes pin host memory). */
  memlockUnlimited: boolean;
  /** Only when the worker's config opts in; never by default. */
  privileged: boolean;
  network: 'host' | 'bridge';
  /** `UID[:GID]` or `NAME[:GROUP]` the container's processes run as; absent: the image's own user. */
  user?: string;
  /**
   * The task token as a file instead of an environment variable (which /proc/PID/environ shows
   * to every host process of the container's uid). The runtime writes `token` to `hostPath` (in
   * the state directory's owner-only tree), group `gid`, mode 0440, bind-mounts it read-only at
   * `path` and adds `gid` to the groups of the container's processes: they can read it, a host
   * process of the same uid cannot (not even through /proc/PID/root). It is removed when the
   * container is gone. The Kubernetes backend puts the token in the Pod's environment instead
   * (IRIS_TASK_TOKEN). Absent: no token.
   */
  tokenFile?: { path: string; hostPath: string; token: string; gid: number };
}

/** Everything needed to start one attempt, built by pure code in the controller. */
export interface TaskLaunch {
  key: TaskKey;
  argv: string[];
  /** The complete environment of the task (the runtime adds nothing). */
  env: Record<string, string>;
  cwd: string;
  /** Per-attempt log file; the runtime appends lines in the format of src/logs/format.ts. */
  logPath: string;
  /** Bytes of output after which the log is cut (src/logs/writer.ts LogWriter); absent or null: no limit. */
  logLimitBytes?: number | null;
  resources: ResourceSpec;
  deviceIndices: number[];
  /** Identifies what iris started (cluster id, job, task, attempt). */
  labels: Record<string, string>;
  /**
   * Run in a container instead of a process. Then `cwd` is the directory inside the container
   * ('' for the image's own) and `env` is exactly the container's environment.
   */
  container?: ContainerSpec | null;
  /** The worker the scheduler placed the attempt on (the Kubernetes backend binds its Pod to this Node). */
  workerId?: string;
  /**
   * Set for a member of a gang (coscheduled job): the gang's id and size. The Kubernetes backend binds a gang all or
   * none.
   */
  gang?: { id: string; size: number } | null;
}

export interface TaskExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the infrastructure lost the task (not the task's own fault): counts as a preemption. */
  lost?: string;
  /** Human reason such as "OOM killed" or "command not found: foo". */
  reason?: string;
  /** Killed by the kernel or the engine for memory (Docker State.OOMKilled, a Pod's OOMKilled). */
  oom?: boolean;
  /** Set when the output passed `logLimitBytes`: the log was cut (with a marker line) and the rest dropped. */
  logCut?: boolean;
  /** The first error writing the attempt's log; output after it was dropped (the log is cut). */
  logError?: NodeJS.ErrnoException;
  /** What the attempt used, measured by the runtime (absent when it cannot tell). */
  usage?: TaskUsage;
}

/**
 * Measured usage of one attempt: CPU seconds (user + system) of all it ran, and peak memory in bytes (null when
 * unknown).
 */
export interface TaskUsage {
  cpuSeconds: number;
  peakMemoryBytes: number | null;
}

export interface RunningTask {
  key: TaskKey;
  pid: number | null;
  /** Resolves once, when the attempt's process/container is gone and its output is flushed. */
  exited: Promise<TaskExit>;
  /** Resolves with the first error writing the attempt's log, noticed while it runs (never rejects). */
  logFailed?: Promise<NodeJS.ErrnoException>;
}

/** What a runtime needs to find something it started in an earlier life of the cluster. */
export interface StartedRecord {
  key: TaskKey;
  pid: number | null;
  labels: Record<string, string>;
  /** The attempt's log file (where a process attempt's status and spools are found). */
  logPath?: string;
}

/** An attempt that ended while no controller watched it, as recover() found it. */
export interface RecoveredExit {
  key: TaskKey;
  exit: TaskExit;
}

/** A command to run inside a running attempt (`iris exec`, docs/runtime.md "Exec"). */
export interface ExecSpec {
  argv: string[];
  /** A terminal (pseudo-tty): its output is one stream (stdout), its input the terminal's keys. */
  tty: boolean;
  /** Keep its stdin open for input; false: stdin is closed at once. */
  stdin: boolean;
  /** The terminal's size at start (with `tty`). */
  size?: { rows: number; cols: number };
}

/**
 * One command running in an attempt. Its processes are the task's (a process task's cgroups, a
 * container's namespaces), so they end with the task at the latest.
 */
export interface ExecSession {
  /** Its input (null without `stdin`); end() closes it. */
  stdin: Writable | null;
  stdout: Readable;
  /** With a tty the command's output is all on stdout (stderr, when not null, has only the runtime's own words). */
  stderr: Readable | null;
  /** Its exit code (128+n after signal n), once its output has ended; rejects when that cannot be known. */
  exited: Promise<number>;
  /** A new terminal size (with `tty`; best effort). */
  resize(rows: number, cols: number): void;
  /**
   * Ends it early (the caller went away): SIGHUP, then SIGKILL to what it started, where the runtime can reach them.
   */
  kill(): void;
}

export interface TaskRuntime {
  readonly name: string;
  /**
   * Starts the attempt. Rejects only when it could not be started at all (e.g. command not found).
   * An error carrying a string `lost` property is an infrastructure failure (engine unreachable),
   * recorded as a preemption rather than a task failure.
   */
  launch(launch: TaskLaunch): Promise<RunningTask>;
  /** SIGTERM to the whole process group / container, then SIGKILL after graceMs. Resolves when gone. */
  stop(task: RunningTask, graceMs: number): Promise<void>;
  /**
   * After a restart: stops everything this runtime started for `clusterId` in an earlier life
   * (the records say what the store knew of). Resolves when none is left; returns the keys stopped.
   */
  reclaim(clusterId: string, records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]>;
  /**
   * After a restart, before reclaim(): the attempts of `records` that ended on their own while
   * no controller ran, with their exits; their output is already in their logs and nothing of
   * theirs is left running. A runtime that cannot tell leaves this out (all are reclaimed).
   */
  recover?(clusterId: string, records: readonly StartedRecord[]): Promise<RecoveredExit[]>;
  /**
   * The store has recorded the ends of these attempts (a normal end, or one settled after a
   * restart): what kept each end safe across a controller crash (a process attempt's status file)
   * is no longer needed and goes. Never throws. Absent: the runtime keeps nothing of the kind.
   */
  settled?(records: readonly Pick<StartedRecord, 'logPath'>[]): void;
  /**
   * Runs a command inside the running attempt `task` (its container, its Pod, or a process task's
   * cgroups, working directory and environment). Rejects with an IrisError when the attempt is no
   * longer running or the command cannot be started there. Absent: this runtime cannot.
   */
  exec?(task: RunningTask, spec: ExecSpec): Promise<ExecSession>;
  close(): Promise<void>;
}
