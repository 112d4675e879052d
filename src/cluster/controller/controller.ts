/**
 * The controller loop: snapshot -> schedule -> check -> apply -> launch, and exits -> store.
 *
 * Invariants:
 * - Only the store decides states; the controller turns store StopOrders into runtime stops.
 * - A pass is requested by events (submit, exit, cancel, drain) and coalesced: many requests in
 *   one tick give one pass, and passes for submissions alone run at most every
 *   ARRIVAL_PASS_INTERVAL_MS.
 * - Every launched attempt is tracked in `active` until its exit has been recorded, so shutdown
 *   can stop and await all of them.
 * - Store writes triggered by launches and exits are batched into one transaction per tick.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_QUEUE_OPTIONS, QueueScheduler, type QueueOptions } from '../scheduler/queue/index.js';
import type { JobSpec } from '../../model/types.js';
import type { TaskIdentity } from '../../model/caller.js';
import { estimateStart, queueEntries } from '../../server/queue-view.js';
import type { QueueInfo } from '../../api/types.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import type { AttemptOutcome } from '../../model/states.js';
import type { Quota } from '../../model/types.js';
import type { RunningTask, TaskExit, TaskLaunch, TaskRuntime } from '../../runtime/types.js';
import { appendNote } from '../../logs/format.js';
import { attemptKey, buildSnapshot } from './snapshot.js';
import { buildLaunch, logPathFor, sliceOf, type LaunchContext } from './launch.js';
import { formatDuration } from '../../model/duration.js';

interface ActiveAttempt {
  identity: TaskIdentity;
  launch: TaskLaunch;
  token: string;
  handle: RunningTask | null;
  /** Why iris is stopping it: a store order (already recorded) or its own timeout. */
  stopping: { kind: 'order'; reason: string } | { kind: 'timeout' } | null;
  timer: NodeJS.Timeout | null;
  done: Promise<void>;
  resolveDone: () => void;
}

export interface ControllerOptions {
  store: ClusterStore;
  runtime: TaskRuntime;
  launchContext: LaunchContext;
  quotas: ReadonlyMap<string, Quota>;
  stopGraceMs: number;
  /** Queue policy and depths (default: DEFAULT_QUEUE_OPTIONS). */
  queue?: QueueOptions;
  now?: () => number;
  log?: (message: string) => void;
}

const SCHEDULING_TIMEOUT_TICK_MS = 250;
/** Least time between two passes requested by submissions alone (at most ~50 such passes a second). */
export const ARRIVAL_PASS_INTERVAL_MS = 20;

export class Controller {
  private readonly store: ClusterStore;
  private readonly runtime: TaskRuntime;
  private readonly ctx: LaunchContext;
  private readonly quotas: ReadonlyMap<string, Quota>;
  private readonly graceMs: number;
  private readonly now: () => number;
  private readonly log: (message: string) => void;
  private readonly active = new Map<string, ActiveAttempt>();
  private readonly holdings = new Map<string, number[]>();
  private readonly tokens = new Map<string, TaskIdentity>();
  private passQueued = false;
  /** The timer of a queued arrival pass (null when the queued pass runs at the next tick). */
  private passTimer: NodeJS.Timeout | null = null;
  /** performance.now() at the start of the last pass. */
  private lastPassAt = -Infinity;
  /** Something freed or changed capacity since the last pass (not only new submissions). */
  private resourcesChanged = true;
  private readonly queue: QueueScheduler;
  private readonly queueOptions: QueueOptions;
  /** Reserved start per blocked job, from the last pass. */
  private reservations: ReadonlyMap<string, number> = new Map();
  private closing = false;
  private pendingRunning: Array<{ task: string; attempt: number; pid: number | null }> = [];
  private pendingExits: Array<{ key: string; outcome: AttemptOutcome }> = [];
  private flushQueued = false;
  private deadlineTimer: NodeJS.Timeout | null = null;
  /** Jobs with a scheduling timeout that were still pending after the last pass. */
  private deadlines = new Map<string, number>();
  /** Scheduling passes run so far (requests in one tick coalesce into one pass). */
  passes = 0;

  get policy(): string {
    return this.queueOptions.policy;
  }

  constructor(options: ControllerOptions) {
    this.store = options.store;
    this.runtime = options.runtime;
    this.ctx = options.launchContext;
    this.quotas = options.quotas;
    this.graceMs = options.stopGraceMs;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    this.queueOptions = options.queue ?? DEFAULT_QUEUE_OPTIONS;
    this.queue = new QueueScheduler(this.queueOptions);
  }

  start(): void {
    this.deadlineTimer = setInterval(() => {
      if (this.deadlines.size === 0) return;
      const now = this.now();
      for (const deadline of this.deadlines.values()) {
        if (deadline <= now) {
          this.requestPass();
          return;
        }
      }
    }, SCHEDULING_TIMEOUT_TICK_MS);
    this.deadlineTimer.unref();
    this.requestPass();
  }

  /**
   * Ask for a scheduling pass; many requests in one tick give one pass. `resourcesChanged`
   * false (a submit) lets the queue policy leave jobs blocked in the last pass alone, and such
   * passes run at most every ARRIVAL_PASS_INTERVAL_MS: a burst of submissions (each its own
   * request, so its own tick) is placed in a few passes. The first submission after a quiet
   * spell, and anything that frees capacity, gets a pass at once.
   */
  requestPass(resourcesChanged = true): void {
    if (resourcesChanged) this.resourcesChanged = true;
    if (this.closing) return;
    if (this.passQueued) {
      if (!resourcesChanged || this.passTimer === null) return;
      clearTimeout(this.passTimer);
    }
    this.passQueued = true;
    const wait = resourcesChanged ? 0 : this.lastPassAt + ARRIVAL_PASS_INTERVAL_MS - performance.now();
    const run = () => {
      this.passTimer = null;
      this.passQueued = false;
      if (!this.closing) this.pass();
    };
    if (wait <= 0) {
      this.passTimer = null;
      setImmediate(run);
    } else {
      this.passTimer = setTimeout(run, wait);
    }
  }

  /** The identity of the running attempt a task token belongs to. */
  callerForToken(token: string): TaskIdentity | null {
    return this.tokens.get(token) ?? null;
  }

  deviceHoldings(): ReadonlyMap<string, readonly number[]> {
    return this.holdings;
  }

  activeCount(): number {
    return this.active.size;
  }

  /** Stop the attempts named by store orders (their new state is already recorded). */
  applyStopOrders(orders: readonly StopOrder[]): void {
    for (const order of orders) {
      const entry = this.active.get(attemptKey(order.task, order.attempt));
      if (!entry) continue;
      if (!entry.stopping) entry.stopping = { kind: 'order', reason: order.reason };
      this.stopEntry(entry, `iris: stopping attempt (${order.reason})`);
    }
    if (orders.length > 0) this.requestPass();
  }

  /** Stop every running attempt (recorded as preempted: they run again on the next start). */
  async shutdown(reason: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    if (this.passTimer) clearTimeout(this.passTimer);
    // The orders preemptAttempt returns name these same attempts, which are all stopped below.
    this.store.transaction(() => {
      for (const entry of this.active.values()) this.store.preemptAttempt(entry.identity.task, entry.identity.attempt, reason);
    });
    for (const entry of this.active.values()) {
      if (!entry.stopping) entry.stopping = { kind: 'order', reason };
      this.stopEntry(entry, `iris: stopping attempt (${reason})`);
    }
    await Promise.all([...this.active.values()].map((entry) => entry.done));
    this.flush();
  }

  private pass(): void {
    this.passes++;
    this.lastPassAt = performance.now();
    const now = this.now();
    this.expireSchedulingTimeouts(now);
    const snapshot = buildSnapshot(this.store, this.holdings, this.quotas, now);
    if (snapshot.pending.length === 0) {
      this.deadlines.clear();
      this.reservations = new Map();
      return;
    }
    const resourcesChanged = this.resourcesChanged;
    this.resourcesChanged = false;
    const plan = this.queue.pass(snapshot, resourcesChanged);
    this.reservations = plan.reservations ?? new Map();
    const launches = this.store.transaction(() => {
      const out: ActiveAttempt[] = [];
      for (const placement of plan.placements) {
        const task = this.store.task(placement.task);
        const job = this.store.job(placement.job);
        const worker = this.store.worker(placement.workerId);
        // Decide, check, act: only placements still valid against the store are committed.
        if (!task || !job || task.state !== 'PENDING' || worker?.state !== 'READY') continue;
        const logPath = logPathFor(this.ctx.home, task.id, task.attempt);
        const attempt = this.store.assign(task.id, placement.workerId, logPath);
        const token = randomBytes(18).toString('base64url');
        const identity = { task: task.id, job: job.name, attempt: attempt.attempt };
        const launch = buildLaunch(this.ctx, job, task, {
          workerId: placement.workerId, deviceIndices: placement.deviceIndices, attempt: attempt.attempt, token, logPath,
          worker, slice: sliceOf(worker, () => this.store.workers()),
        });
        const key = attemptKey(task.id, attempt.attempt);
        this.holdings.set(key, placement.deviceIndices);
        this.tokens.set(token, identity);
        let resolveDone!: () => void;
        const done = new Promise<void>((resolve) => (resolveDone = resolve));
        const entry: ActiveAttempt = { identity, launch, token, handle: null, stopping: null, timer: null, done, resolveDone };
        this.active.set(key, entry);
        out.push(entry);
      }
      this.store.setPendingReasons(plan.reasons);
      return out;
    });
    this.trackDeadlines();
    for (const entry of launches) void this.launch(entry);
  }

  /** Pending jobs in the order the scheduler considers them, with reasons and reservations. */
  queueInfo(): QueueInfo {
    const snapshot = buildSnapshot(this.store, this.holdings, this.quotas, this.now());
    const { policy, queueDepth, reservationDepth } = this.queueOptions;
    return { policy, queueDepth, reservationDepth, jobs: queueEntries(snapshot, this.store, this.reservations) };
  }

  /** When a job with this spec would start if submitted now (no state changes). */
  estimate(spec: JobSpec): { start: number | null; now: number; reason: string; policy: string } {
    const snapshot = buildSnapshot(this.store, this.holdings, this.quotas, this.now());
    return { ...estimateStart(snapshot, this.store, this.queue, spec), now: snapshot.now, policy: this.queueOptions.policy };
  }

  private trackDeadlines(): void {
    this.deadlines.clear();
    for (const task of this.store.pendingTasks()) {
      if (this.deadlines.has(task.job)) continue;
      const job = this.store.job(task.job);
      const timeout = job?.spec.schedulingTimeoutMs;
      if (job && timeout != null) this.deadlines.set(job.name, job.submittedAt + timeout);
    }
  }

  private expireSchedulingTimeouts(now: number): void {
    const expired = [...this.deadlines].filter(([, deadline]) => deadline <= now);
    if (expired.length === 0) return;
    const orders = this.store.transaction(() => {
      const out: StopOrder[] = [];
      for (const [name] of expired) {
        const job = this.store.job(name);
        if (!job || job.state !== 'PENDING') continue;
        const waited = job.spec.schedulingTimeoutMs ?? 0;
        const why = job.reason ? `: ${job.reason}` : '';
        out.push(...this.store.markUnschedulable(name, `not scheduled within ${Math.round(waited / 1000)}s${why}`));
      }
      return out;
    });
    this.applyStopOrders(orders);
  }

  private async launch(entry: ActiveAttempt): Promise<void> {
    const key = attemptKey(entry.identity.task, entry.identity.attempt);
    mkdirSync(path.dirname(entry.launch.logPath), { recursive: true, mode: 0o700 });
    let handle: RunningTask;
    try {
      handle = await this.runtime.launch(entry.launch);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // `lost` marks an infrastructure failure (e.g. the Docker engine is gone): a preemption.
      const lost = (error as { lost?: unknown }).lost;
      this.note(entry, `iris: could not start the task: ${reason}`);
      this.recordExit(key, typeof lost === 'string' ? { kind: 'preempted', reason: lost } : { kind: 'launch_failed', reason });
      return;
    }
    entry.handle = handle;
    this.pendingRunning.push({ task: entry.identity.task, attempt: entry.identity.attempt, pid: handle.pid });
    this.scheduleFlush();
    if (entry.stopping) {
      this.stopEntry(entry, null);
    } else {
      const job = this.store.job(entry.identity.job);
      const timeout = job?.spec.timeoutMs;
      if (timeout != null) {
        entry.timer = setTimeout(() => {
          if (entry.stopping) return;
          entry.stopping = { kind: 'timeout' };
          this.stopEntry(entry, `iris: stopping attempt (time-limit: ran longer than ${formatDuration(timeout)})`);
        }, timeout);
      }
    }
    const exit = await handle.exited;
    this.recordExit(key, this.outcomeOf(entry, exit));
  }

  private outcomeOf(entry: ActiveAttempt, exit: TaskExit): AttemptOutcome {
    if (entry.stopping?.kind === 'timeout') return { kind: 'timeout' };
    if (entry.stopping?.kind === 'order') return { kind: 'killed', reason: entry.stopping.reason };
    if (exit.lost) return { kind: 'preempted', reason: exit.lost };
    const exitCode = exit.exitCode ?? 128 + signalNumber(exit.signal);
    return exit.reason ? { kind: 'exited', exitCode, signal: exit.signal, reason: exit.reason } : { kind: 'exited', exitCode, signal: exit.signal };
  }

  private stopEntry(entry: ActiveAttempt, note: string | null): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    if (!entry.handle) return; // stopped as soon as its launch completes
    if (note) this.note(entry, note);
    this.runtime.stop(entry.handle, this.graceMs).catch((error) => this.log(`stop failed for ${entry.identity.task}: ${String(error)}`));
  }

  /** iris's own line in the attempt's log (best effort: a failed write must not stop the loop). */
  private note(entry: ActiveAttempt, text: string): void {
    appendNote(entry.launch.logPath, text, this.now()).catch((error) => this.log(`cannot write log note: ${String(error)}`));
  }

  private recordExit(key: string, outcome: AttemptOutcome): void {
    this.pendingExits.push({ key, outcome });
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
    const finished: ActiveAttempt[] = [];
    const orders = this.store.transaction(() => {
      const out: StopOrder[] = [];
      for (const mark of running) {
        const entry = this.active.get(attemptKey(mark.task, mark.attempt));
        if (entry && !entry.stopping) this.store.markRunning(mark.task, mark.attempt, mark.pid);
      }
      for (const { key, outcome } of exits) {
        const entry = this.active.get(key);
        if (!entry) continue;
        out.push(...this.store.finishAttempt(entry.identity.task, entry.identity.attempt, outcome));
        finished.push(entry);
      }
      return out;
    });
    for (const entry of finished) {
      const key = attemptKey(entry.identity.task, entry.identity.attempt);
      if (entry.timer) clearTimeout(entry.timer);
      this.active.delete(key);
      this.holdings.delete(key);
      this.tokens.delete(entry.token);
      entry.resolveDone();
    }
    this.applyStopOrders(orders);
    if (finished.length > 0) this.requestPass();
  }
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

function signalNumber(signal: string | null): number {
  return (signal && SIGNALS[signal]) || 1;
}
