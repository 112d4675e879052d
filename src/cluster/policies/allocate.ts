/**
 * Allocate-or-reserve (seed 004, MATCH_ALLOCATE_ORELSE_RESERVE): ONE operation per job on the
 * pass's planner. It first starts what can start now — every task of a gang or none; for an
 * independent job each pending task that fits — on workers whose capacity is free now and stays
 * free for the job's duration around every span already planned (so no reservation is delayed).
 * If tasks remain and the policy allows, the same call reserves them at their earliest start by
 * adding spans to the same calendars. Allocations and reservations therefore live in one
 * structure and can never conflict.
 */
import type { Amounts, SpanId } from '../planner/index.js';
import { earliestGang, earliestIndependent } from '../planner/index.js';
import { staticKey } from '../scheduler/fit.js';
import type { Placement, SchedulerJob, SchedulerTask } from '../scheduler/types.js';
import { amountsOf, times, type PassContext } from './context.js';

export interface QueuedJob {
  job: SchedulerJob;
  /** Its pending tasks: queue order, or by index for a gang. */
  tasks: SchedulerTask[];
}

/** A job's reserved start: which workers hold how many of its tasks from `start` to `end`. */
export interface Reservation {
  job: string;
  start: number;
  end: number;
  /** Tasks covered (the job's pending tasks when reserved). */
  count: number;
  /** Amounts of one task. */
  req: Amounts;
  slots: ReadonlyArray<{ workerId: string; tasks: number }>;
}

/** Spans a reservation holds in this pass's calendars. */
export type HeldSpans = Array<{ w: number; id: SpanId }>;

export interface Outcome {
  /** Tasks placed now. */
  placed: number;
  /** The reservation made for the rest, or null. */
  reservation: Reservation | null;
  held: HeldSpans | null;
  /** A reservation was wanted but no finite start exists. */
  unreservable: boolean;
}

/** Add a reservation's spans to the calendars, or return null (nothing added) when it no longer fits. */
export function holdReservation(ctx: PassContext, r: Reservation): HeldSpans | null {
  const held: HeldSpans = [];
  const duration = r.end - r.start;
  for (const slot of r.slots) {
    const w = ctx.indexById.get(slot.workerId);
    const amounts = times(r.req, slot.tasks);
    if (w === undefined || !ctx.snapshot.workers[w]!.schedulable || !ctx.calendars[w]!.fits(r.start, duration, amounts)) {
      releaseSpans(ctx, held);
      return null;
    }
    held.push({ w, id: ctx.calendars[w]!.add(r.start, r.end, amounts) });
  }
  return held;
}

export function releaseSpans(ctx: PassContext, held: HeldSpans): void {
  for (const { w, id } of held) ctx.calendars[w]!.remove(id);
}

/** The earliest start of `count` tasks of `job` on the calendars as they stand, and its workers. */
export function earliestFor(ctx: PassContext, job: SchedulerJob, count: number): { start: number; workers: string[] } {
  const slots = ctx.slots(job);
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  return job.coschedule === null
    ? earliestIndependent(slots, ctx.now, duration, req, count)
    : earliestGang(slots, ctx.now, duration, req, count);
}

/**
 * A gang starts now on the first group (by value) with `count` members that have the capacity
 * free now and for the whole duration; members in group order (task k on the k-th). Unlike
 * first-fit, two gangs may share a worker in one pass when its capacity allows: the planner,
 * which reserves on the same terms, must agree with what can start.
 */
function startGang(ctx: PassContext, q: QueuedJob, placements: Placement[]): number {
  const { job, tasks } = q;
  const count = tasks.length;
  const { scratch, calendars, now } = ctx;
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  const { isMember } = ctx.candidates.of(job, staticKey(job));
  let chosen: number[] | null = null;
  for (const group of ctx.gangs.groups(job.coschedule!)) {
    if (group.members.length < count) continue;
    const picked: number[] = [];
    for (const w of group.members) {
      if (isMember[w] && scratch.fits(w, job.resources) && calendars[w]!.fits(now, duration, req)) {
        picked.push(w);
        if (picked.length === count) break;
      }
    }
    if (picked.length === count) {
      chosen = picked;
      break;
    }
  }
  if (!chosen) return 0;
  chosen.forEach((w, k) => {
    const deviceIndices = scratch.consume(w, job.resources);
    calendars[w]!.add(now, now + duration, req);
    placements.push({ task: tasks[k]!.id, job: job.name, workerId: scratch.workers[w]!.id, deviceIndices });
    ctx.quota.add(job.user, job.resources);
  });
  return count;
}

function startIndependent(ctx: PassContext, q: QueuedJob, placements: Placement[]): number {
  const { job, tasks } = q;
  const { scratch, calendars, now } = ctx;
  const res = job.resources;
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  const pool = ctx.candidates.poolOf(job, staticKey(job));
  let placed = 0;
  // Free capacity and calendars only shrink while this job is placed, so a worker that failed
  // either check never fits a later task of the job: resume after it.
  let from = 0;
  while (placed < tasks.length) {
    const position = pool.findFirst(res.cpuMillis, res.memoryBytes, req.devices, from);
    if (position < 0) break;
    const w = pool.members[position]!;
    if (!calendars[w]!.fits(now, duration, req)) {
      from = position + 1;
      continue;
    }
    from = position;
    const deviceIndices = scratch.consume(w, res);
    calendars[w]!.add(now, now + duration, req);
    placements.push({ task: tasks[placed]!.id, job: job.name, workerId: scratch.workers[w]!.id, deviceIndices });
    ctx.quota.add(job.user, res);
    placed++;
  }
  return placed;
}

/**
 * Start what of `q` can start now; if tasks remain and `reserve` is set, reserve them at their
 * earliest start (all remaining tasks together; a gang's on one group).
 */
export function allocateOrReserve(ctx: PassContext, q: QueuedJob, reserve: boolean, placements: Placement[]): Outcome {
  const { job } = q;
  const placed = job.coschedule === null ? startIndependent(ctx, q, placements) : startGang(ctx, q, placements);
  const remaining = q.tasks.length - placed;
  if (remaining === 0 || !reserve) return { placed, reservation: null, held: null, unreservable: false };
  const plan = earliestFor(ctx, job, remaining);
  if (plan.start === Infinity) return { placed, reservation: null, held: null, unreservable: true };
  const perWorker = new Map<string, number>();
  for (const id of plan.workers) perWorker.set(id, (perWorker.get(id) ?? 0) + 1);
  const duration = ctx.duration(job);
  const reservation: Reservation = {
    job: job.name,
    start: plan.start,
    end: plan.start + duration,
    count: remaining,
    req: amountsOf(job),
    slots: [...perWorker].map(([workerId, tasks]) => ({ workerId, tasks })),
  };
  const held = holdReservation(ctx, reservation);
  // The planner just found these spans free; failing here would be a planner bug.
  if (!held) throw new Error(`planner: reservation for ${job.name} at ${plan.start} does not fit`);
  return { placed, reservation, held, unreservable: false };
}
