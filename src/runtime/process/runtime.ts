/**
 * ProcessRuntime: runs each attempt as a local process (execa by default, no shell of its own)
 * under a small `/bin/sh` wrapper (wrapper.ts) that leads the attempt's process group and
 * session (`detached`), with exactly `launch.env` for the task and stdin ignored. The task's
 * stdout/stderr go to spool files that SpoolPump moves line by line into the attempt's log
 * (src/logs/format.ts), so output and exit status outlive the controller.
 *
 * Invariants:
 * - launch() resolves only once the process is spawned (pid known); it rejects with a
 *   LaunchError ("command not found: X", "permission denied: X", ...) when it cannot start.
 * - Each attempt runs in its own cgroup when one is writable (cgroup.ts): stop, the leader's
 *   exit and reclaim reach every descendant, even one that called setsid or cleared its
 *   environment. Without cgroups, the process group plus an environment scan at stop/reclaim.
 * - A task's processes live no longer than the task: when the wrapper exits, whatever is left
 *   of its cgroup (else its group) is SIGKILLed, like a container whose init ended.
 * - `exited` resolves once, after the wrapper exited, its cgroup is empty and every output byte
 *   reached the log file. It carries the attempt's usage (usage.ts), read from its accounting
 *   cgroups once they are empty and before they are removed (else the wrapper's `times`).
 * - stop() sends SIGTERM to the group and every cgroup member, SIGKILL after the grace, and
 *   resolves when `exited` did; stopping a task that already ended sends nothing.
 * - close() only stops tracking; running tasks keep running (and their `exited` still settles).
 * - recover() (after a restart) reads the status files of attempts the store knew as running:
 *   one that ended while no controller watched keeps its exit code, its output and the usage
 *   its cgroups still hold.
 */
import { dirname } from 'node:path';
import { closeSync, constants, open, stat } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import type { execa as Execa } from 'execa';
import type { RecoveredExit, RunningTask, StartedRecord, TaskExit, TaskKey, TaskLaunch, TaskRuntime } from '../types.js';
import { ensureDir } from '../../logs/files.js';
import { signalGroup } from './proc.js';
import { reclaimProcesses, taskIdOf } from './reclaim.js';
import { attemptCgroupName, detectCgroups, type CgroupChoice, type TaskCgroups } from './cgroup.js';
import { reclaimCgroups } from './cgroup-reclaim.js';
import { SpoolPump } from './spool.js';
import { detectUsage, readTimesFile, type UsageMeter } from './usage.js';
import { CommandError, WRAPPER_SH, attemptFiles, readStatus, resolveCommand, wrapperArgs } from './wrapper.js';

/** The attempt could not be started at all. `errno` is the spawn error code when there was one. */
export class LaunchError extends Error {
  readonly errno: string | undefined;
  constructor(message: string, errno?: string) {
    super(message);
    this.name = 'LaunchError';
    this.errno = errno;
  }
}

export interface ProcessRuntimeOptions {
  /** Clock for log line times. */
  now?: () => number;
  /**
   * 'execa' (default) spawns through execa; 'node' calls node:child_process spawn with the same
   * options and skips execa's per-process bookkeeping (~0.5 ms of CPU per task here).
   */
  spawner?: 'execa' | 'node';
  /** Which cgroups to use (default 'auto': the best writable one; 'off': process groups only). */
  cgroups?: CgroupChoice;
}

interface TaskState {
  pid: number;
  clusterId: string;
  /** The attempt's cgroup name (attemptCgroupName). */
  name: string;
  /** The attempt's cgroup directory, or null without cgroups. */
  cgroup: string | null;
  /** The leader has exited (its pid may be reused from now on: signal nothing by pid). */
  leaderGone: boolean;
  done: boolean;
}

/**
 * A spool file for the task to append to (O_APPEND: emptying it later is safe, spool.ts);
 * owner-only, and never through a symlink planted at its path (ELOOP).
 */
const SPOOL_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const openFd = (path: string): Promise<number> =>
  new Promise((resolve, reject) => open(path, SPOOL_FLAGS, 0o600, (e, fd) => (e ? reject(e) : resolve(fd))));

const isDir = (path: string): Promise<boolean> =>
  new Promise((resolve) => stat(path, (err, st) => resolve(!err && st.isDirectory())));

async function launchError(err: NodeJS.ErrnoException, file: string, cwd: string): Promise<LaunchError> {
  switch (err.code) {
    case 'ENOENT':
      // spawn reports a missing cwd as ENOENT too.
      if (!(await isDir(cwd))) return new LaunchError(`working directory not found: ${cwd}`, err.code);
      return new LaunchError(`command not found: ${file}`, err.code);
    case 'EACCES':
      if (!(await isDir(cwd))) return new LaunchError(`working directory not found: ${cwd}`, 'ENOENT');
      return new LaunchError(`permission denied: ${file}`, err.code);
    case 'ENOTDIR':
      return new LaunchError(`not a directory: ${cwd}`, err.code);
    default:
      return new LaunchError(`cannot start ${file}: ${err.message}`, err.code);
  }
}

let execaModule: Promise<typeof Execa> | null = null;
const loadExeca = (): Promise<typeof Execa> => (execaModule ??= import('execa').then((m) => m.execa));

/** The cluster an attempt belongs to (names its cgroup's parent). */
export function clusterOf(launch: TaskLaunch): string {
  return launch.labels['iris.cluster'] ?? launch.env.IRIS_CLUSTER_ID ?? '-';
}

export class ProcessRuntime implements TaskRuntime {
  readonly name = 'process';
  private readonly now: (() => number) | undefined;
  private readonly spawner: 'execa' | 'node';
  private readonly cgroupChoice: CgroupChoice;
  private cgroupsFound: Promise<TaskCgroups | null> | null = null;
  private meterFound: Promise<UsageMeter> | null = null;
  private readonly states = new WeakMap<RunningTask, TaskState>();
  /** pid -> live task of this instance (also the groups reclaim must not touch). */
  private readonly live = new Map<number, RunningTask>();
  /** Clusters this instance launched for (their cgroup directories are removed at close when empty). */
  private readonly clusters = new Set<string>();

  constructor(options: ProcessRuntimeOptions = {}) {
    this.now = options.now;
    this.spawner = options.spawner ?? 'execa';
    this.cgroupChoice = options.cgroups ?? 'auto';
  }

  /** The cgroups backend in use (detected once), or null. */
  cgroups(): Promise<TaskCgroups | null> {
    this.cgroupsFound ??= detectCgroups({ choice: this.cgroupChoice });
    return this.cgroupsFound;
  }

  /** Where attempts' CPU and memory counters are read (detected once, beside cgroups()). */
  meter(): Promise<UsageMeter> {
    this.meterFound ??= this.cgroups().then((cgroups) => detectUsage(cgroups));
    return this.meterFound;
  }

  async launch(launch: TaskLaunch): Promise<RunningTask> {
    const [file, ...args] = launch.argv;
    if (file === undefined || file === '') throw new LaunchError('empty command');
    const files = attemptFiles(launch.logPath);
    let command: string;
    try {
      command = resolveCommand(file, launch.env, launch.cwd);
    } catch (err) {
      if (err instanceof CommandError) throw await launchError(Object.assign(new Error(err.code), { code: err.code }), file, launch.cwd);
      throw err;
    }
    const cgroups = await this.cgroups();
    const clusterId = clusterOf(launch);
    this.clusters.add(clusterId);
    const name = attemptCgroupName(taskIdOf(launch.key), launch.key.attempt);
    const meter = await this.meter();
    // execa (~4 MB resident with its dependencies) is loaded only by a runtime that spawns through it.
    const execa = this.spawner === 'execa' ? await loadExeca() : null;
    // The log directory with the spools, the attempt's cgroup and its accounting cgroups are
    // made at once (each a trip through the thread pool; one after the other they add up).
    const madeDir = ensureDir(files.dir).then(
      () => Promise.allSettled([openFd(files.out), openFd(files.err)]),
      (err: NodeJS.ErrnoException) => err,
    );
    const madeCgroup: Promise<string | null> = cgroups
      ? // Not fatal: without its cgroup the attempt is still stopped through its process group.
        cgroups.create(cgroups.dirFor(clusterId, name)).then(() => cgroups.dirFor(clusterId, name), () => null)
      : Promise.resolve(null);
    const joined = cgroups ? cgroups.procsFile(cgroups.dirFor(clusterId, name)) : null;
    const [made, cgroup, accounting] = await Promise.all([madeDir, madeCgroup, meter.create(clusterId, name, joined)]);
    const procs = cgroup === null ? [] : [cgroups!.procsFile(cgroup)];
    procs.push(...accounting);
    if (!Array.isArray(made)) {
      const gone = Promise.all([cgroup !== null ? cgroups!.remove(cgroup) : null, meter.remove(clusterId, name, cgroup)]);
      await gone.catch(() => undefined);
      throw new LaunchError(`cannot create the log directory ${dirname(launch.logPath)}: ${made.code ?? made.message}`, made.code);
    }
    // Opened off the event loop (creating a file costs ~0.3 ms of kernel time here).
    const opened = made;
    const failure = opened.find((r) => r.status === 'rejected');
    if (failure) {
      for (const r of opened) if (r.status === 'fulfilled') closeSync(r.value);
      const e = (failure as PromiseRejectedResult).reason as NodeJS.ErrnoException;
      throw new LaunchError(`cannot create the output files in ${files.dir}: ${e.code ?? String(e)}`, e.code);
    }
    const [out, err] = opened.map((r) => (r as PromiseFulfilledResult<number>).value) as [number, number];
    const argv = wrapperArgs(procs, files, launch.env, command, args, meter.measuresCpu ? null : files.usage);
    let child: ChildProcess;
    let earlyFailure: PromiseLike<{ failed: boolean; cause?: unknown; shortMessage?: string }> | null = null;
    try {
      if (execa === null) {
        child = spawn(WRAPPER_SH, argv, { env: launch.env, cwd: launch.cwd, detached: true, stdio: ['ignore', out, err], windowsHide: true });
      } else {
        const sub = execa(WRAPPER_SH, argv, {
          env: launch.env,
          extendEnv: false,
          cwd: launch.cwd,
          detached: true,
          stdin: 'ignore',
          // execa takes any fd here; its types accept only literal numbers.
          stdout: out as 1,
          stderr: err as 2,
          buffer: false,
          reject: false,
          cleanup: false,
          windowsHide: true,
        });
        child = sub.nodeChildProcess;
        // With reject:false the promise resolves even on failure. It settles before 'spawn' only
        // when execa could not even create the process (then its child is a dummy).
        earlyFailure = sub;
      }
    } catch (e) {
      closeSync(out);
      closeSync(err);
      // Synchronous validation errors (e.g. a NUL byte in an argument).
      throw new LaunchError(`cannot start ${file}: ${(e as Error).message}`, (e as NodeJS.ErrnoException).code);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const onSpawn = (): void => {
          settled = true;
          child.off('error', onError);
          resolve();
        };
        const onError = (e: NodeJS.ErrnoException): void => {
          if (settled) return;
          settled = true;
          child.off('spawn', onSpawn);
          launchError(e, file, launch.cwd).then(reject, reject);
        };
        child.once('spawn', onSpawn);
        child.once('error', onError);
        earlyFailure?.then((result) => {
          if (settled || !result.failed) return;
          onError(result.cause instanceof Error ? result.cause : new Error(result.shortMessage ?? 'spawn failed'));
        });
      });
    } finally {
      closeSync(out);
      closeSync(err);
    }
    const pid = child.pid!;
    // Later 'error' events (e.g. a failed kill) must not crash the process.
    child.on('error', () => undefined);
    const leaderExit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let logFailed!: (error: NodeJS.ErrnoException) => void;
    const failed = new Promise<NodeJS.ErrnoException>((resolve) => (logFailed = resolve));
    const pump = await SpoolPump.start(files, launch.logPath, {
      ...(this.now ? { now: this.now } : {}),
      limitBytes: launch.logLimitBytes ?? null,
      onError: (e) => logFailed(e),
    });
    const state: TaskState = { pid, clusterId, name, cgroup, leaderGone: false, done: false };
    const exited = leaderExit.then(async ({ code, signal }): Promise<TaskExit> => {
      state.leaderGone = true;
      // Leftovers would outlive the task: end them like a container's init would.
      if (cgroup !== null) await cgroups!.kill(cgroup);
      else signalGroup(pid, 'SIGKILL');
      // Nothing of the attempt runs any more: the spools are drained while its usage is read
      // (counted before its cgroups go) and its cgroups are removed.
      const [usage] = await Promise.all([
        (async () => {
          const counted = (await meter.read(clusterId, name)) ?? (await readTimesFile(files.usage));
          await Promise.all([cgroup !== null ? cgroups!.remove(cgroup) : null, meter.remove(clusterId, name, cgroup)]);
          return counted;
        })(),
        pump.finish(),
      ]);
      state.done = true;
      if (this.live.get(pid) === task) this.live.delete(pid);
      const exit: TaskExit = { exitCode: code, signal };
      if (usage) exit.usage = usage;
      if (pump.cut) exit.logCut = true;
      if (pump.error) exit.logError = pump.error;
      return exit;
    });
    const task: RunningTask = { key: launch.key, pid, exited, logFailed: failed };
    this.states.set(task, state);
    this.live.set(pid, task);
    return task;
  }

  async stop(task: RunningTask, graceMs: number): Promise<void> {
    const state = this.states.get(task);
    const pid = state?.pid ?? task.pid;
    if (pid === null || state?.leaderGone) {
      await task.exited;
      return;
    }
    let settled = false;
    void task.exited.then(() => {
      settled = true;
    });
    const cgroups = state?.cgroup ? await this.cgroups() : null;
    signalGroup(pid, 'SIGTERM');
    if (cgroups && state?.cgroup) await cgroups.signal(state.cgroup, 'SIGTERM');
    // Without a cgroup, processes that left the group are found by their environment.
    const scan = !cgroups && state ? reclaimProcesses(state.clusterId, [], graceMs, { only: task.key, excludeGroups: new Set([pid]) }) : null;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      task.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, graceMs));
      }),
    ]);
    clearTimeout(timer);
    if (!settled && !state?.leaderGone) {
      if (cgroups && state?.cgroup) await cgroups.kill(state.cgroup);
      else signalGroup(pid, 'SIGKILL');
    }
    await Promise.all([task.exited, scan]);
  }

  /**
   * Attempts of `records` that ended while no controller watched them (their wrapper wrote a
   * status): their leftovers are killed, their output is moved into their logs, and their
   * exits are returned. Records without a log path or a complete status are left to reclaim().
   */
  async recover(clusterId: string, records: readonly StartedRecord[]): Promise<RecoveredExit[]> {
    const cgroups = await this.cgroups();
    const meter = await this.meter();
    const out: RecoveredExit[] = [];
    for (const record of records) {
      if (!record.logPath) continue;
      const files = attemptFiles(record.logPath);
      const code = readStatus(files.status);
      if (code === null) continue;
      const name = attemptCgroupName(taskIdOf(record.key), record.key.attempt);
      const dir = cgroups ? cgroups.dirFor(clusterId, name) : null;
      if (cgroups) await cgroups.kill(dir!);
      else await reclaimProcesses(clusterId, [], 0, { only: record.key });
      // The counters survive in the attempt's cgroups until they are removed here.
      const usage = (await meter.read(clusterId, name)) ?? (await readTimesFile(files.usage));
      if (cgroups) await cgroups.remove(dir!);
      await meter.remove(clusterId, name, dir);
      await SpoolPump.drainLeftovers(files, record.logPath, this.now);
      const exit: TaskExit = { exitCode: code, signal: null };
      if (usage) exit.usage = usage;
      out.push({ key: record.key, exit });
    }
    return out;
  }

  async reclaim(clusterId: string, records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]> {
    const keys = new Map<string, TaskKey>();
    const add = (key: TaskKey): void => void keys.set(`${taskIdOf(key)}\0${key.attempt}`, key);
    const cgroups = await this.cgroups();
    this.clusters.add(clusterId);
    if (cgroups) {
      const mine = new Set([...this.live.values()].map((t) => this.states.get(t)?.cgroup));
      for (const key of await reclaimCgroups(cgroups, clusterId, graceMs, mine)) add(key);
      const live = new Set([...this.live.values()].map((t) => this.states.get(t)?.name ?? ''));
      await (await this.meter()).removeCluster(clusterId, live);
    }
    for (const key of await reclaimProcesses(clusterId, records, graceMs, { excludeGroups: new Set(this.live.keys()) })) add(key);
    // Everything of those attempts is gone now: keep what they wrote.
    for (const record of records) {
      if (record.logPath) await SpoolPump.drainLeftovers(attemptFiles(record.logPath), record.logPath, this.now);
    }
    return [...keys.values()];
  }

  /** Stops tracking (tasks keep running) and removes this runtime's empty cluster cgroups. */
  async close(): Promise<void> {
    this.live.clear();
    const cgroups = this.cgroupsFound ? await this.cgroupsFound : null;
    if (cgroups) await Promise.all([...this.clusters].map((id) => rmdir(cgroups.clusterDir(id)).catch(() => undefined)));
    const meter = this.meterFound ? await this.meterFound : null;
    if (meter) await Promise.all([...this.clusters].map((id) => meter.closeCluster(id)));
  }
}
