/**
 * Victim selection (docs/priorities.md, "Preemption"): which running tasks to stop so that a
 * blocked job can start. A pure function of the preemptor, the running tasks and the time; the
 * controller stops what it answers, and the simulator asks the same function.
 *
 * Guarantees, for `chooseVictims(p, running, o)`:
 * - Only strictly lower bands: every victim's effective band is below the preemptor's; the same
 *   band is never stopped, and a `batch` preemptor stops nothing.
 * - Trees: no victim belongs to the preemptor's own job or one of its ancestors (a proper path
 *   prefix: `/a` is above `/a/b`, not above `/ab`), so a job never stops the parent waiting on it.
 * - Exempt: no victim started less than `exemptMs` before `now`.
 * - Gangs whole: victims come in units, a single task or every running task of one gang key; a
 *   unit with any ineligible member is ineligible as a whole, and a chosen unit's members are all
 *   victims. A unit frees capacity on every worker its members are on and counts as its tasks.
 * - Shape-aware: freed capacity counts only on the worker it is freed on, and only a candidate
 *   worker (`p.workers`; for a gang, one group of them) can host the preemptor, so a unit whose
 *   members run on no candidate worker is never chosen.
 * - Fits and minimal: with the victims' capacity freed, every one of `p.tasks` tasks fits (cpu,
 *   memory, device count; several per worker when there is room, one with `onePerWorker`; a gang
 *   within one group), and dropping any single unit makes it not fit. `workers[i]` is the worker
 *   of the i-th task, filling the scope's workers in their given order.
 * - Preference: the fewest victim tasks; then the lowest bands; then the least work lost (the most
 *   recently started); then the smallest (devices, cpu, memory); then task ids. Exact (the true
 *   optimum) when a scope holds at most EXACT_LIMIT (12) eligible units: every subset is tried by
 *   increasing victim count, stopping at the first count that fits, O(2^n x m) for n units of m
 *   members in all. Past that, greedy: units in preference order until it fits, then every unit
 *   that can be dropped is, O(u log u + m); still minimal, not always the fewest. A gang tries each
 *   group so and keeps the best by the same preference (the first group on a tie).
 * - Nothing is stopped (`kind: 'none'`, with the reason) when the job fits without victims, when it
 *   has no candidate worker, or when even every eligible unit together would not make it fit.
 * Same input, same answer; victims are sorted by task id.
 */
import { bandAbove, bandRank, type Band } from '../../../model/band.js';
import { isWithin } from '../../../model/names.js';
import { EXACT_LIMIT, exactSearch, greedySearch, plus, Room, ZERO, compareSets, type Amount } from './search.js';
import type { Unit, VictimSet } from './search.js';

export type { Amount } from './search.js';

export interface RunningTaskView {
  task: string;
  job: string;
  workerId: string;
  /** What it holds on workerId. */
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
  /** Effective band (a task borrowing beyond its user's quota is already 'batch' here). */
  band: Band;
  startedAt: number;
  /** Non-null: gang key; every running task with the same key is stopped together, or none is. */
  gang: string | null;
}

export interface PreemptorView {
  /** Canonical path, e.g. /train/eval (ancestors are path prefixes: /train). */
  job: string;
  band: Band;
  /** Per task. */
  need: Amount;
  /** Tasks still to place. */
  tasks: number;
  /** True: all `tasks` must go into ONE group at once. */
  gang: boolean;
  /**
   * Statically feasible workers (device type/variant, constraints, total capacity already
   * checked) with their free capacity now.
   */
  workers: ReadonlyArray<{ id: string; free: Amount }>;
  /**
   * Gang only: the candidate groups, each a list of worker ids from `workers` (one group = one
   * slice). Absent: all of `workers` is one group. An id not in `workers` cannot host a task.
   */
  groups?: ReadonlyArray<readonly string[]>;
  /** Gang only, optional: at most one task per worker (TPU hosts); default false. */
  onePerWorker?: boolean;
}

export interface VictimOptions {
  now: number;
  exemptMs: number;
}

export type VictimChoice =
  | {
      kind: 'preempt';
      /** Task ids, sorted. */
      victims: string[];
      /** The worker of each preemptor task: index i is the i-th task. */
      workers: string[];
    }
  | { kind: 'none'; reason: string };

/** Words for why units are not victims, in the order a reason lists them. */
const REFUSED_WORDS: Record<Ineligible, string> = {
  band: 'same or higher band',
  tree: 'its own job or an ancestor',
  exempt: 'started within the exempt time',
};
const WHY_ORDER: readonly Ineligible[] = ['band', 'tree', 'exempt'];

/** Why a task is not a victim: its band, its place in the preemptor's tree, its exempt time. */
export type Ineligible = 'band' | 'tree' | 'exempt';

/** Why a running task may not be stopped for `p`, or null when it may. */
export function ineligible(p: PreemptorView, t: RunningTaskView, o: VictimOptions): Ineligible | null {
  if (!bandAbove(p.band, t.band)) return 'band';
  if (isWithin(p.job, t.job)) return 'tree';
  if (o.now - t.startedAt < o.exemptMs) return 'exempt';
  return null;
}

/** The running tasks grouped into units (a task alone, or a whole gang), split by eligibility. */
function unitsOf(p: PreemptorView, running: readonly RunningTaskView[], o: VictimOptions, hosts: Set<string>) {
  const eligible: Unit[] = [];
  const refused: Array<{ unit: Unit; why: Ineligible }> = [];
  const take = (members: RunningTaskView[]): void => {
    // The reason named is the first in WHY_ORDER any member has, whatever the members' order.
    let why: Ineligible | null = null;
    for (const t of members) {
      const w = ineligible(p, t, o);
      if (w !== null && (why === null || WHY_ORDER.indexOf(w) < WHY_ORDER.indexOf(why))) why = w;
    }
    const unit = toUnit(members, o.now);
    if (why === null) eligible.push(unit);
    else refused.push({ unit, why });
  };
  const gangs = new Map<string, RunningTaskView[]>();
  for (const t of running) {
    if (t.gang === null) {
      // A lone task on a worker no scope holds frees nothing the preemptor can use.
      if (hosts.has(t.workerId)) take([t]);
      continue;
    }
    const list = gangs.get(t.gang);
    if (list) list.push(t);
    else gangs.set(t.gang, [t]);
  }
  for (const members of gangs.values()) take(members);
  return { eligible, refused };
}

function toUnit(members: RunningTaskView[], now: number): Unit {
  const freed: Array<readonly [string, Amount]> = [];
  let size = ZERO;
  let lost = 0;
  for (const t of members) {
    const held = { cpuMillis: t.cpuMillis, memoryBytes: t.memoryBytes, devices: t.devices };
    freed.push([t.workerId, held]);
    size = members.length === 1 ? held : plus(size, held);
    lost += now - t.startedAt;
  }
  const ids = members.map((t) => t.task);
  const ranks = members.map((t) => bandRank(t.band));
  if (members.length > 1) {
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    ranks.sort((a, b) => a - b);
  }
  return { ids, count: members.length, ranks, lost, size, freed };
}

/** The scopes a preemptor may use: its candidate workers, or each group of a gang. */
function scopesOf(p: PreemptorView): Array<Array<{ id: string; free: Amount }>> {
  const byId = new Map<string, { id: string; free: Amount }>();
  for (const w of p.workers) if (!byId.has(w.id)) byId.set(w.id, w);
  if (!p.gang || !p.groups) return [[...byId.values()]];
  return p.groups.map((g) => {
    const seen = new Set<string>();
    const hosts: Array<{ id: string; free: Amount }> = [];
    for (const id of g) {
      const w = byId.get(id);
      if (!w || seen.has(id)) continue;
      hosts.push(w);
      seen.add(id);
    }
    return hosts;
  });
}

function noneReason(p: PreemptorView, refused: Array<{ unit: Unit; why: Ineligible }>, rooms: Room[]): string {
  const where = p.gang ? 'in any group' : 'on a fitting worker';
  const counts = new Map<Ineligible, number>();
  for (const { unit, why } of refused) {
    if (rooms.some((r) => r.touches(unit))) counts.set(why, (counts.get(why) ?? 0) + unit.count);
  }
  const detail = WHY_ORDER.filter((why) => counts.has(why))
    .map((why) => `${counts.get(why)} ${REFUSED_WORDS[why]}`)
    .join(', ');
  return detail ? `no lower-band work to stop ${where} (${detail})` : `no lower-band work to stop ${where}`;
}

export function chooseVictims(p: PreemptorView, running: readonly RunningTaskView[], o: VictimOptions): VictimChoice {
  if (p.band === 'batch') return { kind: 'none', reason: 'batch never preempts' };
  const tasks = Math.max(0, p.tasks);
  const cap = p.gang && p.onePerWorker ? 1 : tasks;
  const rooms = scopesOf(p).map((hosts) => new Room(hosts, p.need, tasks, cap));
  if (rooms.some((r) => r.fits())) return { kind: 'none', reason: 'fits on free capacity now; nothing to stop' };
  if (rooms.every((r) => r.hosts.length === 0)) return { kind: 'none', reason: 'no candidate worker' };

  const hosts = new Set(rooms.flatMap((r) => r.hosts.map((h) => h.id)));
  const { eligible, refused } = unitsOf(p, running, o, hosts);
  let best: { set: VictimSet; room: Room } | null = null;
  let anyEligible = false;
  for (const room of rooms) {
    const units = eligible.filter((u) => room.touches(u));
    if (units.length === 0) continue;
    anyEligible = true;
    const set = units.length <= EXACT_LIMIT ? exactSearch(room, units) : greedySearch(room, units);
    if (set && (!best || compareSets(set, best.set) < 0)) best = { set, room };
  }
  if (!best) {
    if (!anyEligible) return { kind: 'none', reason: noneReason(p, refused, rooms) };
    const where = p.gang ? 'in any one group' : 'on the fitting workers';
    return { kind: 'none', reason: `stopping all lower-band work ${where} would still not make room` };
  }
  for (const u of best.set.units) best.room.add(u);
  const workers = best.room.assign();
  for (const u of best.set.units) best.room.remove(u);
  return { kind: 'preempt', victims: best.set.ids, workers };
}
