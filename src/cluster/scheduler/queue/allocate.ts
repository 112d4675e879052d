/**
 * Allocate-or-reserve (docs/architecture.md, "Queue policies"): ONE operation per job on the
 * pass's planner. It first starts what can start now — every task of a gang or none; for an
 * independent job each pending task that fits — on workers whose capacity is free now and stays
 * free for the job's duration around every span already planned (so no reservation is delayed).
 * If tasks remain and the policy allows, the same call reserves them at their earliest start by
 * adding spans to the same calendars. Allocations and reservations therefore live in one
 * structure and can never conflict. A job a baseline placement mode holds back (baselines.ts) is
 * not reserved.
 */
import type { Amounts, WorkerSlot } from '../planner/index.js';
import { earliestGang } from '../planner/index.js';
import { staticKey } from '../placement/fit.js';
import { pickMembers } from '../placement/gang.js';
import type { Placement, SchedulerJob, SchedulerTask } from '../types.js';
import { amountsOf, times, type PassContext } from './context.js';

export interface QueuedJob {
  job: SchedulerJob;
  /** Its pending tasks: queue order, or by index for a gang. */
  tasks: SchedulerTask[];
}

/**
 * A job's reservation: which workers hold how many of its tasks from when. A gang's parts all
 * start together; an independent job's tasks are reserved each at its own earliest start.
 *
 * The parts are packed, four numbers each (PART), with no object per part: a job's reservation
 * is made again at every pass and kept until the next one, so it outlives the young generation.
 * A part is `width` tasks side by side, run `repeats` times back to back: one span of width x req
 * over [start, start + repeats x duration). Once nothing but the reservation itself changes the
 * free amounts, an independent job's tasks follow each other in the same lanes (reserveIndependent),
 * so a job of 2,000 pending tasks on 16 lanes takes ~16 parts at its tail instead of ~2,000
 * (docs/benchmarks.md, "Memory").
 */
export interface Reservation {
  job: string;
  /** When the first reserved task starts (what is reported as the job's reserved start). */
  start: number;
  duration: number;
  /** Tasks covered (the job's pending tasks when reserved). */
  count: number;
  /** Amounts of one task. */
  req: Amounts;
  /** The worker ids the parts name, each once. */
  workers: readonly string[];
  /**
   * Per part `k`: [4k] an index into `workers`, [4k+1] its start, [4k+2] its width (tasks that
   * start together), [4k+3] its repeats (how many times they run back to back).
   */
  parts: readonly number[];
}

/** Numbers per reservation part (Reservation.parts). */
export const PART = 4;

/** Spans a reservation holds in this pass's calendars: pairs of numbers, worker index then span id. */
export type HeldSpans = number[];

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
  const at = r.workers.map((id) => ctx.indexById.get(id));
  const { parts } = r;
  for (let k = 0; k < parts.length; k += PART) {
    const w = at[parts[k]!];
    const start = parts[k + 1]!;
    const amounts = times(r.req, parts[k + 2]!);
    const length = r.duration * parts[k + 3]!;
    if (w === undefined || !ctx.snapshot.workers[w]!.schedulable || !ctx.calendars[w]!.fits(start, length, amounts)) {
      releaseSpans(ctx, held);
      return null;
    }
    held.push(w, ctx.calendars[w]!.add(start, start + length, amounts));
  }
  return held;
}

export function releaseSpans(ctx: PassContext, held: HeldSpans): void {
  for (let i = 0; i < held.length; i += 2) ctx.calendars[held[i]!]!.remove(held[i + 1]!);
  if (held.length > 0) ctx.starts.freed();
}

/** The parts of a reservation being made (Reservation's `workers` and `parts`). */
interface Parts {
  workers: string[];
  parts: number[];
}

/**
 * Reserve `count` independent tasks, each at its earliest start: find the earliest time t at
 * which some worker takes one more task, put as many tasks at t as fit (workers in order), and
 * repeat from t. The spans are added as it goes (and returned); every round places at least one
 * task, so this ends. Returns null, with nothing added, when some task can never start.
 *
 * The tail in closed form: from `settled` on (the last time anything already in the slots'
 * calendars changes the free amounts), a worker takes one more task at t exactly when fewer of
 * this job's reserved tasks run there at t than fit in its constant free amounts (the tasks
 * reserved so far all start by t, so their count only falls after t). The first round at or after
 * `settled` fills every worker; from then on each task that ends is followed at once by another in
 * its place, so the rest repeat the tasks running at that round, one duration apart, lane by lane
 * (repeatLanes). This gives the tasks, starts and free amounts the round-by-round loop would,
 * with one span per lane instead of one per task.
 */
function reserveIndependent(
  ctx: PassContext,
  job: SchedulerJob,
  count: number,
): { found: Parts; held: HeldSpans } | null {
  const slots = ctx.slots(job);
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  const found: Parts = { workers: [], parts: [] };
  const { parts } = found;
  /** Slot index -> its index in found.workers, once it holds a part; and back. */
  const named = new Map<number, number>();
  const slotOf: number[] = [];
  const held: HeldSpans = [];
  // Whole milliseconds only, so that start + k x duration is exact (what adding it k times gives).
  let settled = Infinity;
  if (Number.isSafeInteger(duration) && duration > 0) {
    settled = -Infinity;
    for (const slot of slots) settled = Math.max(settled, slot.calendar.lastChange());
  }
  let left = count;
  let t = ctx.now;
  while (left > 0) {
    let next = Infinity;
    // The first slot with the earliest start: slots before it do not fit at `next`, and it
    // fits one task there (earliest() answered so), so neither is asked fits() again.
    let first = -1;
    for (let i = 0; i < slots.length; i++) {
      const e = slots[i]!.calendar.earliest(t, duration, req);
      if (e < next) {
        next = e;
        first = i;
      }
    }
    if (next === Infinity) {
      releaseSpans(ctx, held);
      return null;
    }
    t = next;
    for (let i = first; i < slots.length; i++) {
      const slot = slots[i]!;
      let tasks = 0;
      while (tasks < left && ((i === first && tasks === 0) || slot.calendar.fits(t, duration, req))) {
        held.push(ctx.indexById.get(slot.id)!, slot.calendar.add(t, t + duration, req));
        tasks++;
      }
      if (tasks > 0) {
        let at = named.get(i);
        if (at === undefined) {
          named.set(i, (at = found.workers.push(slot.id) - 1));
          slotOf.push(i);
        }
        parts.push(at, t, tasks, 1);
        left -= tasks;
        if (left === 0) break;
      }
    }
    if (left > 0 && t >= settled && Number.isSafeInteger(t)) {
      repeatLanes(ctx, slots, slotOf, t, duration, req, left, found, held);
      left = 0;
    }
  }
  return { found, held };
}

/**
 * The rest of reserveIndependent from the round at `t` on (t >= settled, every worker full): the
 * parts running at t (started after t - duration) are the lanes; the `left` tasks follow them one
 * duration apart, in the order the loop would reach them (by lane end, then worker order), so
 * every lane runs `left / lanes` more and the first lanes in that order one more.
 */
function repeatLanes(
  ctx: PassContext,
  slots: readonly WorkerSlot[],
  slotOf: readonly number[],
  t: number,
  duration: number,
  req: Amounts,
  left: number,
  found: Parts,
  held: HeldSpans,
): void {
  const { parts } = found;
  const lanes: Array<{ at: number; end: number; width: number }> = [];
  let count = 0;
  for (let k = parts.length - PART; k >= 0 && parts[k + 1]! > t - duration; k -= PART) {
    lanes.push({ at: parts[k]!, end: parts[k + 1]! + duration, width: parts[k + 2]! });
    count += parts[k + 2]!;
  }
  lanes.sort((a, b) => a.end - b.end || slotOf[a.at]! - slotOf[b.at]!);
  const rounds = Math.floor(left / count);
  let extra = left - rounds * count;
  const chain = (at: number, start: number, width: number, repeats: number): void => {
    const slot = slots[slotOf[at]!]!;
    parts.push(at, start, width, repeats);
    held.push(ctx.indexById.get(slot.id)!, slot.calendar.add(start, start + repeats * duration, times(req, width)));
  };
  for (const lane of lanes) {
    const more = Math.min(lane.width, extra);
    extra -= more;
    if (more > 0) chain(lane.at, lane.end, more, rounds + 1);
    if (lane.width > more && rounds > 0) chain(lane.at, lane.end, lane.width - more, rounds);
  }
}

/** Reserve all `count` tasks of a gang together on one group at its earliest start. */
function reserveGang(ctx: PassContext, job: SchedulerJob, count: number): { found: Parts; held: HeldSpans } | null {
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  const plan = earliestGang(ctx.slots(job), ctx.now, duration, req, count);
  if (plan.start === Infinity) return null;
  const found: Parts = { workers: [...plan.workers], parts: [] };
  const held: HeldSpans = [];
  plan.workers.forEach((workerId, k) => {
    found.parts.push(k, plan.start, 1, 1);
    const w = ctx.indexById.get(workerId)!;
    held.push(w, ctx.calendars[w]!.add(plan.start, plan.start + duration, req));
  });
  return { found, held };
}

/**
 * The earliest start of `count` more tasks of `job` on the calendars as they stand (the first
 * task's start for an independent job), or Infinity. The calendars are left unchanged.
 */
export function earliestFor(ctx: PassContext, job: SchedulerJob, count: number): number {
  const found = reserveRest(ctx, job, count);
  if (!found) return Infinity;
  releaseSpans(ctx, found.held);
  return found.start;
}

/** Reserve `count` more tasks of `job` (spans added and returned), or null when some never fit. */
export function reserveRest(
  ctx: PassContext,
  job: SchedulerJob,
  count: number,
): { start: number; found: Parts; held: HeldSpans } | null {
  const made = job.coschedule === null ? reserveIndependent(ctx, job, count) : reserveGang(ctx, job, count);
  if (!made) return null;
  let start = Infinity;
  const { parts } = made.found;
  for (let k = 1; k < parts.length; k += PART) if (parts[k]! < start) start = parts[k]!;
  return { start, found: made.found, held: made.held };
}

/**
 * A gang starts now on the first group (by value) whose members for it (placement/gang.ts
 * `pickMembers`: hosts 0..count-1 of a TPU slice, task k on host k) have the capacity free now
 * and for the whole duration. Unlike first-fit, two gangs may share a worker in one pass when its
 * capacity allows: the planner, which reserves on the same terms, must agree with what can start.
 */
function startGang(ctx: PassContext, q: QueuedJob, placements: Placement[]): number {
  const { job, tasks } = q;
  const count = tasks.length;
  const { scratch, calendars, now } = ctx;
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  const { isMember } = ctx.candidates.of(job, staticKey(job));
  const fits = (w: number): boolean =>
    !!isMember[w] && scratch.fits(w, job.resources) && calendars[w]!.fits(now, duration, req);
  for (const group of ctx.gangs.groups(job.coschedule!)) {
    const chosen = pickMembers(group, count, fits);
    if (!chosen) continue;
    chosen.forEach((w, k) => placeAt(ctx, q, k, w, duration, req, placements));
    return count;
  }
  return 0;
}

function startIndependent(ctx: PassContext, q: QueuedJob, placements: Placement[], limit = q.tasks.length): number {
  const { job } = q;
  const tasks = limit < q.tasks.length ? q.tasks.slice(0, limit) : q.tasks;
  const { scratch, calendars, now } = ctx;
  const res = job.resources;
  const duration = ctx.duration(job);
  const req = amountsOf(job);
  let placed = 0;
  const selector = ctx.selector;
  if (selector) {
    // Scored placement (placement/scoring.ts): the best worker that has the room now and for the duration.
    // The candidates in snapshot order (the first-fit pool below is not needed for this).
    const { members } = ctx.candidates.of(job, staticKey(job));
    const feasible = (w: number): boolean => scratch.fits(w, res) && calendars[w]!.fits(now, duration, req);
    while (placed < tasks.length) {
      const w = selector.select(job, tasks[placed]!, members, feasible);
      if (w < 0) break;
      const decision = selector.decision;
      placeAt(ctx, q, placed++, w, duration, req, placements);
      selector.placed(job, w);
      if (decision) placements[placements.length - 1]!.decision = decision;
    }
    return placed;
  }
  // Free capacity and calendars only shrink while this job is placed, so a worker that failed
  // either check never fits a later task of the job: resume after it.
  const pool = ctx.candidates.poolOf(job, staticKey(job));
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
    placeAt(ctx, q, placed++, w, duration, req, placements);
  }
  return placed;
}

/** Start task `k` of `q` on worker `w` now: take the capacity, hold it in the calendar, record it. */
function placeAt(
  ctx: PassContext,
  q: QueuedJob,
  k: number,
  w: number,
  duration: number,
  req: Amounts,
  placements: Placement[],
): void {
  const { job, tasks } = q;
  const res = job.resources;
  const now = ctx.now;
  const deviceIndices = ctx.scratch.consume(w, res);
  ctx.calendars[w]!.add(now, now + duration, req);
  placements.push({ task: tasks[k]!.id, job: job.name, workerId: ctx.scratch.workers[w]!.id, deviceIndices });
  ctx.quota.add(job.user, res);
}

/**
 * Start what of `q` can start now, at most `limit` tasks (a hard quota's room: pass.ts); if tasks
 * remain and `reserve` is set, reserve them at their earliest start (all remaining tasks together;
 * a gang's on one group).
 */
export function allocateOrReserve(
  ctx: PassContext,
  q: QueuedJob,
  reserve: boolean,
  placements: Placement[],
  limit = q.tasks.length,
): Outcome {
  const placed =
    q.job.coschedule === null ? startIndependent(ctx, q, placements, limit) : startGang(ctx, q, placements);
  return reserveRemaining(ctx, q, placed, reserve);
}

/** The rest of allocateOrReserve once `placed` tasks of `q` started: reserve the others when allowed. */
function reserveRemaining(ctx: PassContext, q: QueuedJob, placed: number, reserve: boolean): Outcome {
  const { job } = q;
  const remaining = q.tasks.length - placed;
  // A job a baseline mode holds back (bound to a busy worker) is not reserved: the planner knows
  // nothing of bindings, and would hold capacity on workers the job may not use.
  const heldBack = remaining > 0 && ctx.selector?.reasonFor?.(job.name) != null;
  if (remaining === 0 || !reserve || heldBack) return { placed, reservation: null, held: null, unreservable: false };
  const found = reserveRest(ctx, job, remaining);
  if (!found) return { placed, reservation: null, held: null, unreservable: true };
  const reservation: Reservation = {
    job: job.name,
    start: found.start,
    duration: ctx.duration(job),
    count: remaining,
    req: amountsOf(job),
    workers: found.found.workers,
    parts: found.found.parts,
  };
  return { placed, reservation, held: found.held, unreservable: false };
}

/**
 * allocateOrReserve for a job that holds the spans `held` of its reservation `old` from an
 * earlier pass (pass.ts, holdEarlierReservations): the same outcome as releasing them first and
 * calling allocateOrReserve. For a one-task independent job the spans are suspended instead
 * (planner/calendar.ts: the answers are those without them); when the job would be reserved
 * again exactly where it was (same worker, same start; a reservation only ever moves earlier),
 * the spans are resumed and `old` kept, instead of removing the spans and entering equal ones.
 */
export function replanHeld(
  ctx: PassContext,
  q: QueuedJob,
  reserve: boolean,
  placements: Placement[],
  old: Reservation,
  held: HeldSpans,
): Outcome {
  const { job } = q;
  // One part (PART numbers) of one task, held by one span (two numbers).
  const { parts } = old;
  if (
    job.coschedule !== null ||
    q.tasks.length !== 1 ||
    old.count !== 1 ||
    parts.length !== PART ||
    parts[2] !== 1 ||
    parts[3] !== 1 ||
    held.length !== 2
  ) {
    releaseSpans(ctx, held);
    return allocateOrReserve(ctx, q, reserve, placements);
  }
  const partWorker = old.workers[parts[0]!];
  const partStart = parts[1]!;
  const w = held[0]!;
  const id = held[1]!;
  const calendar = ctx.calendars[w]!;
  calendar.suspend(id);
  const placed = startIndependent(ctx, q, placements);
  if (placed === 0 && reserve && ctx.selector?.reasonFor?.(job.name) == null) {
    // What reserveIndependent would choose for one task: the first slot with the earliest start.
    const duration = ctx.duration(job);
    const req = amountsOf(job);
    const slots = ctx.slots(job);
    let next = Infinity;
    let first = -1;
    for (let i = 0; i < slots.length; i++) {
      const e = slots[i]!.calendar.earliest(ctx.now, duration, req);
      if (e < next) {
        next = e;
        first = i;
      }
    }
    const same =
      first >= 0 && next === partStart && slots[first]!.id === partWorker && slots[first]!.calendar === calendar;
    if (same && duration === old.duration && sameAmounts(req, old.req)) {
      calendar.resume(id);
      return { placed: 0, reservation: old, held, unreservable: false };
    }
  }
  calendar.remove(id);
  ctx.starts.freed();
  return reserveRemaining(ctx, q, placed, reserve);
}

function sameAmounts(a: Amounts, b: Amounts): boolean {
  return a.cpuMillis === b.cpuMillis && a.memoryBytes === b.memoryBytes && a.devices === b.devices;
}
