/**
 * The attempt supervisor: runs the attempts the pass loop committed, from launch to exit.
 *
 * Invariants:
 * - Only the store decides states; the supervisor turns store StopOrders into runtime stops and
 *   reports launches and exits back to the store.
 * - Every adopted attempt is tracked in `active` until its exit has been recorded, so shutdown
 *   can stop and await all of them; its task token resolves to its identity exactly that long.
 * - An attempt with a time limit is stopped once it ran that long and is recorded as a timeout;
 *   one stopped by a store order is recorded as killed with the order's reason.
 * - An attempt whose log cannot be written (a full disk: the log writer drops the rest, so the
 *   log is cut) is stopped and recorded as FAILED with `no space left on <log>` (or the write
 *   error), counted against its retries like any failure; so is one that ends with such an
 *   error or cannot even create its log directory. The failure is never a crash of the controller.
 * - Store writes triggered by launches and exits are batched into one transaction per tick, a
 *   lazy one (group commit, store-core.ts): it survives a controller crash without an fsync of its own.
 * - An attempt the store has ended while its process still runs (a stop order: cancel,
 *   preemption, drain, gang restart, cluster stop) is `held()` until the runtime reports it
 *   gone: the scheduler counts what it holds until then (snapshot.ts, "Held").
 * - Each attempt gets its own result directory (launch.ts resultFileFor; 0777 for a container,
 *   whose user is not the daemon's). When the attempt ends, before its exit is recorded, a
 *   result file there is read (result-file.ts): stored whole, or, when not valid, nothing of
 *   it, with a note in the attempt's reason and log; the attempt's outcome is kept.
 * - A stop order with a notice (a preemption: `preempted by /JOB (BAND)`) has it written, one
 *   line, to the attempt's notice file (launch.ts noticeFileFor, `$IRIS_NOTICE_FILE`) before the
 *   runtime is told to stop it (SIGTERM), with runtime/task-file.ts writeTaskFile; iris never
 *   reads that file back. A write that fails is noted in the log and the stop goes on.
 * - Once an attempt's end is committed, the runtime is told (TaskRuntime.settled: a process
 *   attempt's status file goes) and the directories of its log that stayed empty are removed
 *   (runtime/log-dirs.ts removeEmptyDirs): a task that wrote nothing leaves no file behind.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TaskIdentity } from '../../model/caller.js';
import type { AttemptOutcome } from '../../model/states.js';
import { formatDuration } from '../../model/duration.js';
import { parentJob } from '../../model/names.js';
import type { RunningTask, TaskExit, TaskLaunch, TaskRuntime, TaskUsage } from '../../runtime/types.js';
import { isNoSpace, noSpaceReason } from '../../model/storage.js';
import { taskFileOwner, writeTaskFile } from '../../runtime/task-file.js';
import { noteInLog } from '../../runtime/notes.js';
import { removeEmptyDirs } from '../../runtime/log-dirs.js';
import { signalExitCode } from '../../runtime/signal-exit.js';
import { collectResultFile, withNote } from './result-file.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import { attemptKey } from '../state/keys.js';
import type { ClockedPart } from './timers.js';
import type { HeldAttempt } from './snapshot.js';

/** An attempt the store has just assigned, with its fully built launch. */
export interface AdoptedAttempt {
  identity: TaskIdentity;
  /** The worker the store assigned it to. */
  workerId: string;
  launch: TaskLaunch;
  token: string;
}

interface ActiveAttempt extends AdoptedAttempt {
  handle: RunningTask | null;
  /** Why iris is stopping it: a store order (already recorded), its own time limit, or its log could not be written. */
  stopping: { kind: 'order'; reason: string } | { kind: 'timeout' } | { kind: 'log'; reason: string } | null;
  cancelTimer: (() => void) | null;
  done: Promise<void>;
  resolveDone: () => void;
}

export interface SupervisorOptions extends ClockedPart {
  store: ClusterStore;
  runtime: TaskRuntime;
  stopGraceMs: number;
  /** Capacity was freed or changed (an attempt ended, stops were ordered): worth a pass. */
  onFreed: () => void;
  /**
   * The root of the attempts' log trees (`IRIS_HOME/logs`): once an attempt's end is recorded, the
   * directories of its log and result files that stayed empty are removed up to it. Absent: kept.
   */
  logsRoot?: string;
}

export class AttemptSupervisor {
  private readonly active = new Map<string, ActiveAttempt>();
  private readonly tokens = new Map<string, AdoptedAttempt>();
  private pendingRunning: Array<{ task: string; attempt: number; pid: number | null }> = [];
  private pendingExits: Array<{ key: string; outcome: AttemptOutcome; logCutBytes?: number; usage?: TaskUsage }> = [];
  private flushQueued = false;
  private closing = false;

  constructor(private readonly o: SupervisorOptions) {}

  /** Track and launch attempts the store has assigned. */
  adopt(attempts: readonly AdoptedAttempt[]): void {
    const entries = attempts.map((a) => {
      let resolveDone!: () => void;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      const entry: ActiveAttempt = { ...a, handle: null, stopping: null, cancelTimer: null, done, resolveDone };
      this.active.set(attemptKey(a.identity.task, a.identity.attempt), entry);
      this.tokens.set(a.token, a);
      return entry;
    });
    for (const entry of entries) void this.launch(entry);
  }

  /**
   * Track attempts that still run from an earlier life of the controller (a runtime that can
   * re-adopt them, e.g. the kubernetes backend's Pods): they are RUNNING in the store already and
   * are supervised from here on as if launched now (time limits start afresh).
   */
  resumeRunning(attempts: ReadonlyArray<AdoptedAttempt & { handle: RunningTask }>): void {
    for (const a of attempts) {
      let resolveDone!: () => void;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      const entry: ActiveAttempt = { ...a, handle: null, stopping: null, cancelTimer: null, done, resolveDone };
      this.active.set(attemptKey(a.identity.task, a.identity.attempt), entry);
      this.tokens.set(a.token, a);
      void this.supervise(entry, a.handle, false);
    }
  }

  /** The identity of the running attempt a task token belongs to. */
  callerForToken(token: string): TaskIdentity | null {
    return this.tokens.get(token)?.identity ?? null;
  }

  /** The launch of the running attempt a task token belongs to (what it runs in). */
  launchForToken(token: string): TaskLaunch | null {
    return this.tokens.get(token)?.launch ?? null;
  }

  activeCount(): number {
    return this.active.size;
  }

  /** The runtime's handle of attempt `attempt` of `task` while it runs (launched, not being stopped); else null. */
  runningHandle(task: string, attempt: number): RunningTask | null {
    const entry = this.active.get(attemptKey(task, attempt));
    return entry?.handle && !entry.stopping ? entry.handle : null;
  }

  /** Attempts the store has ended whose process is not gone yet (they still hold their resources). */
  held(): HeldAttempt[] {
    const out: HeldAttempt[] = [];
    for (const entry of this.active.values()) {
      const { task, attempt, job } = entry.identity;
      if (this.o.store.attempt(task, attempt)?.state === 'RUNNING') continue;
      out.push({
        job,
        task,
        attempt,
        workerId: entry.workerId,
        resources: entry.launch.resources,
        devices: entry.launch.deviceIndices,
        user: entry.launch.env.IRIS_USER ?? '',
      });
    }
    return out;
  }

  /** Resolves once no attempt of the jobs `names` (or below them) is still tracked: all their processes are gone. */
  async gone(names: readonly string[]): Promise<void> {
    // A job is within when it or one of its ancestors is named (linear in names: a retried chain may be long).
    const named = new Set(names);
    const within = (job: string) => {
      for (let name: string | null = job; name !== null; name = parentJob(name)) if (named.has(name)) return true;
      return false;
    };
    await Promise.all([...this.active.values()].filter((e) => within(e.identity.job)).map((e) => e.done));
  }

  /** Stop the attempts named by store orders (their new state is already recorded). */
  applyStopOrders(orders: readonly StopOrder[]): void {
    for (const order of orders) {
      const entry = this.active.get(attemptKey(order.task, order.attempt));
      if (!entry) continue;
      if (!entry.stopping) entry.stopping = { kind: 'order', reason: order.reason };
      if (order.notice !== undefined) this.notify(entry, order.notice);
      this.stopEntry(entry, `iris: stopping attempt (${order.reason})`, order.graceMs);
    }
    if (orders.length > 0) this.o.onFreed();
  }

  /** Stop every running attempt (recorded as preempted: they run again on the next start). */
  async shutdown(reason: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const { store } = this.o;
    // The orders preemptAttempt returns name these same attempts, which are all stopped below.
    store.transaction(() => {
      for (const entry of this.active.values())
        store.preemptAttempt(entry.identity.task, entry.identity.attempt, reason);
    });
    for (const entry of this.active.values()) {
      if (!entry.stopping) entry.stopping = { kind: 'order', reason };
      this.stopEntry(entry, `iris: stopping attempt (${reason})`);
    }
    await Promise.all([...this.active.values()].map((entry) => entry.done));
    this.flush();
  }

  private async launch(entry: ActiveAttempt): Promise<void> {
    const key = attemptKey(entry.identity.task, entry.identity.attempt);
    const logPath = entry.launch.logPath;
    let handle: RunningTask;
    try {
      // The result directory lies in the log's directory (launch.ts resultFileFor): one recursive
      // mkdir makes both.
      const resultFile = entry.launch.env.IRIS_RESULT_FILE;
      mkdirSync(path.dirname(resultFile ?? logPath), { recursive: true, mode: 0o700 });
      // The container's user writes there; its parents stay 0700.
      if (resultFile && entry.launch.container) chmodSync(path.dirname(resultFile), 0o777);
      handle = await this.o.runtime.launch(entry.launch);
    } catch (error) {
      if (isNoSpace(error)) {
        this.recordExit(key, { kind: 'failed', reason: noSpaceReason(path.dirname(logPath)), exitCode: null });
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      // `lost` marks an infrastructure failure (e.g. the Docker engine is gone): a preemption.
      const lost = (error as { lost?: unknown }).lost;
      // Written before the end is recorded: the end removes the attempt's directories if empty.
      await this.note(entry, `iris: could not start the task: ${reason}`);
      this.recordExit(
        key,
        typeof lost === 'string' ? { kind: 'preempted', reason: lost } : { kind: 'launch_failed', reason },
      );
      return;
    }
    await this.supervise(entry, handle, true);
  }

  /** From a started handle to the recorded exit (time limit, log failures, result file). */
  private async supervise(entry: ActiveAttempt, handle: RunningTask, markRunning: boolean): Promise<void> {
    const key = attemptKey(entry.identity.task, entry.identity.attempt);
    const logPath = entry.launch.logPath;
    entry.handle = handle;
    void handle.logFailed?.then((error) => {
      if (entry.stopping) return;
      entry.stopping = { kind: 'log', reason: logFailure(logPath, error) };
      this.stopEntry(entry, null); // no note: the log cannot take one
    });
    if (markRunning) {
      this.pendingRunning.push({ task: entry.identity.task, attempt: entry.identity.attempt, pid: handle.pid });
      this.scheduleFlush();
    }
    if (entry.stopping) {
      this.stopEntry(entry, null);
    } else {
      const timeout = this.o.store.job(entry.identity.job)?.spec.timeoutMs;
      if (timeout != null) {
        entry.cancelTimer = this.o.timers.after(timeout, () => {
          if (entry.stopping) return;
          entry.stopping = { kind: 'timeout' };
          this.stopEntry(entry, `iris: stopping attempt (time-limit: ran longer than ${formatDuration(timeout)})`);
        });
      }
    }
    const exit = await handle.exited;
    const problem = await this.collectResults(entry);
    this.recordExit(
      key,
      withNote(outcomeOf(entry, exit), problem),
      exit.logCut ? (entry.launch.logLimitBytes ?? undefined) : undefined,
      exit.usage,
    );
  }

  /** Write `notice` to the attempt's notice file, before its stop (see the header). */
  private notify(entry: ActiveAttempt, notice: string): void {
    const file = entry.launch.env.IRIS_NOTICE_FILE;
    if (!file) return;
    try {
      writeTaskFile(file, `${notice}\n`);
    } catch (error) {
      this.note(entry, `iris: cannot write the notice file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }

  private stopEntry(entry: ActiveAttempt, note: string | null, graceMs = this.o.stopGraceMs): void {
    entry.cancelTimer?.();
    entry.cancelTimer = null;
    const handle = entry.handle;
    if (!handle) return; // stopped as soon as its launch completes
    // The note is in the log before the signal is sent, so what the task prints on its way out
    // comes after it (and the log's times run forward).
    const noted = note ? this.note(entry, note) : Promise.resolve();
    void noted
      .then(() => this.o.runtime.stop(handle, graceMs))
      .catch((error) => this.o.log(`stop failed for ${entry.identity.task}: ${String(error)}`));
  }

  /**
   * Store the results of the attempt's result file (result-file.ts); a note, also written to its log, when it was not
   * valid.
   */
  private async collectResults(entry: ActiveAttempt): Promise<string | null> {
    const file = entry.launch.env.IRIS_RESULT_FILE;
    if (!file) return null;
    const { task, attempt } = entry.identity;
    const note = await collectResultFile(this.o.store, task, attempt, file, taskFileOwner(entry.launch.container));
    if (note !== null) await this.note(entry, `iris: ${note}`);
    return note;
  }

  /** iris's own line in the attempt's log (best effort: a failed write must not stop the loop). */
  private note(entry: ActiveAttempt, text: string): Promise<void> {
    return noteInLog(entry.launch, text, this.o.now()).catch((error) =>
      this.o.log(`cannot write log note: ${String(error)}`),
    );
  }

  /** A quiet attempt's empty directories (its result directory, its log's) go once its end is recorded. */
  private removeEmptyDirs(entry: ActiveAttempt): void {
    if (this.o.logsRoot === undefined) return;
    const resultFile = entry.launch.env.IRIS_RESULT_FILE;
    void removeEmptyDirs(path.dirname(resultFile ?? entry.launch.logPath), this.o.logsRoot);
  }

  private recordExit(key: string, outcome: AttemptOutcome, logCutBytes?: number, usage?: TaskUsage): void {
    this.pendingExits.push({
      key,
      outcome,
      ...(logCutBytes === undefined ? {} : { logCutBytes }),
      ...(usage ? { usage } : {}),
    });
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => this.flush());
  }

  /** Write the batched running marks and exits in one transaction, then act on the results. */
  private flush(): void {
    this.flushQueued = false;
    const running = this.pendingRunning;
    const exits = this.pendingExits;
    if (running.length === 0 && exits.length === 0) return;
    this.pendingRunning = [];
    this.pendingExits = [];
    const { store } = this.o;
    const finished: ActiveAttempt[] = [];
    const orders = store.transaction(
      () => {
        const out: StopOrder[] = [];
        for (const mark of running) {
          const entry = this.active.get(attemptKey(mark.task, mark.attempt));
          if (entry && !entry.stopping) store.markRunning(mark.task, mark.attempt, mark.pid);
        }
        for (const { key, outcome, logCutBytes, usage } of exits) {
          const entry = this.active.get(key);
          if (!entry) continue;
          if (logCutBytes !== undefined) store.markLogCut(entry.identity.task, entry.identity.attempt, logCutBytes);
          if (usage) store.recordUsage(entry.identity.task, entry.identity.attempt, usage);
          out.push(...store.finishAttempt(entry.identity.task, entry.identity.attempt, outcome));
          finished.push(entry);
        }
        return out;
      },
      false,
      true,
    );
    if (finished.length > 0) this.o.runtime.settled?.(finished.map((entry) => ({ logPath: entry.launch.logPath })));
    for (const entry of finished) {
      this.removeEmptyDirs(entry);
      entry.cancelTimer?.();
      this.active.delete(attemptKey(entry.identity.task, entry.identity.attempt));
      this.tokens.delete(entry.token);
      entry.resolveDone();
    }
    this.applyStopOrders(orders);
    if (finished.length > 0) this.o.onFreed();
  }
}

/** The reason of an attempt whose log could not be written. */
function logFailure(logPath: string, error: NodeJS.ErrnoException): string {
  return isNoSpace(error) ? noSpaceReason(logPath) : `cannot write the log ${logPath}: ${error.code ?? error.message}`;
}

function outcomeOf(entry: ActiveAttempt, exit: TaskExit): AttemptOutcome {
  if (entry.stopping?.kind === 'timeout') return { kind: 'timeout' };
  if (entry.stopping?.kind === 'order') return { kind: 'killed', reason: entry.stopping.reason };
  if (entry.stopping?.kind === 'log') return { kind: 'failed', reason: entry.stopping.reason, exitCode: exit.exitCode };
  return exitOutcome(exit, entry.launch.logPath);
}

/**
 * The outcome of an attempt that ended on its own (also used for exits recovered after a
 * restart); `logPath` names the log in the reason when its writing failed.
 */
export function exitOutcome(exit: TaskExit, logPath = 'its log'): AttemptOutcome {
  if (exit.lost) return { kind: 'preempted', reason: exit.lost };
  if (exit.logError) return { kind: 'failed', reason: logFailure(logPath, exit.logError), exitCode: exit.exitCode };
  const exitCode = exit.exitCode ?? signalExitCode(exit.signal);
  const outcome: AttemptOutcome = exit.reason
    ? { kind: 'exited', exitCode, signal: exit.signal, reason: exit.reason }
    : { kind: 'exited', exitCode, signal: exit.signal };
  if (exit.oom) outcome.oom = true;
  return outcome;
}
