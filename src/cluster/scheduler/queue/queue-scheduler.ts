/**
 * QueueScheduler: one queue policy over the time planner, pure (no clock, randomness or I/O),
 * shared by the controller and the simulator.
 *
 * A pass walks pending jobs in progress order, at most `queueDepth` of them, and for each runs
 * allocate-or-reserve (allocate.ts). What a blocked job gets depends on the policy: `fcfs` ends
 * the pass; `easy`/`hybrid`/`conservative` reserve the first 1 / reservationDepth / all blocked
 * jobs and go on, later jobs starting only around every reservation. Users at/over a running
 * quota are deferred behind everyone (as in first-fit) and never hold a reservation.
 *
 * State across passes (the only state): the jobs found blocked and their reservations.
 * - resourcesChanged (a task ended, a worker came or went, a job was cancelled): every job in
 *   the window is reconsidered, in order. A job reserved before keeps its old spans in the
 *   planner while the jobs ahead of it are planned, and is then re-planned itself; its old slot
 *   is still free then, so a reservation only ever moves earlier (no reservation is delayed by a
 *   later one). The exception is a job that arrived after the reservation was planned and now
 *   stands ahead of it in queue order (a deeper child of an older tree): queue order wins, so
 *   that reservation gives up its hold and is re-planned after it. Reservations of jobs now
 *   outside the window are dropped.
 * - only new jobs arrived: blocked jobs are skipped (they do not count against queueDepth) and
 *   their reservations stand; new jobs start now around them, or block. A reservation whose
 *   start has passed, or that no longer fits, is dropped and its job reconsidered.
 */
import { invalid } from '../../../model/errors.js';
import { neverReason } from '../placement/feasibility.js';
import { schedule } from './first-fit.js';
import { DEFAULT_SCORERS, type WorkerScorer } from '../placement/scorers.js';
import type { Placement, Plan, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { allocateOrReserve, earliestFor, holdReservation, releaseSpans, reserveRest, type HeldSpans, type Outcome, type QueuedJob, type Reservation } from './allocate.js';
import { PassContext } from './context.js';
import { queueOptions, reservationLimit, type QueueOptions } from './options.js';
import { JobQueue } from './job-queue.js';
import { Explainer, reservedSuffix, unreservableText } from './reasons.js';

/** What a pass remembers about a job it could not (fully) start. */
interface Blocked {
  /** Reason without the reservation part. */
  base: string;
  reservation: Reservation | null;
  /** Shown instead of a reserved start (e.g. why none could be reserved); null for nothing. */
  note: string | null;
  /** The pass in which the job first blocked (kept while it stays blocked). */
  since: number;
  /** The pass in which its reservation was planned (every job ahead of it then was accounted for). */
  reservedPass: number;
}

interface PassResult {
  plan: Plan;
  /** The jobs the pass walked, in queue order. */
  window: QueuedJob[];
  ctx: PassContext;
  added: Map<string, Blocked>;
  dropped: string[];
}

/** The first planned end of a running task after now (when a pass can next free capacity). */
function nextEnd(snapshot: Snapshot): number {
  let next = Infinity;
  for (const r of snapshot.running ?? []) if (r.endsAt > snapshot.now && r.endsAt < next) next = r.endsAt;
  return next;
}

function render(b: Blocked, now: number): string {
  if (b.reservation) return `${b.base}; ${reservedSuffix(b.reservation.start, now)}`;
  return b.note ? `${b.base}; ${b.note}` : b.base;
}

export class QueueScheduler {
  readonly options: QueueOptions;
  private blocked = new Map<string, Blocked>();
  /** The blocked jobs that hold a reservation (a subset of `blocked`). */
  private reserved = new Map<string, Blocked>();
  /** Passes run so far (estimate() does not count): the clock of Blocked.since / reservedPass. */
  private passes = 0;

  constructor(
    options: Partial<QueueOptions> = {},
    /** How placement picks among feasible workers (scorers.ts); default: first-fit. */
    readonly scorers: readonly WorkerScorer[] = DEFAULT_SCORERS,
  ) {
    this.options = queueOptions(options);
  }

  /**
   * One pass: placements now, reservations, and a reason per pending job it looked at.
   * `resourcesChanged=false` means only new jobs arrived since the previous pass: jobs blocked
   * then are not retried (their reservations stand in the planner).
   */
  pass(snapshot: Snapshot, resourcesChanged = true): Plan {
    if (this.options.policy === 'first-fit') {
      this.blocked.clear();
      this.reserved.clear();
      return schedule(snapshot, this.scorers);
    }
    this.passes++;
    const result = this.run(snapshot, resourcesChanged);
    if (resourcesChanged) {
      this.blocked = result.added;
      this.reserved = new Map();
    } else {
      for (const name of result.dropped) {
        this.blocked.delete(name);
        this.reserved.delete(name);
      }
      for (const [name, b] of result.added) this.blocked.set(name, b);
    }
    for (const [name, b] of result.added) if (b.reservation) this.reserved.set(name, b);
    return result.plan;
  }

  /**
   * When would `job` start if it were submitted now (sbatch --test-only)? Same rules as the next
   * pass (only this job is new), no state change. `start` is snapshot.now when it would start at
   * once, null when never. For a job the policy would not reserve, the estimate is its earliest
   * start once every blocked job ahead of it holds a reservation (under fcfs: not before any of
   * them), and never before the next planned task end, when the next pass can look at it again.
   */
  estimate(snapshot: Snapshot, job: SchedulerJob): { start: number | null; reason: string } {
    if (snapshot.jobs.has(job.name)) throw invalid(`job ${job.name} is already queued`, 'estimate a job that is not submitted yet');
    const never = neverReason(job, snapshot.workers);
    if (never !== null) return { start: null, reason: never };
    const now = snapshot.now;
    let seq = Number.MAX_SAFE_INTEGER - job.replicas;
    const tasks: SchedulerTask[] = Array.from({ length: job.replicas }, (_, index) => ({
      id: `${job.name}/task-${index}`, job: job.name, index, submittedAt: now, seq: seq++,
    }));
    const withJob: Snapshot = {
      ...snapshot,
      jobs: new Map(snapshot.jobs).set(job.name, job),
      pending: [...snapshot.pending, ...tasks],
      pendingOrdered: false,
    };
    const firstFit = this.options.policy === 'first-fit';
    const result = firstFit ? null : this.run(withJob, false, true);
    const plan = result ? result.plan : schedule(withJob, this.scorers);
    const placedOf = new Map<string, number>();
    for (const p of plan.placements) placedOf.set(p.job, (placedOf.get(p.job) ?? 0) + 1);
    const placed = placedOf.get(job.name) ?? 0;
    if (placed >= job.replicas) return { start: now, reason: 'would start now' };
    const blocked = result?.added.get(job.name);
    if (blocked?.reservation) {
      return { start: blocked.reservation.start, reason: `${blocked.base}; the policy would reserve this start for it` };
    }
    const base = blocked?.base ?? plan.reasons.get(job.name) ?? 'waiting for capacity';
    const ctx = result ? result.ctx : new PassContext(withJob, this.options, this.scorers);
    // Jobs ahead that are blocked without a reservation get one here, in queue order.
    let ahead = -Infinity;
    for (const q of result ? result.window : []) {
      if (q.job.name === job.name) break;
      const rest = q.tasks.length - (placedOf.get(q.job.name) ?? 0);
      if (rest <= 0) continue;
      const reserved = plan.reservations?.get(q.job.name);
      const start = reserved ?? reserveRest(ctx, q.job, rest)?.start ?? Infinity;
      if (start > ahead) ahead = start;
    }
    let start = earliestFor(ctx, job, job.replicas - placed);
    if (this.options.policy === 'fcfs' && ahead > start) start = ahead;
    if (start <= now) start = nextEnd(snapshot);
    if (start === Infinity) return { start: null, reason: `${base}; ${unreservableText(ctx)}` };
    const how = firstFit ? 'first-fit reserves nothing' : `not reserved under policy ${this.options.policy}`;
    return { start, reason: `${base}; ${how}` };
  }

  /** `fullWindow`: keep standing jobs in the returned window (estimate walks the jobs ahead). */
  private run(snapshot: Snapshot, resourcesChanged: boolean, fullWindow = false): PassResult {
    const pass = this.passes;
    const options = this.options;
    const fcfs = options.policy === 'fcfs';
    const limit = reservationLimit(options);
    const ctx = new PassContext(snapshot, options, this.scorers);
    const now = ctx.now;
    const placements: Placement[] = [];
    const reasons = new Map<string, string>();
    const reservations = new Map<string, number>();
    const added = new Map<string, Blocked>();
    const dropped: string[] = [];

    // Standing blocked jobs (only new jobs arrived): their reservations go back into the planner.
    // Only reserved ones are checked here; the rest are met (or not) while walking the queue.
    const droppedSet = new Set<string>();
    if (!resourcesChanged) {
      for (const [name, b] of this.reserved) {
        const r = b.reservation!;
        if (!snapshot.jobs.has(name) || r.start <= now || !holdReservation(ctx, r)) {
          dropped.push(name);
          droppedSet.add(name);
        } else {
          reservations.set(name, r.start);
        }
      }
    }
    const standingOf = (name: string): Blocked | undefined =>
      resourcesChanged || droppedSet.has(name) ? undefined : this.blocked.get(name);

    // The window: up to queueDepth jobs to consider, plus standing ones met on the way (fcfs
    // stops at the first; the others only skip them, so they are left out unless asked for).
    const queue = new JobQueue(snapshot);
    const skip = resourcesChanged || fcfs || fullWindow ? undefined : (name: string) => standingOf(name) !== undefined;
    const window: QueuedJob[] = [];
    let considered = 0;
    let beyond: QueuedJob | null = null;
    for (let q = queue.next(skip); q; q = queue.next(skip)) {
      if (!standingOf(q.job.name)) {
        if (considered >= options.queueDepth) {
          beyond = q;
          break;
        }
        considered++;
      }
      window.push(q);
    }

    // Reconsidering (resources changed): earlier reservations of window jobs hold their slots
    // until their own job is re-planned, so the jobs ahead plan around them.
    const held = new Map<string, HeldSpans>();
    // A job that arrived ahead of it in queue order since then (a deeper child, say) was not
    // accounted for, and the queue order wins: that reservation is re-planned without a hold.
    if (resourcesChanged) {
      let newestAhead = -Infinity;
      for (const q of window) {
        const before = this.blocked.get(q.job.name);
        const r = before?.reservation;
        if (r && r.start >= now && r.count === q.tasks.length && newestAhead <= before!.reservedPass) {
          const spans = holdReservation(ctx, r);
          if (spans) held.set(q.job.name, spans);
        }
        newestAhead = Math.max(newestAhead, before ? before.since : Infinity);
      }
    }

    const results: Array<{ q: QueuedJob; out: Outcome; quota: string | null }> = [];
    const deferred: QueuedJob[] = [];
    let stoppedBy: string | null = null;
    let stopAt = window.length;
    const settle = (q: QueuedJob, out: Outcome, quota: string | null): boolean => {
      results.push({ q, out, quota });
      if (out.placed >= q.tasks.length) return false;
      if (out.reservation) reservations.set(q.job.name, out.reservation.start);
      return true;
    };
    for (let i = 0; i < window.length; i++) {
      const q = window[i]!;
      const name = q.job.name;
      if (standingOf(name)) {
        if (fcfs) {
          stoppedBy = name;
          stopAt = i + 1;
          break;
        }
        continue;
      }
      const spans = held.get(name);
      if (spans) releaseSpans(ctx, spans);
      if (snapshot.quotas.has(q.job.user) && ctx.quota.overReason(q.job.user) !== null) {
        deferred.push(q);
        continue;
      }
      const out = allocateOrReserve(ctx, q, reservations.size < limit, placements);
      if (settle(q, out, null) && fcfs) {
        stoppedBy = name;
        stopAt = i + 1;
        break;
      }
    }
    // Over-quota users go behind everyone else and never reserve.
    let deferredDone = 0;
    if (stoppedBy === null) {
      for (const q of deferred) {
        deferredDone++;
        const quota = ctx.quota.overReason(q.job.user);
        const out = allocateOrReserve(ctx, q, false, placements);
        if (settle(q, out, quota) && fcfs) {
          stoppedBy = q.job.name;
          break;
        }
      }
    }

    // Reasons, on the free capacity left after this pass.
    const explainer = new Explainer(ctx);
    for (const { q, out, quota } of results) {
      const remaining = q.tasks.length - out.placed;
      if (remaining === 0) continue;
      let base = explainer.base(q.job, remaining) ?? explainer.held(reservations, q.job.name);
      if (quota) base = `${quota}; ${base}`;
      const since = this.blocked.get(q.job.name)?.since ?? pass;
      const b: Blocked = { base, reservation: out.reservation, note: out.unreservable ? unreservableText(ctx) : null, since, reservedPass: pass };
      added.set(q.job.name, b);
      reasons.set(q.job.name, render(b, now));
    }
    const behind = `waiting behind ${stoppedBy} (queue policy fcfs starts jobs strictly in order)`;
    // Standing jobs keep the reason they were given when they blocked (it names no relative
    // time, so it does not go stale); only fcfs's "waiting behind" is new.
    for (let i = stopAt; i < window.length; i++) {
      const q = window[i]!;
      if (!standingOf(q.job.name)) reasons.set(q.job.name, behind);
    }
    for (let i = deferredDone; i < deferred.length; i++) {
      const q = deferred[i]!;
      reasons.set(q.job.name, `${ctx.quota.overReason(q.job.user) ?? 'deferred'}; ${behind}`);
    }
    if (queue.complete) {
      const later = `waiting in queue: a pass considers the first ${options.queueDepth} jobs`;
      for (let q = beyond; q; q = queue.next()) {
        const b = standingOf(q.job.name);
        reasons.set(q.job.name, b ? render(b, now) : later);
      }
    }
    return { plan: { placements, reasons, reservations }, window, ctx, added, dropped };
  }
}
