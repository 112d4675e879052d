/**
 * The controller: the pass loop (pass-loop.ts: snapshot -> schedule -> check -> apply) wired to
 * the attempt supervisor (supervisor.ts: launch -> exit -> store). This facade is the surface the
 * server uses; it adds no rules of its own.
 */
import { DEFAULT_QUEUE_OPTIONS, type NamedQueueSpec, type QueueOptions } from '../scheduler/queue/index.js';
import type { PlacementProfile } from '../scheduler/index.js';
import type { JobSpec, Quota } from '../../model/types.js';
import type { CallerIsolation, TaskIdentity } from '../../model/caller.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import type { ExecSession, ExecSpec, TaskRuntime } from '../../runtime/types.js';
import { IrisError } from '../../model/errors.js';
import { attemptIsolation, logsRootFor, type LaunchContext } from './launch.js';
import { PassLoop, type PassObserver } from './pass-loop.js';
import type { QueueListing } from './queue-listing.js';
import { AttemptSupervisor } from './supervisor.js';
import type { HeldAttempt } from './snapshot.js';
import { DEFAULT_DEADLOCK_GRACE_MS, DeadlockWatch, waitingHolds } from './deadlocks.js';
import type { WaitingHold } from '../scheduler/placement/deadlock.js';
import { realTimers, type Timers } from './timers.js';
import { WaitRegistry } from './waits.js';
import { ElasticCoordinator } from './elastic.js';
import type { ElasticSettings } from '../scheduler/elastic.js';
import { disableText, type DisabledBy } from '../../model/types.js';
import { FinishedArchiver } from './finished-archiver.js';
import type { FinishedLimits } from '../state/finished-trees.js';

export type { PassObserver } from './pass-loop.js';
export { ARRIVAL_PASS_INTERVAL_MS } from './pass-spacing.js';

/** How often the controller retries writing its state while the disk is full. */
export const STORAGE_RETRY_MS = 1000;
export type { QueueListing } from './queue-listing.js';
export { DEFAULT_DEADLOCK_GRACE_MS } from './deadlocks.js';

export interface ControllerOptions {
  store: ClusterStore;
  runtime: TaskRuntime;
  launchContext: LaunchContext;
  quotas: ReadonlyMap<string, Quota>;
  stopGraceMs: number;
  /** Queue policy and depths (default: DEFAULT_QUEUE_OPTIONS); with `queues`, the base of each named queue's. */
  queue?: QueueOptions;
  /** Named queues (config `queues:`, queue/queue-set.ts); absent or null: one queue over every worker. */
  queues?: { queues: readonly NamedQueueSpec[]; defaultQueue: string } | null;
  /** `preemption.grace`: a preempted task's time between SIGTERM and SIGKILL; default 30 s. */
  preemptionGraceMs?: number;
  now?: () => number;
  /** Time limits and scheduling deadlines (default: real timers; tests drive their own). */
  timers?: Timers;
  /** How long a job may stay deadlocked before it ends UNSCHEDULABLE (default 30 s; config `deadlock-grace`). */
  deadlockGraceMs?: number;
  /** Place sticky pipeline stages where their parent stage ran (default true; config `placement.stickiness`). */
  stickiness?: boolean;
  /**
   * How placement picks a task's worker: config `placement.mode`, `selection`, `lambda` and
   * `jitter` resolved to the mode's weighted scorers (scheduler `placementOptions`); default:
   * first-fit in worker order.
   */
  placement?: PlacementProfile;
  log?: (message: string) => void;
  /** Told the duration of every scheduling pass (metrics); default none. */
  passObserver?: PassObserver;
  /** The elastic coordinator's settings (config `elastic`); absent or null: it does not run. */
  elastic?: (ElasticSettings & { pollMs: number }) | null;
  /** Finished work kept in memory (state/finished-trees.ts); default FINISHED_KEPT. */
  finishedKept?: FinishedLimits;
  /** Told when finished jobs have left memory (finished-archiver.ts): a moment to give the heap back. */
  onArchived?: () => void;
}

export class Controller {
  private readonly loop: PassLoop;
  private readonly supervisor: AttemptSupervisor;
  private readonly deadlocks: DeadlockWatch;
  private readonly store: ClusterStore;
  private readonly elastic: ElasticCoordinator | null;
  private readonly log: (message: string) => void;
  private readonly launchContext: LaunchContext;
  private readonly runtime: TaskRuntime;
  /** Moves finished trees beyond the kept ones out of memory into the archive (finished-archiver.ts). */
  readonly archiver: FinishedArchiver;
  /** Attempts blocked in a wait and on what (waits.ts); a change asks for a pass. */
  readonly waits = new WaitRegistry();

  constructor(options: ControllerOptions) {
    const now = options.now ?? Date.now;
    const timers = options.timers ?? realTimers;
    this.store = options.store;
    this.runtime = options.runtime;
    this.launchContext = options.launchContext;
    this.log = options.log ?? (() => {});
    this.elastic = options.elastic
      ? new ElasticCoordinator({
          store: options.store,
          settings: options.elastic,
          now,
          timers,
          log: this.log,
          onEnabled: () => this.loop.requestPass(true),
        })
      : null;
    this.deadlocks = new DeadlockWatch({
      store: options.store,
      waits: this.waits,
      graceMs: options.deadlockGraceMs ?? DEFAULT_DEADLOCK_GRACE_MS,
    });
    this.supervisor = new AttemptSupervisor({
      store: options.store,
      runtime: options.runtime,
      stopGraceMs: options.stopGraceMs,
      now,
      timers,
      log: options.log ?? (() => {}),
      onFreed: () => this.loop.requestPass(),
      logsRoot: logsRootFor(options.launchContext.home),
    });
    this.loop = new PassLoop({
      store: options.store,
      launchContext: options.launchContext,
      quotas: options.quotas,
      queue: options.queue ?? DEFAULT_QUEUE_OPTIONS,
      ...(options.queues ? { queues: options.queues } : {}),
      now,
      timers,
      launch: (attempts) => this.supervisor.adopt(attempts),
      stop: (orders) => this.supervisor.applyStopOrders(orders),
      deadlocks: this.deadlocks,
      released: () => this.waits.released(),
      held: () => this.supervisor.held(),
      stickiness: options.stickiness ?? true,
      ...(options.passObserver ? { observer: options.passObserver } : {}),
      ...(options.placement ? { placement: options.placement } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.preemptionGraceMs !== undefined ? { preemptionGraceMs: options.preemptionGraceMs } : {}),
    });
    this.archiver = new FinishedArchiver({
      store: options.store,
      held: () => this.supervisor.held(),
      log: this.log,
      ...(options.finishedKept ? { limits: options.finishedKept } : {}),
      ...(options.onArchived ? { onArchived: options.onArchived } : {}),
    });
    // A wait that begins frees CPU, one that ends takes it back: either changes what fits.
    this.waits.onChange(() => this.loop.requestPass(true));
    // A full disk: keep running on memory, retry the writes until they succeed, then go on placing.
    const log = options.log ?? (() => {});
    let cancelRetry: (() => void) | null = null;
    const retry = () => {
      cancelRetry = null;
      if (!this.store.retryWrites()) cancelRetry = timers.after(STORAGE_RETRY_MS, retry, true);
    };
    this.store.events.on('storage', (problem) => {
      if (problem) {
        log(
          `cannot write the cluster state: ${problem.message}; submissions are refused and nothing starts until ` +
            `space returns`,
        );
        cancelRetry ??= timers.after(STORAGE_RETRY_MS, retry, true);
      } else {
        log('the cluster state is written again; accepting submissions');
        cancelRetry?.();
        cancelRetry = null;
        this.loop.requestPass(true);
      }
    });
    if (this.store.storage) cancelRetry = timers.after(STORAGE_RETRY_MS, retry, true); // opened on a full disk
    this.stopRetry = () => cancelRetry?.();
  }

  private stopRetry: () => void = () => {};

  get policy(): string {
    return this.loop.policy;
  }

  /** Scheduling passes run so far (requests in one tick coalesce into one pass). */
  get passes(): number {
    return this.loop.passes;
  }

  start(): void {
    this.loop.requestPass();
    this.elastic?.start();
    this.archiver.start();
  }

  /** One poll of the elastic coordinator now (tests); 0 when it does not run. */
  pollElastic(): number {
    return this.elastic?.poll() ?? 0;
  }

  /**
   * A manual toggle (`iris workers disable|enable`): the store's rules (Lifecycle.disableWorker,
   * enableWorker), one log line when something changed, and a pass after an enable. Returns
   * whether the worker changed.
   */
  setWorkerEnabled(id: string, enabled: boolean, by: DisabledBy = 'user', reason = ''): boolean {
    if (!enabled) {
      const changed = this.store.disableWorker(id, by, reason);
      const w = this.store.worker(id);
      if (changed && w?.disabled) this.log(`worker ${id} disabled (${disableText(w.disabled)})`);
      return changed;
    }
    const changed = this.store.enableWorker(id);
    if (changed) {
      this.log(`worker ${id} enabled by user`);
      this.loop.requestPass(true);
    }
    return changed;
  }

  /** Ask for a scheduling pass (see PassLoop.requestPass). */
  requestPass(resourcesChanged = true): void {
    this.loop.requestPass(resourcesChanged);
  }

  /** The identity of the running attempt a task token belongs to. */
  callerForToken(token: string): TaskIdentity | null {
    return this.supervisor.callerForToken(token);
  }

  /** What the running attempt of a task token runs in, as its children inherit it (launch.ts attemptIsolation). */
  isolationForToken(token: string): CallerIsolation | null {
    const identity = this.supervisor.callerForToken(token);
    const job = identity && this.store.job(identity.job);
    if (!job) return null;
    return attemptIsolation(job.spec, this.supervisor.launchForToken(token)?.container, this.launchContext.pods);
  }

  activeCount(): number {
    return this.supervisor.activeCount();
  }

  /**
   * Runs a command inside the running attempt `attempt` of `task` (`iris exec`, the runtime's
   * exec). Rejects with not_found when that attempt does not run here now (not yet started, being
   * stopped, ended), with unavailable when the runtime cannot exec.
   */
  exec(task: string, attempt: number, spec: ExecSpec): Promise<ExecSession> {
    const handle = this.supervisor.runningHandle(task, attempt);
    if (!handle) {
      return Promise.reject(
        new IrisError(
          'not_found',
          `${task} attempt ${attempt} is not running (it is starting, stopping or has ended)`,
          'see its state with `iris status`',
        ),
      );
    }
    if (!this.runtime.exec)
      return Promise.reject(
        new IrisError('unavailable', `the ${this.runtime.name} runtime cannot run a command in a task`),
      );
    return this.runtime.exec(handle, spec);
  }

  /** Attempts the store has ended whose process is not gone yet; they hold their resources until it is. */
  held(): HeldAttempt[] {
    return this.supervisor.held();
  }

  /** Resolves once every process of the jobs `names` and their subtrees is gone. */
  gone(names: readonly string[]): Promise<void> {
    return this.supervisor.gone(names);
  }

  /** Stop the attempts named by store orders (their new state is already recorded). */
  applyStopOrders(orders: readonly StopOrder[]): void {
    this.supervisor.applyStopOrders(orders);
  }

  /** Supervise attempts still running from an earlier life (AttemptSupervisor.resumeRunning); call before start(). */
  resumeRunning(attempts: Parameters<AttemptSupervisor['resumeRunning']>[0]): void {
    this.supervisor.resumeRunning(attempts);
  }

  /** Pending jobs in scheduling order, reservations and policy, as plain data (the server builds QueueInfo). */
  /** The named queues' settings in config order (none without `queues:`). */
  namedQueues(): NonNullable<QueueListing['queues']> {
    return this.loop.namedQueues();
  }

  queueListing(): QueueListing {
    return this.loop.queueListing();
  }

  /** What each running attempt blocked in a wait holds meanwhile (admission's deadlock check). */
  waitingHolds(): WaitingHold[] {
    return waitingHolds(this.store, this.waits);
  }

  /** When a job with this spec would start if submitted now (no state changes). */
  estimate(spec: JobSpec): { start: number | null; now: number; reason: string; policy: string } {
    return this.loop.estimate(spec);
  }

  /** No more passes; stop every running attempt (recorded as preempted: they run again on the next start). */
  async shutdown(reason: string): Promise<void> {
    this.loop.close();
    this.elastic?.close();
    this.archiver.stop();
    this.stopRetry();
    await this.supervisor.shutdown(reason);
  }
}
