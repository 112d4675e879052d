/**
 * One planning pass of a queue policy, as a pure function: `queuePass(snapshot, state,
 * resourcesChanged) -> { plan, next }` (state.ts). No clock, randomness or I/O; the policy is
 * data (options.ts POLICY_RULES) and this is the one loop that reads it.
 *
 * Invariant (work-conserving; test/cluster/scheduler/queue/work-conserving.test.ts): after a
 * pass, no pending job that could start now on the free capacity, without overlapping a
 * reservation the policy keeps, is left waiting, and no start overlaps such a reservation.
 * Exceptions are the policy's own: under `fcfs` everything behind the first blocked job waits;
 * users over a quota go last; after a pass that only saw arrivals, jobs blocked before stand
 * (nothing was freed since) and only the jobs it looked at are covered.
 *
 * A pass walks pending jobs in progress order, the whole queue unless the policy stops (or nothing
 * more can start: below), and for each runs allocate-or-reserve (allocate.ts). The first
 * `queueDepth` jobs it plans are the window: only they may get a reservation, while fewer than the
 * policy's reservation depth are held; every later job may still start now, never reserve. A job
 * that cannot be reserved (reservations used up, or past the window) and provably cannot start now
 * (start-cache.ts: O(1) per job) is skipped: blocked, not counted toward queueDepth. A policy that
 * stops at the first blocked job ends the pass there. Users at/over a running quota are deferred
 * behind everyone (as in first-fit) and never hold a reservation. A user with a hard quota starts
 * only as many tasks as keep their running usage within it (a gang: all or none), and a job held
 * there gets no reservation; its reason names the quota (shares.ts hardQuotaReason). A blocked job past the window
 * stands (is not retried until resources change) only when the policy's reservations are used up;
 * else the next pass may reserve it. The steps, in order:
 *
 * 1. restoreReservations (only new jobs arrived): standing reservations go back into the
 *    planner; one whose start has passed, or that no longer fits, is dropped and its job
 *    reconsidered. Other standing blocked jobs are skipped (they do not count against queueDepth).
 * 2. buildWindow: the first queueDepth jobs not standing, plus standing ones met on the way when
 *    the policy stops at them (the window grows past them while jobs are skipped, step 4).
 * 3. holdEarlierReservations (resources changed: every job is reconsidered, in order): a job
 *    reserved before keeps its old spans while the jobs ahead of it are planned, and is then
 *    re-planned itself; its old slot is still free then, so a reservation only ever moves
 *    earlier. A job that arrived since and now stands ahead of it in queue order (a deeper child
 *    of an older tree) was not accounted for: queue order wins, and that hold is given up.
 *    Reservations of jobs now outside the window are dropped.
 * 4. allocateWindow, then the rest of the queue (walkOn), 5. allocateDeferred (over-quota users
 *    last, never reserving).
 * 6. reportBlocked (report.ts): a reason for each job, and which blocked jobs stand.
 *
 * The walk ends early, past the window, once no job it has not reached can start now or be
 * reserved (walk-end.ts RoomLeft): those jobs get the reason a skipped job gets (report.ts), but
 * do not stand: the next pass looks at them again. Not under a policy that stops at the first
 * blocked job, nor for an estimate. The plan says when a next pass at the same instant would
 * start nothing (Plan.settled, walk-end.ts settledAfter).
 */
import type { Placement, Plan, SchedulerTask, Snapshot } from '../types.js';
import type { PlacementProfile } from '../placement/scoring.js';
import {
  allocateOrReserve,
  holdReservation,
  releaseSpans,
  replanHeld,
  type HeldSpans,
  type Outcome,
  type QueuedJob,
} from './allocate.js';
import { PassContext } from './context.js';
import { JobQueue } from './job-queue.js';
import type { KeptPass, KeptReservation } from './kept.js';
import { optionsRule, type QueueOptions, type QueuePolicyRule } from './options.js';
import { reportBlocked, type Result, type Walked } from './report.js';
import { nextQueueState, type Blocked, type QueueState } from './state.js';
import { RoomLeft, settledAfter } from './walk-end.js';
import { hardQuotaReason, hardQuotaRoom } from './shares.js';

/** The outcome of a job skipped because it provably cannot start now and cannot be reserved. */
const SKIPPED: Outcome = Object.freeze({ placed: 0, reservation: null, held: null, unreservable: false });

export interface PassResult {
  plan: Plan;
  /** The jobs the pass walked, in queue order. */
  window: QueuedJob[];
  ctx: PassContext;
  /** Jobs blocked in this pass. */
  added: Map<string, Blocked>;
  /** Standing jobs whose reservation was dropped. */
  dropped: string[];
  /** Where each reservation the pass ended with is held in the calendars, by job. */
  spans: Map<string, KeptReservation>;
  /**
   * A pass that skipped standing jobs (only arrivals, ordered snapshot): the pending tasks from
   * the head of the queue up to the first job it did not skip. Those jobs all stay blocked in
   * the next state, so the next pass, if it too sees only arrivals and drops no reservation,
   * can step over the same task objects without asking (JobQueue.skipHead). Else null.
   */
  standingHead: SchedulerTask[] | null;
}

class Pass implements Walked {
  readonly rule: QueuePolicyRule;
  readonly ctx: PassContext;
  readonly now: number;
  readonly placements: Placement[] = [];
  readonly reasons = new Map<string, string>();
  /** Job -> reserved start, for the plan. */
  readonly reservations = new Map<string, number>();
  readonly added = new Map<string, Blocked>();
  readonly dropped: string[] = [];
  private readonly droppedSet = new Set<string>();
  readonly queue: JobQueue;
  window: QueuedJob[] = [];
  /** The first job past the walk, read already (when the queue is complete, or the walk ended early). */
  beyond: QueuedJob | null = null;
  /** Old spans of window jobs held while the jobs ahead of them are planned. */
  private readonly held = new Map<string, HeldSpans>();
  readonly results: Result[] = [];
  readonly deferred: Array<{ q: QueuedJob; planning: boolean }> = [];
  /** Jobs planned so far (given the chance of a reservation): the window is queueDepth of them. */
  private counted = 0;
  /** Blocked jobs that may hold a reservation at once (the policy's reservation depth). */
  readonly limit: number;
  /** The test buildWindow skips standing jobs by (undefined: none skipped), for the rest of the walk. */
  private skipStanding: ((name: string) => boolean) | undefined = undefined;
  deferredDone = 0;
  stoppedBy: string | null = null;
  stopAt = 0;
  /** The walk may end early (the header): not for fcfs, nor for an estimate. */
  private endable = false;
  /** The walk ended early: nothing more could start. */
  ended = false;
  private readonly room: RoomLeft;
  /** Reservations standing in kept calendars at the start of the pass (empty without). */
  private readonly kept: ReadonlyMap<string, KeptReservation>;
  readonly spans = new Map<string, KeptReservation>();
  private readonly headHint: readonly SchedulerTask[] | null;
  standingHead: SchedulerTask[] | null = null;

  constructor(
    readonly snapshot: Snapshot,
    readonly state: QueueState,
    readonly resourcesChanged: boolean,
    readonly options: QueueOptions,
    placement: PlacementProfile,
    /** The pass number blocked jobs are dated with. */
    readonly number: number,
    kept: KeptPass | null,
  ) {
    this.rule = optionsRule(options);
    this.limit = this.rule.reservationDepth(options);
    this.ctx = new PassContext(snapshot, options, placement, kept);
    this.kept = kept?.reserved ?? new Map();
    this.headHint = kept?.standingHead ?? null;
    this.now = this.ctx.now;
    this.queue = new JobQueue(snapshot);
    this.room = new RoomLeft(this.ctx);
  }

  /** A blocked job left standing from an earlier pass (not reconsidered in this one). */
  standing(name: string): Blocked | undefined {
    if (this.resourcesChanged || (this.droppedSet.size > 0 && this.droppedSet.has(name))) return undefined;
    return this.state.blocked.get(name);
  }

  restoreReservations(): void {
    if (this.resourcesChanged) return;
    // Only reserved jobs are checked here; the rest are met (or not) while walking the queue.
    for (const [name, b] of this.state.reserved) {
      const r = b.reservation!;
      const kept = this.kept.get(name);
      const gone = !this.snapshot.jobs.has(name) || r.start <= this.now;
      if (gone && kept) releaseSpans(this.ctx, kept.spans);
      const spans = gone ? null : kept ? kept.spans : holdReservation(this.ctx, r);
      if (!spans) {
        this.dropped.push(name);
        this.droppedSet.add(name);
      } else {
        this.reservations.set(name, r.start);
        this.spans.set(name, { reservation: r, spans });
      }
    }
  }

  /** `fullWindow`: keep standing jobs in the window (estimate walks the jobs ahead). */
  buildWindow(fullWindow: boolean): void {
    this.endable = !fullWindow && !this.rule.stopAtFirstBlocked;
    const keepStanding = this.resourcesChanged || this.rule.stopAtFirstBlocked || fullWindow;
    // Skipping standing jobs (only new jobs arrived): the test standing() makes, on the maps directly.
    const blocked = this.state.blocked;
    const dropped = this.droppedSet;
    const skip = keepStanding
      ? undefined
      : dropped.size === 0
        ? (name: string) => blocked.has(name)
        : (name: string) => blocked.has(name) && !dropped.has(name);
    this.skipStanding = skip;
    const ordered = skip !== undefined && this.snapshot.pendingOrdered === true;
    // The head the last pass skipped is still standing unless this pass dropped a reservation.
    if (ordered && this.headHint !== null && dropped.size === 0) this.queue.skipHead(this.headHint);
    let head = -1;
    let considered = 0;
    for (let q = this.queue.next(skip); q; q = this.queue.next(skip)) {
      if (head < 0) head = this.queue.lastStart;
      if (skip !== undefined || !this.standing(q.job.name)) {
        if (considered >= this.options.queueDepth) {
          this.beyond = q;
          break;
        }
        considered++;
      }
      this.window.push(q);
    }
    if (ordered) this.standingHead = this.snapshot.pending.slice(0, head < 0 ? this.snapshot.pending.length : head);
  }

  holdEarlierReservations(): void {
    if (!this.resourcesChanged) return;
    let newestAhead = -Infinity;
    for (const q of this.window) {
      const before = this.state.blocked.get(q.job.name);
      const r = before?.reservation;
      if (r && r.start >= this.now && r.count === q.tasks.length && newestAhead <= before!.reservedPass) {
        const spans = this.kept.get(q.job.name)?.spans ?? holdReservation(this.ctx, r);
        if (spans) this.held.set(q.job.name, spans);
      }
      newestAhead = Math.max(newestAhead, before ? before.since : Infinity);
    }
    // Kept reservations not held again here are not part of this pass.
    for (const [name, kept] of this.kept) if (this.held.get(name) !== kept.spans) releaseSpans(this.ctx, kept.spans);
  }

  /** Record an outcome; true when the job is still (partly) blocked. */
  private settle(q: QueuedJob, out: Outcome, quota: string | null, planning: boolean, hold?: string): boolean {
    this.results.push(hold === undefined ? { q, out, quota, planning } : { q, out, quota, planning, hold });
    if (out.placed >= q.tasks.length) return false;
    if (out.reservation) {
      this.reservations.set(q.job.name, out.reservation.start);
      if (out.held) this.spans.set(q.job.name, { reservation: out.reservation, spans: out.held });
    }
    return true;
  }

  /**
   * The window in queue order, then the rest of the queue (walkOn). A standing job is passed
   * over; under a policy that stops at the first blocked job, the pass ends there.
   */
  allocateWindow(): void {
    for (let i = 0; i < this.window.length; i++) {
      const q = this.window[i]!;
      const name = q.job.name;
      if (this.standing(name)) {
        if (this.rule.stopAtFirstBlocked) {
          this.stop(name, i + 1);
          return;
        }
        continue;
      }
      if (!this.consider(q)) {
        this.stop(name, i + 1);
        return;
      }
    }
    this.walkOn();
  }

  /**
   * Past the jobs buildWindow took: the window grows while fewer than queueDepth jobs were
   * planned (skipped and deferred jobs do not count), then every further job is given its chance
   * to start now, never a reservation (the work-conserving walk: the header).
   */
  private walkOn(): void {
    const depth = this.options.queueDepth;
    for (let q = this.beyond; q; q = this.queue.next(this.skipStanding)) {
      this.beyond = null;
      // No reservation left to give, and no room for q or any job after it: the walk ends.
      const reservable = this.counted < depth && this.reservations.size < this.limit;
      if (this.endable && !reservable && this.room.noneFor(q, this.queue)) {
        this.beyond = q;
        this.ended = true;
        break;
      }
      const name = q.job.name;
      const planning = this.counted < depth;
      if (planning) this.window.push(q);
      if (this.standing(name)) {
        if (this.rule.stopAtFirstBlocked) {
          this.stop(name, this.window.length);
          return;
        }
        continue;
      }
      if (!this.consider(q)) {
        this.stop(name, this.window.length);
        return;
      }
    }
    this.stopAt = this.window.length;
  }

  /**
   * Allocate-or-reserve for one job the walk reached; false when the pass must stop there
   * (policy fcfs). A job over its user's quota is deferred. A job that cannot be reserved (the
   * policy's reservations are used up, or it is past the window) and provably cannot start now
   * (start-cache.ts) is skipped: blocked, not planned, not counted toward queueDepth.
   */
  private consider(q: QueuedJob): boolean {
    const { ctx, rule } = this;
    const name = q.job.name;
    const planning = this.counted < this.options.queueDepth;
    const spans = this.held.get(name);
    if (this.snapshot.quotas.has(q.job.user) && ctx.quota.overReason(q.job.user) !== null) {
      if (spans) releaseSpans(ctx, spans);
      this.deferred.push({ q, planning });
      return true;
    }
    const room = this.hardRoom(q);
    if (room < q.tasks.length) {
      if (spans) releaseSpans(ctx, spans);
      let out = SKIPPED;
      if (room > 0) {
        out = allocateOrReserve(ctx, q, false, this.placements, room);
        ctx.starts.tried(q.job, room, out.placed);
      }
      // Asked after the starts: the usage now includes them (null: capacity, not the quota, held the rest).
      const user = q.job.user;
      const count = q.job.coschedule !== null ? q.tasks.length : 1;
      const hold = hardQuotaReason(
        user,
        ctx.quota.usageOf(user),
        this.snapshot.quotas.get(user),
        q.job.resources,
        count,
      );
      this.settle(q, out, null, planning, hold ?? undefined);
      return true;
    }
    const reserve = planning && this.reservations.size < this.limit;
    if (spans === undefined && !reserve && !rule.stopAtFirstBlocked && ctx.starts.cannotStart(q.job, q.tasks.length)) {
      this.results.push({ q, out: SKIPPED, quota: null, planning });
      return true;
    }
    if (planning) this.counted++;
    // A job holding its old spans: re-planned as if they were released first (allocate.ts).
    const out = spans
      ? replanHeld(ctx, q, reserve, this.placements, this.state.blocked.get(name)!.reservation!, spans)
      : allocateOrReserve(ctx, q, reserve, this.placements);
    ctx.starts.tried(q.job, q.tasks.length, out.placed);
    return !(this.settle(q, out, null, planning) && rule.stopAtFirstBlocked);
  }

  /** How many tasks of `q` its user's hard quota lets start now (a gang: all or none); Infinity: no hard quota. */
  private hardRoom(q: QueuedJob): number {
    const user = q.job.user;
    const quota = this.snapshot.quotas.get(user);
    if (!quota?.hard) return Infinity;
    const usage = this.ctx.quota.usageOf(user);
    const res = q.job.resources;
    if (q.job.coschedule === null) return hardQuotaRoom(usage, quota, res);
    return hardQuotaReason(user, usage, quota, res, q.tasks.length) === null ? q.tasks.length : 0;
  }

  private stop(name: string, at: number): void {
    this.stoppedBy = name;
    this.stopAt = at;
  }

  allocateDeferred(): void {
    if (this.stoppedBy !== null) return;
    const { ctx, rule } = this;
    for (const { q, planning } of this.deferred) {
      this.deferredDone++;
      const quota = ctx.quota.overReason(q.job.user);
      let out = SKIPPED;
      if (rule.stopAtFirstBlocked || !ctx.starts.cannotStart(q.job, q.tasks.length)) {
        out = allocateOrReserve(ctx, q, false, this.placements);
        ctx.starts.tried(q.job, q.tasks.length, out.placed);
      }
      if (this.settle(q, out, quota, planning) && rule.stopAtFirstBlocked) {
        this.stoppedBy = q.job.name;
        return;
      }
    }
  }

  result(): PassResult {
    reportBlocked(this, this.reasons, this.added);
    const plan: Plan = { placements: this.placements, reasons: this.reasons, reservations: this.reservations };
    if (settledAfter(this.ctx, this.reservations, this.deferred.length)) plan.settled = true;
    const memory = this.ctx.selector?.memory?.();
    if (memory) plan.placementMemory = memory;
    return {
      plan,
      window: this.window,
      ctx: this.ctx,
      added: this.added,
      dropped: this.dropped,
      spans: this.spans,
      standingHead: this.standingHead,
    };
  }
}

/**
 * The planning pass numbered `number` over `state`, without folding it into a next state (the
 * estimate runs one to see what would happen). `fullWindow`: keep standing jobs in the window.
 */
export function runPass(
  snapshot: Snapshot,
  state: QueueState,
  resourcesChanged: boolean,
  options: QueueOptions,
  placement: PlacementProfile,
  number: number,
  fullWindow = false,
  /** Calendars kept by the caller, holding the running tasks (kept.ts); null: built fresh. */
  kept: KeptPass | null = null,
): PassResult {
  const pass = new Pass(snapshot, state, resourcesChanged, options, placement, number, kept);
  pass.restoreReservations();
  pass.buildWindow(fullWindow);
  pass.holdEarlierReservations();
  pass.allocateWindow();
  pass.allocateDeferred();
  return pass.result();
}

/**
 * One planning pass (the policy must plan ahead; first-fit is `schedule`): the plan and the state
 * for the next pass. `resourcesChanged=false` means only new jobs arrived since the pass that
 * made `state`: jobs blocked then are not retried (their reservations stand in the planner).
 */
export function queuePass(
  snapshot: Snapshot,
  state: QueueState,
  resourcesChanged: boolean,
  options: QueueOptions,
  placement: PlacementProfile,
): { plan: Plan; next: QueueState } {
  const number = state.passes + 1;
  const result = runPass(snapshot, state, resourcesChanged, options, placement, number);
  return { plan: result.plan, next: nextQueueState(state, result, resourcesChanged, number) };
}
