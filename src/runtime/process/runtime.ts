/**
 * ProcessRuntime: runs each attempt as a local process (execa by default, no shell of its own;
 * the cluster uses the resident spawner, spawner.ts, so that it never forks itself per attempt)
 * under a small `/bin/sh` wrapper (wrapper.ts) that leads the attempt's process group and
 * session (`detached`), with exactly `launch.env` for the task and stdin ignored. The task's
 * stdout/stderr go to spool files that SpoolPump moves line by line into the attempt's log
 * (src/logs/format.ts), so output and exit status outlive the controller.
 *
 * Invariants:
 * - launch() resolves only once the process is spawned (pid known); it rejects with a
 *   LaunchError ("command not found: X", "permission denied: X", ...) when it cannot start,
 *   and then leaves none of the attempt's cgroups (stopping or accounting) behind.
 * - Each attempt runs in its own cgroup when one is writable (cgroup.ts): stop, the leader's
 *   exit and reclaim reach every descendant, even one that called setsid or cleared its
 *   environment. Without cgroups, the process group plus an environment scan at stop/reclaim.
 * - A task's processes live no longer than the task: when the wrapper exits, whatever is left
 *   of its cgroup (else its group) is SIGKILLed, like a container whose init ended.
 * - `exited` resolves once, after the wrapper exited, its cgroup is empty and every output byte
 *   reached the log file. It carries the attempt's usage (usage.ts), read from its accounting
 *   cgroups once they are empty and before they are removed (else the wrapper's `times`). An
 *   attempt that failed after the kernel's OOM killer ended one of its processes is reported as
 *   an OOM kill (`oom`, reason `OOM killed by the kernel`; its task ends OUT_OF_MEMORY).
 * - stop() sends SIGTERM to the group and every cgroup member, SIGKILL after the grace, and
 *   resolves when `exited` did; stopping a task that already ended sends nothing.
 * - close() only stops tracking; running tasks keep running (and their `exited` still settles).
 * - recover() (after a restart) reads the status files of attempts the store knew as running:
 *   one that ended while no controller watched keeps its exit code, its output and the usage
 *   its cgroups still hold.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type * as rt from '../types.js';
import { IrisError } from '../../model/errors.js';
import { execInProcess, type ProcessExecTarget } from './exec.js';
import { ensureDir } from '../../logs/files.js';
import { signalGroup } from '../../host/proc.js';
import { reclaimProcesses, taskIdOf } from './reclaim.js';
import { attemptCgroupName, detectCgroups, type CgroupChoice, type TaskCgroups } from './cgroup.js';
import { reclaimCgroups } from './cgroup-reclaim.js';
import { removeClusterDir } from './cgroup-fs.js';
import { SpoolPump } from './spool.js';
import { detectUsage, readTimesFile, type UsageMeter } from './usage.js';
import {
  CommandCache,
  CommandError,
  WRAPPER_SH,
  attemptFiles,
  readStatus,
  wrapperArgs,
  type AttemptFiles,
} from './wrapper.js';
import { LaunchError, launchError, outputFilesError } from './launch-error.js';
import { spawnHere } from './direct-spawn.js';
import { ResidentSpawner, SpawnError, type Spawned } from './spawner.js';

export { LaunchError } from './launch-error.js';

export interface ProcessRuntimeOptions {
  /** Clock for log line times. */
  now?: () => number;
  /**
   * 'execa' (default) spawns through execa; 'node' calls node:child_process spawn with the same
   * options and skips execa's per-process bookkeeping (~0.5 ms of CPU per task here);
   * 'resident' hands each launch to a small resident child process (spawner.ts) that forks the
   * wrapper, so this process never forks itself per task.
   */
  spawner?: 'execa' | 'node' | 'resident';
  /** Which cgroups to use (default 'auto': the best writable one; 'off': process groups only). */
  cgroups?: CgroupChoice;
  /**
   * One directory for every attempt's spools and status file (wrapper.ts attemptFiles; the cluster
   * gives `IRIS_HOME/spool`): an attempt then makes no directory of its own, and its files are gone
   * once settled() is told its end is recorded. Default: `<log dir>/.run/` per task.
   */
  spoolDir?: string;
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
  /** What an exec into it needs: its environment, working directory and cgroups (exec.ts). */
  target: ProcessExecTarget;
}

/** The cluster an attempt belongs to (names its cgroup's parent). */
export function clusterOf(launch: rt.TaskLaunch): string {
  return launch.labels['iris.cluster'] ?? launch.env.IRIS_CLUSTER_ID ?? '-';
}

export class ProcessRuntime implements rt.TaskRuntime {
  readonly name = 'process';
  private readonly now: (() => number) | undefined;
  private readonly spawner: 'execa' | 'node' | 'resident';
  private resident: ResidentSpawner | null = null;
  /** Command paths found in the last second (a burst of launches searches PATH once). */
  private readonly commands = new CommandCache();
  private readonly cgroupChoice: CgroupChoice;
  private cgroupsFound: Promise<TaskCgroups | null> | null = null;
  private meterFound: Promise<UsageMeter> | null = null;
  private readonly states = new WeakMap<rt.RunningTask, TaskState>();
  /** pid -> live task of this instance (also the groups reclaim must not touch). */
  private readonly live = new Map<number, rt.RunningTask>();
  /** Clusters this instance launched for (their cgroup directories are removed at close when empty). */
  private readonly clusters = new Set<string>();
  private readonly spoolDir: string | null;

  constructor(options: ProcessRuntimeOptions = {}) {
    this.now = options.now;
    this.spoolDir = options.spoolDir ?? null;
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

  async launch(launch: rt.TaskLaunch): Promise<rt.RunningTask> {
    const [file, ...args] = launch.argv;
    if (file === undefined || file === '') throw new LaunchError('empty command');
    const files = attemptFiles(launch.logPath, this.spoolDir);
    let command: string;
    try {
      command = this.commands.resolve(file, launch.env, launch.cwd);
    } catch (err) {
      if (err instanceof CommandError)
        throw await launchError(Object.assign(new Error(err.code), { code: err.code }), file, launch.cwd);
      throw err;
    }
    const cgroups = await this.cgroups();
    const clusterId = clusterOf(launch);
    this.clusters.add(clusterId);
    const name = attemptCgroupName(taskIdOf(launch.key), launch.key.attempt);
    const meter = await this.meter();
    // The spool directory, the attempt's cgroup and its accounting cgroups are made at once (each a
    // trip through the thread pool; one after the other they add up).
    const madeDir = ensureDir(files.dir).then(
      () => null,
      (err: NodeJS.ErrnoException) => err,
    );
    const madeCgroup: Promise<string | null> = cgroups
      ? // Not fatal: without its cgroup the attempt is still stopped through its process group.
        cgroups.create(cgroups.dirFor(clusterId, name)).then(
          () => cgroups.dirFor(clusterId, name),
          () => null,
        )
      : Promise.resolve(null);
    const joined = cgroups ? cgroups.procsFile(cgroups.dirFor(clusterId, name)) : null;
    const [dirError, cgroup, accounting] = await Promise.all([
      madeDir,
      madeCgroup,
      meter.create(clusterId, name, joined),
    ]);
    const procs = cgroup === null ? [] : [cgroups!.procsFile(cgroup)];
    procs.push(...accounting);
    // An attempt that never starts leaves none of its cgroups behind (a task could otherwise fill
    // the hierarchy by submitting children that cannot start: a bad cwd, a NUL byte, ...).
    const dropCgroups = (): Promise<unknown> =>
      Promise.all([cgroup !== null ? cgroups!.remove(cgroup) : null, meter.remove(clusterId, name, cgroup)]).catch(
        () => undefined,
      );
    if (dirError) {
      await dropCgroups();
      throw new LaunchError(
        this.spoolDir === null
          ? `cannot create the log directory ${dirname(launch.logPath)}: ${dirError.code ?? dirError.message}`
          : `cannot create the spool directory ${files.dir}: ${dirError.code ?? dirError.message}`,
        dirError.code,
      );
    }
    const argv = wrapperArgs(procs, files, launch.env, command, args, meter.measuresCpu ? null : files.usage);
    let started: Spawned;
    try {
      started =
        this.spawner === 'resident'
          ? await this.spawnResident(argv, launch, file, files)
          : await spawnHere(this.spawner, argv, launch, file, files);
    } catch (error) {
      await dropCgroups();
      throw error;
    }
    const { pid } = started;
    const leaderExit = started.exit.then(({ code, signal, lost }) => {
      if (!lost) return { code, signal };
      // The spawner died before it saw the exit: the wrapper's status file has the code; without
      // one the wrapper itself was killed.
      const status = readStatus(files.status);
      return { code: status, signal: status === null ? ('SIGKILL' as const) : null };
    });
    let logFailed!: (error: NodeJS.ErrnoException) => void;
    const failed = new Promise<NodeJS.ErrnoException>((resolve) => (logFailed = resolve));
    const pump = await SpoolPump.start(files, launch.logPath, {
      ...(this.now ? { now: this.now } : {}),
      limitBytes: launch.logLimitBytes ?? null,
      onError: (e) => logFailed(e),
    });
    const state: TaskState = {
      pid,
      clusterId,
      name,
      cgroup,
      leaderGone: false,
      done: false,
      target: { env: launch.env, cwd: launch.cwd, procs },
    };
    const exited = leaderExit.then(async ({ code, signal }): Promise<rt.TaskExit> => {
      state.leaderGone = true;
      // Leftovers would outlive the task: end them like a container's init would. A cgroup that
      // cannot be read now (EMFILE, say) still gets its leader's group killed, and the exit is
      // recorded: nothing here may fail the attempt's end (or escape as an unhandled rejection).
      await killLeftovers(cgroups, cgroup, pid);
      // Nothing of the attempt runs any more: the spools are drained while its usage is read
      // (counted before its cgroups go) and its cgroups are removed.
      const [[usage, oomKills]] = await Promise.all([
        (async () => {
          const counted = await Promise.all([
            Promise.resolve()
              .then(async () => (await meter.read(clusterId, name)) ?? (await readTimesFile(files.usage)))
              .catch(() => null),
            meter.oomKills(clusterId, name).catch(() => null),
          ]);
          await Promise.all([
            cgroup !== null ? cgroups!.remove(cgroup) : null,
            meter.remove(clusterId, name, cgroup),
          ]).catch(() => undefined);
          return counted;
        })(),
        pump.finish(),
      ]);
      state.done = true;
      if (this.live.get(pid) === task) this.live.delete(pid);
      const exit: rt.TaskExit = { exitCode: code, signal };
      markOomKill(exit, oomKills);
      if (usage) exit.usage = usage;
      if (pump.cut) exit.logCut = true;
      if (pump.error) exit.logError = pump.error;
      return exit;
    });
    const task: rt.RunningTask = { key: launch.key, pid, exited, logFailed: failed };
    this.states.set(task, state);
    this.live.set(pid, task);
    return task;
  }

  /** Runs a command in the running attempt's cgroups, working directory and environment (exec.ts). */
  async exec(task: rt.RunningTask, spec: rt.ExecSpec): Promise<rt.ExecSession> {
    const state = this.states.get(task);
    if (!state || state.leaderGone)
      throw new IrisError(
        'not_found',
        `${taskIdOf(task.key)} attempt ${task.key.attempt} has ended: nothing runs to exec into`,
      );
    return execInProcess(state.target, spec);
  }

  async stop(task: rt.RunningTask, graceMs: number): Promise<void> {
    const state = this.states.get(task);
    const pid = state?.pid ?? task.pid;
    if (pid === null || state?.leaderGone) {
      await task.exited;
      return;
    }
    let settled = false;
    const done = (): void => {
      settled = true;
    };
    void task.exited.then(done, done);
    const cgroups = state?.cgroup ? await this.cgroups() : null;
    signalGroup(pid, 'SIGTERM');
    if (cgroups && state?.cgroup) await cgroups.signal(state.cgroup, 'SIGTERM').catch(() => undefined);
    // Without a cgroup, processes that left the group are found by their environment.
    const scan =
      !cgroups && state
        ? reclaimProcesses(state.clusterId, [], graceMs, { only: task.key, excludeGroups: new Set([pid]) })
        : null;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      task.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, graceMs));
      }),
    ]);
    clearTimeout(timer);
    if (!settled && !state?.leaderGone) await killLeftovers(cgroups, state?.cgroup ?? null, pid);
    await Promise.all([task.exited, scan]);
  }

  /**
   * Attempts of `records` that ended while no controller watched them (their wrapper wrote a
   * status): their leftovers are killed, their output is moved into their logs, and their
   * exits are returned. Records without a log path or a complete status are left to reclaim().
   */
  async recover(clusterId: string, records: readonly rt.StartedRecord[]): Promise<rt.RecoveredExit[]> {
    const cgroups = await this.cgroups();
    const meter = await this.meter();
    const out: rt.RecoveredExit[] = [];
    for (const record of records) {
      if (!record.logPath) continue;
      const files = this.filesOf(record.logPath);
      const code = readStatus(files.status);
      if (code === null) continue;
      const name = attemptCgroupName(taskIdOf(record.key), record.key.attempt);
      const dir = cgroups ? cgroups.dirFor(clusterId, name) : null;
      if (cgroups) await cgroups.kill(dir!);
      else await reclaimProcesses(clusterId, [], 0, { only: record.key });
      // The counters survive in the attempt's cgroups until they are removed here.
      const usage = (await meter.read(clusterId, name)) ?? (await readTimesFile(files.usage));
      const oomKills = await meter.oomKills(clusterId, name).catch(() => null);
      if (cgroups) await cgroups.remove(dir!);
      await meter.remove(clusterId, name, dir);
      await SpoolPump.drainLeftovers(files, record.logPath, this.now);
      const exit: rt.TaskExit = { exitCode: code, signal: null };
      markOomKill(exit, oomKills);
      if (usage) exit.usage = usage;
      out.push({ key: record.key, exit });
    }
    return out;
  }

  async reclaim(clusterId: string, records: readonly rt.StartedRecord[], graceMs: number): Promise<rt.TaskKey[]> {
    const keys = new Map<string, rt.TaskKey>();
    const add = (key: rt.TaskKey): void => void keys.set(`${taskIdOf(key)}\0${key.attempt}`, key);
    const cgroups = await this.cgroups();
    this.clusters.add(clusterId);
    if (cgroups) {
      const mine = new Set([...this.live.values()].map((t) => this.states.get(t)?.cgroup));
      for (const key of await reclaimCgroups(cgroups, clusterId, graceMs, mine)) add(key);
      const live = new Set([...this.live.values()].map((t) => this.states.get(t)?.name ?? ''));
      await (await this.meter()).removeCluster(clusterId, live);
    }
    for (const key of await reclaimProcesses(clusterId, records, graceMs, { excludeGroups: new Set(this.live.keys()) }))
      add(key);
    // Everything of those attempts is gone now: keep what they wrote.
    for (const record of records) {
      if (record.logPath) await SpoolPump.drainLeftovers(this.filesOf(record.logPath), record.logPath, this.now);
    }
    return [...keys.values()];
  }

  /**
   * The store has recorded the ends of these attempts: their status and usage files, kept until
   * now so that a controller that died before recording an end still finds it (recover()), go.
   */
  settled(records: readonly Pick<rt.StartedRecord, 'logPath'>[]): void {
    for (const { logPath } of records) {
      if (!logPath) continue;
      const files = attemptFiles(logPath, this.spoolDir);
      for (const f of [files.status, files.usage]) {
        try {
          unlinkSync(f);
        } catch {
          // never written, or already gone
        }
      }
    }
  }

  /**
   * An attempt's files as recover() and reclaim() look for them: in the spool directory, else
   * where a build without one left them (`<log dir>/.run/`: an attempt started before an upgrade).
   */
  private filesOf(logPath: string): AttemptFiles {
    const files = attemptFiles(logPath, this.spoolDir);
    if (this.spoolDir === null || existsSync(files.status) || existsSync(files.out)) return files;
    const legacy = attemptFiles(logPath);
    return existsSync(legacy.status) || existsSync(legacy.out) ? legacy : files;
  }

  /** Spawns the wrapper through the resident spawner; its errors become LaunchErrors. */
  private async spawnResident(
    argv: string[],
    launch: rt.TaskLaunch,
    file: string,
    files: AttemptFiles,
  ): Promise<Spawned> {
    this.resident ??= new ResidentSpawner();
    try {
      return await this.resident.spawn({
        file: WRAPPER_SH,
        args: argv,
        env: launch.env,
        cwd: launch.cwd,
        out: files.out,
        err: files.err,
      });
    } catch (e) {
      if (!(e instanceof SpawnError)) throw e;
      const errno = Object.assign(new Error(e.message), { code: e.code }) as NodeJS.ErrnoException;
      if (e.stage === 'output') throw outputFilesError(files.dir, errno);
      throw await launchError(errno, file, launch.cwd);
    }
  }

  /** Stops tracking (tasks keep running) and removes this runtime's empty cluster cgroups. */
  async close(): Promise<void> {
    this.live.clear();
    this.resident?.close();
    const cgroups = this.cgroupsFound ? await this.cgroupsFound : null;
    if (cgroups) await Promise.all([...this.clusters].map((id) => removeClusterDir(cgroups.root, id)));
    const meter = this.meterFound ? await this.meterFound : null;
    if (meter) await Promise.all([...this.clusters].map((id) => meter.closeCluster(id)));
  }
}

/**
 * SIGKILL an attempt's processes: its cgroup's members when it has one, else (and also when the
 * cgroup cannot be read or written, e.g. EMFILE) the leader's process group. Never throws.
 */
async function killLeftovers(cgroups: TaskCgroups | null, cgroup: string | null, pid: number): Promise<void> {
  if (cgroups && cgroup !== null) {
    try {
      await cgroups.kill(cgroup);
      return;
    } catch {
      // fall back to the group below
    }
  }
  signalGroup(pid, 'SIGKILL');
}

/** A failed attempt after `oomKills` OOM kills of its processes (see the header) is reported as an OOM kill. */
export function markOomKill(exit: rt.TaskExit, oomKills: number | null): void {
  const failed = exit.signal !== null || (exit.exitCode !== null && exit.exitCode !== 0);
  if (!failed || oomKills === null || oomKills === 0) return;
  exit.oom = true;
  exit.reason = 'OOM killed by the kernel';
}
