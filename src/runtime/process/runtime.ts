/**
 * ProcessRuntime: runs each attempt as a local process (execa by default, no shell) in its own process
 * group and session (`detached`), with exactly `launch.env`, stdin ignored, and stdout/stderr
 * streamed line by line into the attempt's log file (src/logs/format.ts). Nothing is buffered
 * in memory beyond the log writer's pending bytes.
 *
 * Invariants:
 * - launch() resolves only once the process is spawned (pid known); it rejects with a
 *   LaunchError ("command not found: X", "permission denied: X", ...) when it cannot start.
 * - A task's processes live no longer than the task: when the group leader exits, whatever is
 *   left of its group is SIGKILLed (like a container whose init ended), so no stray child can
 *   hold the output pipes open.
 * - `exited` resolves once, after the leader exited and every output byte reached the log file.
 * - stop() signals the whole group (SIGTERM, grace, SIGKILL) and resolves when `exited` did;
 *   stopping a task that already ended sends nothing (its pid may be reused).
 * - close() only stops tracking; running tasks keep running (and their `exited` still settles).
 */
import { dirname } from 'node:path';
import { stat } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { RunningTask, StartedRecord, TaskExit, TaskKey, TaskLaunch, TaskRuntime } from '../types.js';
import { LogWriter, ensureDir } from '../../logs/format.js';
import { signalGroup } from './proc.js';
import { reclaimProcesses } from './reclaim.js';

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
  /** After the leader exits, how long to wait for the output pipes to close before cutting them. */
  drainMs?: number;
  /**
   * 'execa' (default) spawns through execa; 'node' calls node:child_process spawn with the same
   * options and skips execa's per-process bookkeeping (~0.5 ms of CPU per task here).
   */
  spawner?: 'execa' | 'node';
}

interface TaskState {
  pid: number;
  /** The leader has exited (its pid may be reused from now on: signal nothing). */
  leaderGone: boolean;
  done: boolean;
}

const isDir = (path: string): Promise<boolean> =>
  new Promise((resolve) => stat(path, (err, st) => resolve(!err && st.isDirectory())));

async function launchError(err: NodeJS.ErrnoException, file: string, cwd: string): Promise<LaunchError> {
  switch (err.code) {
    case 'ENOENT':
      // spawn reports a missing cwd as ENOENT too.
      if (!(await isDir(cwd))) return new LaunchError(`working directory not found: ${cwd}`, err.code);
      return new LaunchError(`command not found: ${file}`, err.code);
    case 'EACCES':
      return new LaunchError(`permission denied: ${file}`, err.code);
    case 'ENOTDIR':
      return new LaunchError(`not a directory: ${cwd}`, err.code);
    default:
      return new LaunchError(`cannot start ${file}: ${err.message}`, err.code);
  }
}

/** Resolves when the readable has ended (all its data handed to the writer). */
function streamDone(readable: Readable | null, writer: LogWriter, tag: 'o' | 'e'): Promise<void> {
  return readable === null ? Promise.resolve() : writer.attach(readable, tag);
}

export class ProcessRuntime implements TaskRuntime {
  readonly name = 'process';
  private readonly now: (() => number) | undefined;
  private readonly drainMs: number;
  private readonly spawner: 'execa' | 'node';
  private readonly states = new WeakMap<RunningTask, TaskState>();
  /** pid -> live task of this instance (also the groups reclaim must not touch). */
  private readonly live = new Map<number, RunningTask>();

  constructor(options: ProcessRuntimeOptions = {}) {
    this.now = options.now;
    this.drainMs = options.drainMs ?? 2000;
    this.spawner = options.spawner ?? 'execa';
  }

  async launch(launch: TaskLaunch): Promise<RunningTask> {
    const [file, ...args] = launch.argv;
    if (file === undefined || file === '') throw new LaunchError('empty command');
    await ensureDir(dirname(launch.logPath)).catch((err: NodeJS.ErrnoException) => {
      throw new LaunchError(`cannot create the log directory ${dirname(launch.logPath)}: ${err.code ?? err.message}`, err.code);
    });
    let child: ChildProcess;
    let earlyFailure: PromiseLike<{ failed: boolean; cause?: unknown; shortMessage?: string }> | null = null;
    try {
      if (this.spawner === 'node') {
        child = spawn(file, args, {
          env: launch.env,
          cwd: launch.cwd,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          windowsHide: true,
        });
      } else {
        const sub = execa(file, args, {
          env: launch.env,
          extendEnv: false,
          cwd: launch.cwd,
          detached: true,
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
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
    } catch (err) {
      // Synchronous validation errors (e.g. a NUL byte in an argument).
      throw new LaunchError(`cannot start ${file}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code);
    }
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const onSpawn = (): void => {
        settled = true;
        child.off('error', onError);
        resolve();
      };
      const onError = (err: NodeJS.ErrnoException): void => {
        if (settled) return;
        settled = true;
        child.off('spawn', onSpawn);
        launchError(err, file, launch.cwd).then(reject, reject);
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
      earlyFailure?.then((result) => {
        if (settled || !result.failed) return;
        onError(result.cause instanceof Error ? result.cause : new Error(result.shortMessage ?? 'spawn failed'));
      });
    });
    const pid = child.pid!;
    // Later 'error' events (e.g. a failed kill) must not crash the process.
    child.on('error', () => undefined);

    const writer = new LogWriter(launch.logPath, { ...(this.now ? { now: this.now } : {}), limitBytes: launch.logLimitBytes ?? null });
    const outputs = Promise.all([streamDone(child.stdout, writer, 'o'), streamDone(child.stderr, writer, 'e')]);
    const state: TaskState = { pid, leaderGone: false, done: false };
    const exited = new Promise<TaskExit>((resolve) => {
      child.once('exit', (code, signal) => {
        state.leaderGone = true;
        // Leftovers of the group would keep the pipes open: end them like a container's init would.
        signalGroup(pid, 'SIGKILL');
        let timer: NodeJS.Timeout | undefined;
        const cut = new Promise<void>((r) => {
          timer = setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            r();
          }, this.drainMs);
          timer.unref();
        });
        void Promise.race([outputs, cut])
          .then(() => {
            clearTimeout(timer);
            return writer.close();
          })
          .then(() => {
            state.done = true;
            if (this.live.get(pid) === task) this.live.delete(pid);
            resolve(writer.cut ? { exitCode: code, signal, logCut: true } : { exitCode: code, signal });
          });
      });
    });
    const task: RunningTask = { key: launch.key, pid, exited };
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
    signalGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      task.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, graceMs));
      }),
    ]);
    clearTimeout(timer);
    if (!settled && !state?.leaderGone) signalGroup(pid, 'SIGKILL');
    await task.exited;
  }

  reclaim(clusterId: string, records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]> {
    return reclaimProcesses(clusterId, records, graceMs, { excludeGroups: new Set(this.live.keys()) });
  }

  async close(): Promise<void> {
    this.live.clear();
  }
}
