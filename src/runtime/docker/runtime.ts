/**
 * DockerRuntime: runs each attempt as a container on the local Docker engine (dockerode), with
 * the same contract as the process runtime: exactly `launch.env` (plus what the engine itself
 * adds: HOSTNAME, and HOME when unset), stdin closed, stdout/stderr lines in the attempt's log
 * file in the format of src/logs/format.ts, SIGTERM then SIGKILL on stop.
 *
 * Invariants:
 * - launch() attaches to the container before starting it, so no output is lost; it resolves
 *   once the container runs (pid = its init's host pid) and rejects with a LaunchError when the
 *   attempt cannot start (command/image not found, no NVIDIA runtime, ...) or with an
 *   EngineLostError (string `lost`) when the engine is unreachable or broke. A container that
 *   was created but did not start is removed.
 * - `exited` resolves once, after the container stopped and every output byte reached the
 *   log; the container is removed before it resolves. A container removed from outside or a
 *   broken engine connection gives `lost` (a preemption); an OOM kill gives `oom` and `reason`.
 * - The launch's token file (token-file.ts) is written before the container is created and
 *   removed once the container is gone, or when the launch fails.
 * - Exit status: the engine reports a signal death as 128+n (docker-init passes it on), which is
 *   indistinguishable from `exit 128+n`. iris reports `{exitCode: null, signal: 'SIGKILL'}` only
 *   when it knows a SIGKILL was delivered (its own kill after the grace period, or the kernel's
 *   OOM killer, with 137); every other status is reported as the exit code it is.
 * - Usage (TaskExit.usage) is what one-shot stats samples saw while the container ran
 *   (usage.ts): at start, every `statsIntervalMs` (default 2 s) and just before stop() signals it.
 * - stop() of a task that already ended sends nothing. close() only stops tracking.
 */
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type * as rt from '../types.js';
import { IrisError } from '../../model/errors.js';
import { execInContainer } from './exec.js';
import { LogWriter } from '../../logs/writer.js';
import { appendNote, ensureDir } from '../../logs/files.js';
import { LaunchError } from '../process/runtime.js';
import { containerCreateOptions, type EngineInfo } from './create-options.js';
import { formatBytes } from '../../model/resources.js';
import { pumpDemuxed } from './demux.js';
import { CommandChecker } from './command-check.js';
import { waitContainer, type WaitResult } from './wait.js';
import {
  dockerClient,
  engineAddress,
  probeEngine,
  shortReason,
  type EngineAddress,
  type EngineOptions,
  type ProbeResult,
} from './engine.js';

export { probeGpuRuntime } from './engine.js';
import {
  imageNotFound,
  isMemlockRefused,
  isNoSuchContainer,
  isNoSuchImage,
  launchFailure,
  lostError,
} from './errors.js';
import { hostMemlockHardLimit } from './memlock.js';
import { reclaimContainers } from './reclaim.js';
import { removeTokenFile, writeTokenFile } from './token-file.js';
import { UsageSampler } from './usage.js';
import { checkUserMounts } from './mount-check.js';

export interface DockerRuntimeOptions extends EngineOptions {
  /** Clock for log line times. */
  now?: () => number;
  /** PidsLimit of every container (default 4096). */
  pidsLimit?: number;
  /** How long a pull of a missing image may take before the launch fails (default 30 s). */
  pullTimeoutMs?: number;
  /** After the container stopped, how long to wait for its output stream to end (default 2 s). */
  drainMs?: number;
  /** How often a running container's stats are sampled for its usage (default 2000 ms). */
  statsIntervalMs?: number;
  /** A dockerode client to use instead of one for `host` (tests). */
  docker?: Docker;
}

interface ContainerState {
  id: string;
  container: Docker.Container;
  /** The container stopped (the engine's wait returned): signal nothing from now on. */
  stopped: boolean;
  /** iris sent SIGKILL: a status of 137 is reported as signal SIGKILL. */
  killSent: boolean;
  /** Samples what the container uses while it runs. */
  sampler: UsageSampler;
}

const VANISHED = 'container vanished (removed outside iris)';

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

export class DockerRuntime implements rt.TaskRuntime {
  readonly name = 'docker';
  readonly address: EngineAddress;
  private readonly docker: Docker;
  private readonly now: (() => number) | undefined;
  private readonly pidsLimit: number | undefined;
  private readonly pullTimeoutMs: number;
  private readonly drainMs: number;
  private readonly statsIntervalMs: number;
  private info: Promise<EngineInfo> | null = null;
  private readonly commands = new CommandChecker();
  /** Set once the engine refused an unlimited memlock: the host's hard limit, used from then on. */
  private memlockBytes: number | undefined;
  private readonly states = new WeakMap<rt.RunningTask, ContainerState>();
  /** Container id -> live task of this instance (reclaim leaves them alone). */
  private readonly live = new Map<string, rt.RunningTask>();

  constructor(options: DockerRuntimeOptions = {}) {
    this.address = engineAddress(options.host ?? process.env.DOCKER_HOST);
    this.docker = options.docker ?? dockerClient(this.address);
    this.now = options.now;
    this.pidsLimit = options.pidsLimit;
    this.pullTimeoutMs = options.pullTimeoutMs ?? 30_000;
    this.drainMs = options.drainMs ?? 2000;
    this.statsIntervalMs = options.statsIntervalMs ?? 2000;
  }

  /** Whether an engine answers at `options.host` / DOCKER_HOST / the default socket. Never throws. */
  static probe(options: EngineOptions & { timeoutMs?: number } = {}): Promise<ProbeResult> {
    return probeEngine(options);
  }

  /** What the create request needs from the engine (asked once; asked again after a failure). */
  engineInfo(): Promise<EngineInfo> {
    this.info ??= Promise.all([this.docker.version(), this.docker.info()]).then(
      ([version, info]) => ({
        init: ((version as { Components?: { Name: string }[] }).Components ?? []).some((c) => c.Name === 'docker-init'),
        ncpu: Number((info as { NCPU?: number }).NCPU ?? 0),
      }),
      (error: unknown) => {
        this.info = null;
        throw lostError(this.address, error, 'asking the engine for its version');
      },
    );
    return this.info;
  }

  async launch(launch: rt.TaskLaunch): Promise<rt.RunningTask> {
    const file = launch.argv[0];
    if (file === undefined || file === '') throw new LaunchError('empty command');
    if (!launch.container) throw new LaunchError('the Docker runtime needs a launch with a container image');
    checkUserMounts(launch.container);
    await ensureDir(dirname(launch.logPath)).catch((err: NodeJS.ErrnoException) => {
      throw new LaunchError(
        `cannot create the log directory ${dirname(launch.logPath)}: ${err.code ?? err.message}`,
        err.code,
      );
    });
    const token = launch.container.tokenFile;
    if (!token) return this.start(launch);
    try {
      writeTokenFile(token.hostPath, token.token, token.gid);
    } catch (error) {
      const err = error as NodeJS.ErrnoException;
      throw new LaunchError(`cannot write the task token file ${token.hostPath}: ${err.code ?? err.message}`, err.code);
    }
    try {
      return await this.start(launch);
    } catch (error) {
      removeTokenFile(token.hostPath);
      throw error;
    }
  }

  /** launch() once the log directory (and the token file) exist. */
  private async start(launch: rt.TaskLaunch): Promise<rt.RunningTask> {
    const file = launch.argv[0]!;
    const info = await this.engineInfo();
    const memlock = this.memlockBytes;
    const container = await this.create(launch, info, memlock);

    let stream: Readable;
    try {
      const [attached, command] = await Promise.all([
        container.attach({ stream: true, stdout: true, stderr: true }) as unknown as Promise<Readable>,
        info.init ? this.commands.lookup(container, launch) : Promise.resolve('unknown' as const),
      ]);
      stream = attached;
      if (command === 'missing') {
        stream.destroy();
        throw new LaunchError(`command not found: ${file}`, 'ENOENT');
      }
    } catch (error) {
      await this.discard(container);
      throw error instanceof LaunchError
        ? error
        : launchFailure(this.address, launch, error, 'attaching to the container');
    }
    const writer = new LogWriter(launch.logPath, {
      ...(this.now ? { now: this.now } : {}),
      limitBytes: launch.logLimitBytes ?? null,
    });
    const output = pumpDemuxed(stream, writer);
    try {
      await container.start();
    } catch (error) {
      stream.destroy();
      await output;
      await writer.close();
      await this.discard(container);
      if (this.useHostMemlock(launch, error, memlock)) {
        await appendNote(
          launch.logPath,
          `iris: the Docker engine cannot raise memlock to unlimited here; running with the host's hard limit of ` +
            `${formatBytes(this.memlockBytes!, { trimZero: true })}`,
          this.now?.() ?? Date.now(),
        ).catch(() => undefined);
        return this.start(launch);
      }
      throw launchFailure(this.address, launch, error, 'starting the container');
    }

    const waited = waitContainer(this.docker, container.id);
    waited.catch(() => undefined); // read by finish()
    let pid: number | null = null;
    try {
      const inspected = await container.inspect();
      pid = inspected.State.Pid > 0 ? inspected.State.Pid : null;
    } catch {
      // It may already be gone; finish() reports how it ended.
    }
    const sampler = new UsageSampler(container, this.statsIntervalMs);
    sampler.start();
    const state: ContainerState = { id: container.id, container, stopped: false, killSent: false, sampler };
    const task: rt.RunningTask = {
      key: launch.key,
      pid,
      exited: this.finish(launch, state, waited, stream, output, writer).finally(() => {
        if (this.live.get(state.id) === task) this.live.delete(state.id);
      }),
    };
    this.states.set(task, state);
    this.live.set(state.id, task);
    return task;
  }

  /**
   * True when `error` is the engine refusing the unlimited memlock this launch asked for and a
   * host limit is known (learned here, or by a concurrent launch): retry with it.
   */
  private useHostMemlock(launch: rt.TaskLaunch, error: unknown, used: number | undefined): boolean {
    if (!launch.container?.memlockUnlimited || used !== undefined || !isMemlockRefused(error)) return false;
    this.memlockBytes ??= hostMemlockHardLimit() ?? undefined;
    return this.memlockBytes !== undefined;
  }

  /** Creates the container, pulling a missing image once (bounded). */
  private async create(
    launch: rt.TaskLaunch,
    info: EngineInfo,
    memlockBytes: number | undefined,
  ): Promise<Docker.Container> {
    const image = launch.container!.image;
    let pulled = false;
    for (let tries = 0; ; tries++) {
      const options = containerCreateOptions(launch, info, {
        suffix: randomBytes(2).toString('hex'),
        pidsLimit: this.pidsLimit,
        memlockBytes,
      });
      try {
        return await this.docker.createContainer(options);
      } catch (error) {
        if (isNoSuchImage(error) && !pulled) {
          pulled = true;
          if (await this.pull(image)) continue;
          throw imageNotFound(image);
        }
        if (isNoSuchImage(error)) throw imageNotFound(image);
        // A name clash of the random suffix: try another one.
        if ((error as { statusCode?: number }).statusCode === 409 && tries < 3) continue;
        throw launchFailure(this.address, launch, error, 'creating the container');
      }
    }
  }

  /** Pulls `image` within pullTimeoutMs; false when that failed for any reason. */
  private async pull(image: string): Promise<boolean> {
    const timer = delay(this.pullTimeoutMs);
    let stream: Readable | null = null;
    const pulling = (async (): Promise<boolean> => {
      stream = (await this.docker.pull(image)) as Readable;
      const events = await new Promise<{ error?: string }[]>((resolve, reject) => {
        this.docker.modem.followProgress(stream!, (err: Error | null, output: { error?: string }[]) =>
          err ? reject(err) : resolve(output ?? []),
        );
      });
      return !events.some((e) => e.error !== undefined);
    })().catch(() => false);
    try {
      return await Promise.race([pulling, timer.promise.then(() => false)]);
    } finally {
      timer.cancel();
      (stream as Readable | null)?.destroy();
    }
  }

  /** Waits for the container to stop and its output to drain, then removes it. */
  private async finish(
    launch: rt.TaskLaunch,
    state: ContainerState,
    waited: Promise<WaitResult>,
    stream: Readable,
    output: Promise<void>,
    writer: LogWriter,
  ): Promise<rt.TaskExit> {
    let status: number | null = null;
    let lost: string | undefined;
    try {
      status = (await waited).StatusCode;
    } catch (error) {
      lost = isNoSuchContainer(error) ? VANISHED : `Docker engine error: ${shortReason(error)}`;
    }
    state.stopped = true;
    const usage = await state.sampler.stop();
    const cut = delay(this.drainMs);
    await Promise.race([output, cut.promise.then(() => stream.destroy())]);
    cut.cancel();
    await writer.close();
    let oom = false;
    if (lost === undefined) {
      try {
        const inspected = await state.container.inspect();
        oom = inspected.State.OOMKilled === true;
        if (inspected.State.Status === 'removing' || inspected.State.Dead) lost = VANISHED;
      } catch (error) {
        lost = isNoSuchContainer(error) ? VANISHED : `Docker engine error: ${shortReason(error)}`;
      }
    }
    await this.discard(state.container);
    if (launch.container?.tokenFile) removeTokenFile(launch.container.tokenFile.hostPath);
    const killed = status === 137 && (state.killSent || oom);
    const exit: rt.TaskExit = killed ? { exitCode: null, signal: 'SIGKILL' } : { exitCode: status, signal: null };
    if (oom) {
      exit.oom = true;
      exit.reason = `OOM killed (memory limit ${formatBytes(launch.resources.memoryBytes, { trimZero: true })})`;
    }
    if (lost !== undefined) exit.lost = lost;
    if (usage) exit.usage = usage;
    if (writer.cut) exit.logCut = true;
    if (writer.error) exit.logError = writer.error;
    return exit;
  }

  /** Removes a container; a container already gone (or being removed) is fine. */
  private async discard(container: Docker.Container): Promise<void> {
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }

  private async signal(state: ContainerState, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    // Not running (409), gone (404) or an engine error: `exited` reports what happened.
    await state.container.kill({ signal }).catch(() => undefined);
  }

  /** Runs a command in the attempt's running container through the engine's exec (exec.ts). */
  async exec(task: rt.RunningTask, spec: rt.ExecSpec): Promise<rt.ExecSession> {
    const state = this.states.get(task);
    if (!state || state.stopped)
      throw new IrisError(
        'not_found',
        `the container of ${task.key.task} attempt ${task.key.attempt} has stopped: nothing runs to exec into`,
      );
    return execInContainer(state.container, spec);
  }

  async stop(task: rt.RunningTask, graceMs: number): Promise<void> {
    const state = this.states.get(task);
    if (state === undefined || state.stopped) {
      await task.exited;
      return;
    }
    let settled = false;
    void task.exited.then(() => {
      settled = true;
    });
    await state.sampler.final();
    await this.signal(state, 'SIGTERM');
    const grace = delay(graceMs);
    await Promise.race([task.exited, grace.promise]);
    grace.cancel();
    if (!settled && !state.stopped) {
      state.killSent = true;
      await this.signal(state, 'SIGKILL');
    }
    await task.exited;
  }

  reclaim(clusterId: string, _records: readonly rt.StartedRecord[], graceMs: number): Promise<rt.TaskKey[]> {
    return reclaimContainers(this.docker, this.address, clusterId, graceMs, new Set(this.live.keys()));
  }

  async close(): Promise<void> {
    this.live.clear();
  }
}
