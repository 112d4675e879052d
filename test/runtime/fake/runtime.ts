/**
 * FakeRuntime (test support, not shipped): a TaskRuntime that runs every attempt as a fake
 * process in memory (process.ts), interpreting the small sh subset of script.ts. It passes the
 * same contract suite as the process and Docker runtimes (test/runtime/contract.ts), so tests of
 * the controller can run on it in milliseconds, without real processes. Output goes to the
 * attempt's log file through the shared LogWriter, so log readers see what they would see with
 * real processes.
 *
 * Tests drive attempts by hand too: `exit(task, code, usage?)` ends one as if its program exited
 * (having used `usage`; else the `usage` option's answer, else nothing is reported),
 * `lose(task, reason)` as if the infrastructure lost it, and `events` tells of every launch.
 */
import { EventEmitter } from 'node:events';
import { LogWriter } from '../../../src/logs/writer.js';
import type {
  RunningTask,
  StartedRecord,
  TaskExit,
  TaskKey,
  TaskLaunch,
  TaskRuntime,
  TaskUsage,
} from '../../../src/runtime/types.js';
import { FAKE_COMMANDS, FakeHost, type FakeProcess } from './process.js';

export interface FakeRuntimeOptions {
  /** The process table; share one between runtimes to model one machine (reclaim). Default: its own. */
  host?: FakeHost;
  /** Clock for log line times. */
  now?: () => number;
  /** The usage an attempt reports when it ends (default: none, as a runtime that cannot tell). */
  usage?: (launch: TaskLaunch) => TaskUsage | undefined;
}

interface Started {
  proc: FakeProcess;
  task: RunningTask;
  lost: string | null;
  /** Set by exit(): what the attempt reports it used. */
  usage?: TaskUsage;
}

export class FakeRuntime implements TaskRuntime {
  readonly name = 'fake';
  readonly host: FakeHost;
  /** Every launch, in order. */
  readonly launches: TaskLaunch[] = [];
  readonly events = new EventEmitter<{ launch: [TaskLaunch, RunningTask] }>();
  private readonly now: (() => number) | undefined;
  private readonly usageOf: ((launch: TaskLaunch) => TaskUsage | undefined) | undefined;
  private readonly live = new Map<number, Started>();
  private closed = false;

  constructor(options: FakeRuntimeOptions = {}) {
    this.host = options.host ?? new FakeHost();
    this.now = options.now;
    this.usageOf = options.usage;
  }

  async launch(launch: TaskLaunch): Promise<RunningTask> {
    if (this.closed) throw new Error('the fake runtime is closed');
    const command = launch.argv[0];
    if (command === undefined) throw new Error('empty command');
    if (!FAKE_COMMANDS.has(command)) throw new Error(`command not found: ${command}`);
    const writer = new LogWriter(launch.logPath, {
      ...(this.now ? { now: this.now } : {}),
      limitBytes: launch.logLimitBytes ?? null,
    });
    let writing = true;
    let logFailed!: (error: NodeJS.ErrnoException) => void;
    const failed = new Promise<NodeJS.ErrnoException>((resolve) => (logFailed = resolve));
    const proc = this.host.spawn({
      env: { ...launch.env },
      cwd: launch.cwd,
      tag: launch.key,
      write: (tag, text) => {
        if (writing) writer.write(tag, Buffer.from(text));
        if (writer.error) logFailed(writer.error);
      },
    });
    const exited = proc.ended.then(async (end): Promise<TaskExit> => {
      // Like a real runtime, the attempt's end takes its whole process group with it.
      this.host.signalGroup(proc.pgid, 'SIGKILL');
      writing = false;
      await writer.close();
      const started = this.live.get(proc.pid);
      const lost = started?.lost ?? null;
      this.live.delete(proc.pid);
      if (lost !== null) return { exitCode: null, signal: null, lost };
      const exit: TaskExit = { exitCode: end.code, signal: end.signal };
      const usage = started?.usage ?? this.usageOf?.(launch);
      if (usage) exit.usage = usage;
      if (writer.cut) exit.logCut = true;
      if (writer.error) exit.logError = writer.error;
      return exit;
    });
    const task: RunningTask = { key: launch.key, pid: proc.pid, exited, logFailed: failed };
    this.live.set(proc.pid, { proc, task, lost: null });
    this.launches.push(launch);
    proc.start(launch.argv);
    this.events.emit('launch', launch, task);
    return task;
  }

  async stop(task: RunningTask, graceMs: number): Promise<void> {
    const proc = task.pid === null ? undefined : this.host.get(task.pid);
    if (proc?.alive) await this.terminate(proc, graceMs);
    await task.exited;
  }

  /**
   * End a live attempt of `taskId` as if its program exited with `code` (having used `usage`). Returns false when none
   * is live.
   */
  exit(taskId: string, code: number, usage?: TaskUsage): boolean {
    const started = this.find(taskId);
    if (started && usage) started.usage = usage;
    started?.proc.exit(code);
    return started !== undefined;
  }

  /** End a live attempt of `taskId` as if the infrastructure lost it. Returns false when none is live. */
  lose(taskId: string, reason: string): boolean {
    const started = this.find(taskId);
    if (!started) return false;
    started.lost = reason;
    started.proc.signal('SIGKILL');
    return true;
  }

  /** Keys of the attempts this runtime started that are still running. */
  running(): TaskKey[] {
    return [...this.live.values()].filter((s) => s.proc.alive).map((s) => s.task.key);
  }

  async reclaim(clusterId: string, _records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]> {
    const left = this.host.leaders().filter((p) => p.env.IRIS_CLUSTER_ID === clusterId && !this.live.has(p.pid));
    await Promise.all(left.map((p) => this.terminate(p, graceMs)));
    return left.map((p) => p.tag as TaskKey);
  }

  /** Closing leaves its processes running, as a crashed cluster would; `reclaim` finds them. */
  async close(): Promise<void> {
    this.closed = true;
    this.live.clear();
  }

  private find(taskId: string): Started | undefined {
    return [...this.live.values()].find((s) => s.task.key.task === taskId && s.proc.alive);
  }

  /** SIGTERM to the group, SIGKILL to what is left after graceMs; resolves when the leader is gone. */
  private async terminate(proc: FakeProcess, graceMs: number): Promise<void> {
    this.host.signalGroup(proc.pgid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      proc.ended.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, graceMs)))),
    ]);
    clearTimeout(timer);
    if (!ended) this.host.signalGroup(proc.pgid, 'SIGKILL');
    await proc.ended;
  }
}
