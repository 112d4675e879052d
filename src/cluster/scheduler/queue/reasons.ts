/**
 * Pending reasons under queue policies: the scheduler's own reason (explain.ts: the first filter
 * that leaves no worker) plus what the policy did — the reserved start, why none could be
 * reserved, or that the job would delay someone's reservation. Times are on the snapshot's clock;
 * a reason carries an instant as data (model/reason-instants.ts: `<t:N>`), never as text in a
 * time style: the scheduler knows no time zone, the reader renders it in its own.
 */
import { instantMark } from '../../../model/reason-instants.js';
import { explainJob } from '../placement/explain.js';
import { shapeKey } from '../placement/fit.js';
import type { SchedulerJob } from '../types.js';
import type { PassContext } from './context.js';

/**
 * The start as an instant placeholder, or `now`. No relative time: a reason is stored and read
 * long after the pass that wrote it (`iris queue` shows the time left from the reserved start itself).
 */
export function formatStart(start: number, now: number): string {
  return start <= now ? 'now' : instantMark(start);
}

export function reservedSuffix(start: number, now: number): string {
  return `reserved to start at ${formatStart(start, now)}`;
}

export function unreservableText(ctx: PassContext): string {
  return ctx.unboundedHolds
    ? 'no start can be reserved: the capacity it needs is held by tasks with no time limit'
    : 'no start can be reserved on the current workers';
}

/** Memoized explain.ts reasons for one pass, on the free capacity left after the pass. */
export class Explainer {
  private readonly memo = new Map<string, string | null>();

  constructor(private readonly ctx: PassContext) {}

  /** The scheduler's reason for `count` tasks of `job`, or null when free capacity alone would fit. */
  base(job: SchedulerJob, count: number): string | null {
    const size = job.coschedule !== null ? count : 1;
    // An independent job's key is its shape key as it is (memoized per job: no new string per job).
    const key = job.coschedule === null ? shapeKey(job) : `${shapeKey(job)}@${job.coschedule}@${size}`;
    if (this.memo.has(key)) return this.memo.get(key)!;
    const scratch = this.ctx.scratch;
    const reason = explainJob(job, size, {
      workers: this.ctx.snapshot.workers,
      free: (w) => scratch.free(w),
      gangTaken: scratch.gangTaken,
    });
    this.memo.set(key, reason);
    return reason;
  }

  /** A reason for a job that free capacity could take now but the planner refused: it would delay reservations. */
  held(reservations: ReadonlyMap<string, number>, except: string): string {
    let first: string | null = null;
    let count = 0;
    for (const [name, start] of reservations) {
      if (name === except) continue;
      count++;
      if (first === null) first = `${name} at ${formatStart(start, this.ctx.now)}`;
    }
    for (const [name, other] of this.ctx.snapshot.otherReservations ?? []) {
      count++;
      if (first === null) first = `${name} (queue ${other.queue}) at ${formatStart(other.start, this.ctx.now)}`;
    }
    if (count === 0) return 'the free capacity is planned for other work';
    if (count === 1) return `starting now would delay the reservation of ${first}`;
    return `starting now would delay reservations of ${count} earlier jobs (first: ${first})`;
  }
}
