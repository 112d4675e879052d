/**
 * Job-level planning over many workers' calendars: the earliest time all of a job's tasks can
 * start, either as independent tasks (each on some worker, several per worker when it has
 * room) or as a gang (N distinct workers of one co-scheduling group, one task each).
 *
 * Simplification: the tasks of one job start together at one time t, even for independent
 * tasks; a plan where some tasks start earlier than others is not searched. Every task asks
 * for the same amounts for the same duration, so "how many tasks fit on worker w at t" is a
 * per-worker count and greedy first-fit in worker order places the most tasks.
 *
 * Calendars are only changed tentatively and every tentative span is removed before return.
 */
import type { Amounts, WorkerCalendar } from './multi.js';

export interface WorkerSlot {
  id: string;
  calendar: WorkerCalendar;
  /** The worker's value of the job's co-scheduling attribute (null or absent: the null group). */
  group?: string | null;
}

export interface IndependentPlan {
  start: number;
  workers: string[];
}

export interface GangPlan {
  start: number;
  workers: string[];
  group: string | null;
}

/**
 * Earliest time t >= from at which `count` copies of `req` fit for `duration` across the given
 * workers (several per worker allowed). Returns the chosen worker per task, or start Infinity.
 *
 * Search: at t place as many copies as fit (tentatively). If that is short of count, no time in
 * (t, t') can do better, where t' is the earliest any worker takes one more copy with the
 * tentative copies still in place. The count only grows where a real span ends, so continue
 * from the first change point of any calendar at or after t' (none left: never).
 */
export function earliestIndependent(
  workers: readonly WorkerSlot[],
  from: number,
  duration: number,
  req: Amounts,
  count: number,
): IndependentPlan {
  if (count <= 0) return { start: from, workers: [] };
  let t = from;
  for (;;) {
    const placed: string[] = [];
    const undo: Array<{ cal: WorkerCalendar; id: number }> = [];
    let next = Infinity;
    try {
      for (const w of workers) {
        while (placed.length < count && w.calendar.fits(t, duration, req)) {
          undo.push({ cal: w.calendar, id: w.calendar.add(t, t + duration, req) });
          placed.push(w.id);
        }
        if (placed.length >= count) break;
      }
      if (placed.length < count) {
        for (const w of workers) {
          const e = w.calendar.earliest(t, duration, req);
          if (e < next) next = e;
        }
      }
    } finally {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!.cal.remove(undo[i]!.id);
    }
    if (placed.length >= count) return { start: t, workers: placed };
    if (next !== Infinity) {
      let change = Infinity;
      for (const w of workers) change = Math.min(change, w.calendar.nextChange(next));
      next = change;
    }
    if (next === Infinity) return { start: Infinity, workers: [] };
    t = next;
  }
}

/**
 * Earliest time t >= from at which `count` workers of one group each fit one copy of `req` for
 * `duration`. Workers are taken in the given order within a group (order them by
 * `tpu-worker-id` first when that matters); ties between groups go to the group seen first.
 */
export function earliestGang(
  workers: readonly WorkerSlot[],
  from: number,
  duration: number,
  req: Amounts,
  count: number,
): GangPlan {
  if (count <= 0) return { start: from, workers: [], group: null };
  const groups = new Map<string | null, WorkerSlot[]>();
  for (const w of workers) {
    const key = w.group ?? null;
    let list = groups.get(key);
    if (list === undefined) groups.set(key, (list = []));
    list.push(w);
  }
  let best: GangPlan = { start: Infinity, workers: [], group: null };
  for (const [group, members] of groups) {
    if (members.length < count) continue;
    const plan = earliestInGroup(members, from, duration, req, count, best.start);
    if (plan !== null && plan.start < best.start) best = { ...plan, group };
  }
  return best;
}

/** The group's earliest start, or null when it is not before `limit`. */
function earliestInGroup(
  members: readonly WorkerSlot[],
  from: number,
  duration: number,
  req: Amounts,
  count: number,
  limit: number,
): IndependentPlan | null {
  const starts = new Array<number>(members.length);
  let t = from;
  for (;;) {
    // The count-th smallest individual earliest start is a lower bound for the gang's start.
    for (let i = 0; i < members.length; i++) starts[i] = members[i]!.calendar.earliest(t, duration, req);
    const bound = [...starts].sort((a, b) => a - b)[count - 1]!;
    if (bound === Infinity || bound >= limit) return null;
    if (bound === t) {
      const chosen: string[] = [];
      for (let i = 0; i < members.length && chosen.length < count; i++) {
        if (starts[i] === t) chosen.push(members[i]!.id);
      }
      return { start: t, workers: chosen };
    }
    t = bound;
  }
}
