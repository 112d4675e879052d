/**
 * The scheduling pass loop: snapshot -> queue scheduler -> re-check -> apply.
 *
 * Invariants:
 * - A pass is requested by events (submit, exit, cancel, drain) and coalesced: many requests in
 *   one tick give one pass. Passes keep their share of the event loop bounded: the next one
 *   starts no sooner than PASS_SPACING times the last pass's duration after that pass began (at
 *   most MAX_PASS_DELAY_MS later), so under a stream of exits one pass places the tasks of many
 *   of them, and a pass over a long queue leaves most of the loop to the submissions that made
 *   it long (a pass costs in proportion to the jobs pending: issue 36); a pass that took under a
 *   millisecond waits for none. Passes for submissions alone also run at most every
 *   ARRIVAL_PASS_INTERVAL_MS (counted between such passes).
 * - Without quotas, named queues or a baseline placement mode, the queue is kept in order between
 *   passes (ordered-queue.ts) and a pass reads it only as far as it needs (a `pendingOrdered`
 *   snapshot: scheduler/queue/pass.ts ends its walk once nothing more can start), so a pass over
 *   a long queue behind full workers costs what it reads, not the queue's length (issue 36); the
 *   jobs it does not reach keep the last reason a pass gave them. The others sort the whole queue.
 * - Decide, check, act (docs/architecture.md): a placement is committed only if its task is still
 *   PENDING and its worker READY in the store; the store assignment records the device indices
 *   the attempt holds, and only committed placements are handed to the supervisor to launch.
 *   The pass's transaction is lazy (group commit, store-core.ts): no fsync of its own.
 * - While the store cannot write (a full disk: store.storage) a pass places nothing; pending jobs
 *   say they wait for disk space.
 * - A job past its scheduling timeout is ended at the start of the next pass; a timer requests
 *   that pass at the earliest deadline. So is a job deadlocked past its grace (deadlocks.ts).
 * - A task waiting out its retry backoff is not in the pass's snapshot; the same timer requests a
 *   pass when the earliest backoff ends (the end is stored on the task, so a restart keeps it).
 * - With preemption on, while jobs are blocked, the same timer requests a pass when the next running
 *   task below production leaves its exempt time (controller/preemptions.ts): it may be preempted then.
 * - While jobs are pending, the same timer also requests a pass when a running task outlives its
 *   predicted runtime (snapshot.ts nextPredictedEnd; planner/prediction.ts): its planned end moves
 *   later, and so do the reservations behind it, at once rather than at the next unrelated event.
 *   So it does when a running task's exempt time ends that a blocked job could then preempt.
 * - Every snapshot (passes, the queue view, estimates) leaves out the CPU of the attempts
 *   `released()` names at that moment (snapshot.ts; docs/architecture.md, "Waiting") and counts
 *   what the attempts `held()` names still hold (ended, process not gone yet).
 * - Under a baseline placement mode the QueueScheduler carries the mode's memory from pass to
 *   pass; the loop restores it from the store at start and saves it in the pass's transaction
 *   when it changed (placement-memory.ts). A binding made for a placement the re-check then
 *   drops is kept (the task is still pending, or its submission's binding lapses next pass).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeDecision } from '../../model/placement-decision.js';
import type { JobSpec, Quota } from '../../model/types.js';
import { FIRST_FIT_PLACEMENT, isBaselineMode, type PlacementProfile } from '../scheduler/index.js';
import { QueueSet, type NamedQueueSpec, type QueueOptions } from '../scheduler/queue/index.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import { buildLaunch, logPathFor, mergedData, mergedFileFor, sliceOf, type LaunchContext } from './launch.js';
import { estimateStart, pendingJobs, type QueueListing } from './queue-listing.js';
import type { DeadlockWatch } from './deadlocks.js';
import { SchedulingDeadlines } from './scheduling-timeouts.js';
import { loadPlacementMemory, savePlacementMemory } from './placement-memory.js';
import { buildSnapshot, nextEligible, nextPredictedEnd, type HeldAttempt } from './snapshot.js';
import type { AdoptedAttempt } from './supervisor.js';
import type { Timers } from './timers.js';
import { Preemptions } from './preemptions.js';
import { OrderedQueue } from './ordered-queue.js';
import { passStartAt, TokenPool } from './pass-spacing.js';
import { waitingForVictimsText } from '../scheduler/preemption/plan.js';

/**
 * Told about each scheduling pass that ran the scheduler (metrics: the pass duration histogram).
 * Kept to plain numbers so the loop needs no metrics library.
 */
export interface PassObserver {
  /** `seconds`: wall time of the pass (snapshot, schedule, apply); `placed`: attempts it committed. */
  passed(seconds: number, placed: number): void;
}

export interface PassLoopOptions {
  store: ClusterStore;
  launchContext: LaunchContext;
  quotas: ReadonlyMap<string, Quota>;
  queue: QueueOptions;
  /** Named queues (queue/queue-set.ts); absent: one queue (`queue`) over every worker. */
  queues?: { queues: readonly NamedQueueSpec[]; defaultQueue: string };
  now: () => number;
  timers: Timers;
  /** Launch attempts the store has just assigned. */
  launch: (attempts: AdoptedAttempt[]) => void;
  /** Carry out the store's stop orders (from scheduling timeouts and deadlocks). */
  stop: (orders: StopOrder[]) => void;
  /** Names deadlocked jobs after each pass and ends them after their grace (deadlocks.ts). */
  deadlocks: DeadlockWatch;
  /** Attempts whose CPU is released right now (WaitRegistry.released); default none. */
  released: () => ReadonlySet<string>;
  /** Place sticky pipeline stages where their parent stage ran (snapshot.ts); default true. */
  stickiness?: boolean;
  /** Attempts ended in the store whose process is not gone yet (AttemptSupervisor.held). */
  held: () => readonly HeldAttempt[];
  /** Told the duration of every pass (metrics); default none. */
  observer?: PassObserver;
  /** How placement picks a task's worker (config `placement`, resolved to its scorers); default: first-fit. */
  placement?: PlacementProfile;
  /** The controller log: one line per dispatch. */
  log?: (message: string) => void;
  /** `preemption.grace`: a preempted task's time between SIGTERM and SIGKILL; default 30 s. */
  preemptionGraceMs?: number;
}

export class PassLoop {
  private readonly queue: QueueSet;
  private readonly deadlines = new SchedulingDeadlines();
  private cancelDeadlineTimer: (() => void) | null = null;
  private passQueued = false;
  /** The timer of a queued arrival pass (null when the queued pass runs at the next tick). */
  private passTimer: NodeJS.Timeout | null = null;
  /** performance.now() at the start of the last pass. */
  private lastPassAt = -Infinity;
  /** performance.now() at the start of the last pass queued by submissions alone. */
  private lastArrivalPassAt = -Infinity;
  /** How long the last pass took (ms). */
  private lastPassMs = 0;
  /** Something freed or changed capacity since the last pass (not only new submissions). */
  private resourcesChanged = true;
  /** Reserved start per blocked job, from the last pass. */
  private reservations: ReadonlyMap<string, number> = new Map();
  private closed = false;
  /** Scheduling passes run so far (requests in one tick coalesce into one pass). */
  passes = 0;
  /** Worker id -> when this controller last started an attempt there (snapshot `lastDispatchAt`). */
  private readonly lastDispatch = new Map<string, number>();
  private readonly tokens = new TokenPool();
  private readonly preemptions: Preemptions;
  /** The queue kept in order between passes (ordered-queue.ts); null: each pass reads the whole queue. */
  private readonly ordered: OrderedQueue | null;
  /** When a running task's exempt time next ends that a blocked job could then preempt (last pass). */
  private exemptEnd: number | null = null;

  constructor(private readonly o: PassLoopOptions) {
    this.preemptions = new Preemptions(o.store, o.preemptionGraceMs ?? 30_000);
    this.queue = new QueueSet(o.queue, o.placement ?? FIRST_FIT_PLACEMENT, o.queues ?? null);
    const baseline = o.placement !== undefined && isBaselineMode(o.placement.mode);
    if (baseline) this.queue.placementMemory = loadPlacementMemory(o.store);
    // Fair share reorders the queue every pass, named queues split it and baseline modes read every
    // job: those passes read the whole queue; the others read it in order, as far as they need.
    this.ordered = o.quotas.size === 0 && !o.queues && !baseline ? new OrderedQueue(o.store) : null;
  }

  get policy(): string {
    return this.queue.options.policy;
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
    if (this.closed) return;
    if (this.passQueued) {
      if (!resourcesChanged || this.passTimer === null) return;
      clearTimeout(this.passTimer);
    }
    this.passQueued = true;
    const last = { at: this.lastPassAt, ms: this.lastPassMs, arrivalAt: this.lastArrivalPassAt };
    const wait = passStartAt(last, resourcesChanged) - performance.now();
    const run = () => {
      this.passTimer = null;
      this.passQueued = false;
      if (!resourcesChanged) this.lastArrivalPassAt = performance.now();
      if (!this.closed) this.pass();
    };
    if (wait <= 0) {
      this.passTimer = null;
      setImmediate(run);
    } else {
      this.passTimer = setTimeout(run, wait);
    }
  }

  /** No more passes (shutdown). */
  close(): void {
    this.closed = true;
    this.cancelDeadlineTimer?.();
    if (this.passTimer) clearTimeout(this.passTimer);
  }

  /** The named queues' settings in config order (none without named queues). */
  namedQueues(): NonNullable<QueueListing['queues']> {
    return this.o.queues ? this.queue.listing() : [];
  }

  /** Pending jobs in the order the scheduler considers them, with reservations and the policy. */
  queueListing(): QueueListing {
    const snapshot = this.snapshot(this.o.now());
    const { policy, queueDepth, reservationDepth } = this.queue.options;
    const listing: QueueListing = {
      policy,
      queueDepth,
      reservationDepth,
      pending: pendingJobs(snapshot),
      reservations: this.reservations,
    };
    if (this.o.queues) listing.queues = this.namedQueues();
    return listing;
  }

  /** When a job with this spec would start if submitted now (no state changes). */
  estimate(spec: JobSpec): { start: number | null; now: number; reason: string; policy: string } {
    const snapshot = this.snapshot(this.o.now());
    return {
      ...estimateStart(snapshot, this.o.store, this.queue, spec),
      now: snapshot.now,
      policy: this.queue.policyOf(spec.queue),
    };
  }

  /** `ordered`: a pass's snapshot, read from the ordered queue when there is one (the header). */
  private snapshot(now: number, ordered = false) {
    const snapshot = buildSnapshot(this.o.store, this.o.quotas, now, this.o.released(), this.o.held(), {
      stickiness: this.o.stickiness ?? true,
      ...(ordered && this.ordered ? { ordered: this.ordered } : {}),
    });
    const claims = this.preemptions.current(now);
    if (claims.length > 0) snapshot.claims = claims;
    // Adaptive ties go to the worker idle longest: when this controller last dispatched to each (not kept across
    // restarts).
    for (const worker of snapshot.workers) worker.lastDispatchAt = this.lastDispatch.get(worker.id) ?? null;
    return snapshot;
  }

  private pass(): void {
    const { store } = this.o;
    this.passes++;
    this.lastPassAt = performance.now();
    const now = this.o.now();
    const orders = [...this.deadlines.expire(store, now), ...this.o.deadlocks.expire(now)];
    if (orders.length > 0) this.o.stop(orders);
    if (store.storage !== null) {
      // Nothing starts while the state cannot be written: a new attempt would only fail on the
      // full disk. The controller retries the writes and asks for a pass when they succeed.
      const why = `waiting for disk space (${store.storage.message})`;
      store.setPendingReasons(new Map(store.pendingTasks().map((t) => [t.job, why])));
      return;
    }
    const snapshot = this.snapshot(now, true);
    if (snapshot.pending.length === 0) {
      this.exemptEnd = null;
      this.o.deadlocks.observe(snapshot, new Map());
      this.deadlines.track(store, this.ordered?.arrived);
      this.armDeadlineTimer(now, false);
      this.reservations = new Map();
      this.lastPassMs = performance.now() - this.lastPassAt;
      this.o.observer?.passed(this.lastPassMs / 1000, 0);
      return;
    }
    const resourcesChanged = this.resourcesChanged;
    this.resourcesChanged = false;
    const memoryBefore = this.queue.placementMemory;
    const plan = this.queue.pass(snapshot, resourcesChanged);
    this.reservations = plan.reservations ?? new Map();
    for (const [job, held] of this.preemptions.claimed())
      if (plan.reasons.has(job) && !plan.preemptions?.some((p) => p.job === job))
        plan.reasons.set(job, waitingForVictimsText(held.victims, held.workers));
    this.o.deadlocks.observe(snapshot, plan.reasons);
    const ctx = this.o.launchContext;
    const preemptStops: StopOrder[] = [];
    const mergedFiles: { file: string; text: string }[] = [];
    const launches = store.transaction(
      () => {
        const out: AdoptedAttempt[] = [];
        for (const placement of plan.placements) {
          const task = store.task(placement.task);
          const job = store.job(placement.job);
          const worker = store.worker(placement.workerId);
          // Decide, check, act: only placements still valid against the store are committed.
          if (!task || !job || task.state !== 'PENDING' || worker?.state !== 'READY') continue;
          const logPath = logPathFor(ctx.home, job, task.index, task.attempt);
          // A merged batch (scheduler/placement/merge.ts): the members still pending join the lead's attempt.
          const members = (placement.merged ?? []).filter((id) => store.task(id)?.state === 'PENDING');
          const attempt = store.assignMerged(
            task.id,
            members,
            placement.workerId,
            logPath,
            placement.deviceIndices,
            placement.decision ?? null,
          );
          this.lastDispatch.set(placement.workerId, now);
          this.o.log?.(
            `dispatch ${task.id} attempt ${attempt.attempt} -> ${placement.workerId}: ` +
              `${placement.decision ? describeDecision(placement.decision) : 'first fit (not scored)'}`,
          );
          const token = this.tokens.next();
          const launch = buildLaunch(ctx, job, task, {
            workerId: placement.workerId,
            deviceIndices: placement.deviceIndices,
            attempt: attempt.attempt,
            token,
            logPath,
            worker,
            slice: sliceOf(worker, () => store.workers()),
          });
          if (attempt.merged) {
            const data = attempt.merged.tasks.map((id) => {
              const t = store.task(id)!;
              return mergedData(store.job(t.job)!, t, t.attempt);
            });
            const file = mergedFileFor(logPath);
            launch.env.IRIS_MERGED_TASKS = attempt.merged.tasks.join(',');
            launch.env.IRIS_MERGED_FILE = file;
            mergedFiles.push({ file, text: `${JSON.stringify({ tasks: data }, null, 2)}\n` });
            this.o.log?.(`merge ${attempt.merged.tasks.join(', ')} -> one attempt of ${task.id}`);
          }
          out.push({
            identity: { task: task.id, job: job.name, attempt: attempt.attempt },
            workerId: placement.workerId,
            launch,
            token,
          });
        }
        if (plan.preemptions) {
          const stops = this.preemptions.apply(plan.preemptions, now);
          for (const order of stops) this.o.log?.(`preempt ${order.task} attempt ${order.attempt}: ${order.reason}`);
          preemptStops.push(...stops);
        }
        store.setPendingReasons(plan.reasons);
        const memory = this.queue.placementMemory;
        if (memory && memory !== memoryBefore) savePlacementMemory(store, memory);
        return out;
      },
      false,
      true,
    );
    this.deadlines.track(store, this.ordered?.arrived);
    this.exemptEnd = plan.nextExemptEnd ?? null;
    this.armDeadlineTimer(now, true);
    this.o.observer?.passed((performance.now() - this.lastPassAt) / 1000, launches.length);
    for (const { file, text } of mergedFiles) writeMergedFile(file, text);
    this.o.launch(launches);
    if (preemptStops.length > 0) this.o.stop(preemptStops);
    // The launches' synchronous part counts too: it is what the pass costs the event loop.
    this.lastPassMs = performance.now() - this.lastPassAt;
  }

  /**
   * One timer at the earliest scheduling deadline, deadlock grace end, retry backoff end or (when
   * `pending`: jobs wait, so plans depend on it) running task's predicted end or the end of an exempt
   * time a blocked job waits out (plan.nextExemptEnd); it requests the pass that expires it, places
   * the task whose backoff ended, moves the plans behind the prediction, or lets the job preempt.
   */
  private armDeadlineTimer(now: number, pending: boolean): void {
    this.cancelDeadlineTimer?.();
    this.cancelDeadlineTimer = null;
    const { store } = this.o;
    const times = [
      this.deadlines.next(),
      this.o.deadlocks.next(),
      this.ordered ? this.ordered.nextEligible(now) : nextEligible(store, now),
      pending ? nextPredictedEnd(store, now) : null,
      pending && this.exemptEnd !== null && this.exemptEnd > now ? this.exemptEnd : null,
    ].filter((t): t is number => t !== null);
    const next = times.length > 0 ? Math.min(...times) : null;
    if (next === null || this.closed) return;
    this.cancelDeadlineTimer = this.o.timers.after(
      Math.max(0, next - now),
      () => {
        this.cancelDeadlineTimer = null;
        this.requestPass();
      },
      true,
    );
  }
}

/**
 * Write a merged attempt's data file (launch.ts mergedFileFor) before its launch: its directory
 * is the attempt's own (the supervisor makes it 0777 for a container), the file readable by its
 * user. A failure to write leaves the file out; the attempt still learns its tasks from IRIS_MERGED_TASKS.
 */
function writeMergedFile(file: string, text: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, text, { mode: 0o644 });
  } catch {
    // The launch reports a directory it cannot use; the data is also in the store (iris status).
  }
}
