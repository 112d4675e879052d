/**
 * Job-level planning over many workers' calendars: the earliest time a gang's tasks can all
 * start together (N distinct workers of one co-scheduling group, one task each). In a group whose
 * slots carry `host` (TPU hosts, placement/gang.ts) task k can only run on host k, so the gang
 * waits for hosts 0..N-1 of a group and never takes a later host in place of a busy one.
 * Independent tasks are reserved one earliest start at a time by the queue (queue/allocate.ts).
 *
 * Calendars are only changed tentatively and every tentative span is removed before return.
 */
import type { Amounts, WorkerCalendar } from './multi.js';

export interface WorkerSlot {
  id: string;
  calendar: WorkerCalendar;
  /** The worker's value of the job's co-scheduling attribute (null or absent: the null group). */
  group?: string | null;
  /**
   * Its index in a host-ordered group (placement/gang.ts `hostOrdered`): a gang's task k runs on
   * host k only. Absent: any `count` members of the group will do.
   */
  host?: number;
}

export interface GangPlan {
  start: number;
  workers: string[];
  group: string | null;
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
    // In a host-ordered group only hosts 0..count-1 may take the gang: plan over exactly those.
    const pool = members[0]!.host === undefined ? members : firstHosts(members, count);
    const plan = pool === null ? null : earliestInGroup(pool, from, duration, req, count, best.start);
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
): { start: number; workers: string[] } | null {
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

/**
 * Hosts 0..count-1 of a host-ordered group, in host order, or null when one of them is not among
 * `members` (no candidate for the job). With exactly `count` members, earliestInGroup's
 * count-th smallest start is the latest of them: all hosts must agree, and task k gets host k.
 */
function firstHosts(members: readonly WorkerSlot[], count: number): WorkerSlot[] | null {
  const hosts = new Array<WorkerSlot>(count);
  for (const m of members) if (m.host !== undefined && m.host < count) hosts[m.host] = m;
  for (let k = 0; k < count; k++) if (hosts[k] === undefined) return null;
  return hosts;
}
