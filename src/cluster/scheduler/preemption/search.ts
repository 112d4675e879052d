/**
 * The search behind chooseVictims (victims.ts): within one scope (the candidate workers of an
 * independent job, or one group of a gang), which set of victim units makes the preemptor fit,
 * best by the preference order.
 *
 * Guarantees:
 * - `Room` counts the preemptor's tasks a scope can take: per worker, the tasks whose cpu, memory
 *   and device count fit its free capacity plus what the chosen units free there (at most one
 *   with `onePerWorker`); freed capacity counts only on the worker it is freed on, and only on
 *   the scope's workers. Adding capacity never lowers the count (fit is monotone in the set).
 * - `exactSearch` (n units, n <= EXACT_LIMIT) returns a fitting set with the fewest victim tasks
 *   and, among those, the best by `compareSets`; null when even every unit together does not fit.
 * - `greedySearch` takes units in preference order until the scope fits, then drops every unit
 *   it can, least preferred first; the result is minimal (dropping any one unit makes it not fit)
 *   because fit is monotone: a unit that could not be dropped from a larger set cannot be dropped
 *   from a smaller one. Null when every unit together does not fit.
 */
import type { CapacityAmount } from '../types.js';

/** Capacity on one worker: what a task needs or holds, or what a worker has free (the scheduler's CapacityAmount). */
export type Amount = CapacityAmount;

/** Up to this many eligible units in a scope, the fewest victims are found exactly (2^n subsets). */
export const EXACT_LIMIT = 12;

/** A unit of victims: one task, or every running task of one gang. */
export interface Unit {
  /** The members' task ids, sorted. */
  ids: string[];
  /** Number of tasks (all members, wherever they run). */
  count: number;
  /** The members' band ranks, highest band (smallest rank) first. */
  ranks: number[];
  /** Sum over members of (now - startedAt): the work lost by stopping them. */
  lost: number;
  /** Sum of what the members hold. */
  size: Amount;
  /** What each member frees, as [worker id, amount] (a worker may appear more than once). */
  freed: ReadonlyArray<readonly [string, Amount]>;
}

export const ZERO: Amount = { cpuMillis: 0, memoryBytes: 0, devices: 0 };

export const plus = (a: Amount, b: Amount): Amount => ({
  cpuMillis: a.cpuMillis + b.cpuMillis,
  memoryBytes: a.memoryBytes + b.memoryBytes,
  devices: a.devices + b.devices,
});

/** Tasks of `need` that fit in `room`, capped at `cap`. */
export function tasksIn(room: Amount, need: Amount, cap: number): number {
  let n = cap;
  if (need.cpuMillis > 0) n = Math.min(n, Math.floor(room.cpuMillis / need.cpuMillis));
  if (need.memoryBytes > 0) n = Math.min(n, Math.floor(room.memoryBytes / need.memoryBytes));
  if (need.devices > 0) n = Math.min(n, Math.floor(room.devices / need.devices));
  return Math.max(0, n);
}

/** The preemptor's tasks one scope can take as units are added and removed. */
export class Room {
  private readonly index = new Map<string, number>();
  private readonly extra: Amount[];
  private readonly slots: number[];
  private sum = 0;

  constructor(
    readonly hosts: ReadonlyArray<{ id: string; free: Amount }>,
    private readonly need: Amount,
    readonly tasks: number,
    private readonly cap: number,
  ) {
    hosts.forEach((h, i) => this.index.set(h.id, i));
    this.extra = hosts.map(() => ZERO);
    this.slots = hosts.map((h) => tasksIn(h.free, need, cap));
    for (const s of this.slots) this.sum += s;
  }

  /** True when the unit frees anything on a worker of this scope. */
  touches(unit: Unit): boolean {
    for (const [id] of unit.freed) if (this.index.has(id)) return true;
    return false;
  }

  add(unit: Unit, sign = 1): void {
    for (const [id, amount] of unit.freed) {
      const i = this.index.get(id);
      if (i === undefined) continue;
      const e = this.extra[i]!;
      this.extra[i] = {
        cpuMillis: e.cpuMillis + sign * amount.cpuMillis,
        memoryBytes: e.memoryBytes + sign * amount.memoryBytes,
        devices: e.devices + sign * amount.devices,
      };
      const now = tasksIn(plus(this.hosts[i]!.free, this.extra[i]!), this.need, this.cap);
      this.sum += now - this.slots[i]!;
      this.slots[i] = now;
    }
  }

  remove(unit: Unit): void {
    this.add(unit, -1);
  }

  fits(): boolean {
    return this.sum >= this.tasks;
  }

  /** The worker of each task, filling the scope's workers in order (call when it fits). */
  assign(): string[] {
    const out: string[] = [];
    this.hosts.forEach((h, i) => {
      for (let k = 0; k < this.slots[i]! && out.length < this.tasks; k++) out.push(h.id);
    });
    return out;
  }
}

/** A candidate answer: its units and the numbers the preference compares. */
export interface VictimSet {
  units: Unit[];
  count: number;
  ranks: number[];
  lost: number;
  size: Amount;
  ids: string[];
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function setOf(units: Unit[]): VictimSet {
  if (units.length === 1) return { units, ...units[0]! };
  let count = 0;
  let lost = 0;
  let size = ZERO;
  const ranks: number[] = [];
  const ids: string[] = [];
  for (const u of units) {
    count += u.count;
    lost += u.lost;
    size = plus(size, u.size);
    ranks.push(...u.ranks);
    ids.push(...u.ids);
  }
  ranks.sort((a, b) => a - b);
  ids.sort(byText);
  return { units, count, ranks, lost, size, ids };
}

/**
 * Negative when `a` is preferred: the fewest victim tasks; then the lowest bands (the highest
 * band stopped is compared first, then the next: a set that stops less of a higher band wins);
 * then the least work lost (the most recently started); then the smallest (devices, cpu,
 * memory); then task ids.
 */
export function compareSets(a: VictimSet, b: VictimSet): number {
  if (a.count !== b.count) return a.count - b.count;
  for (let i = 0; i < Math.min(a.ranks.length, b.ranks.length); i++) {
    if (a.ranks[i] !== b.ranks[i]) return b.ranks[i]! - a.ranks[i]!;
  }
  if (a.lost !== b.lost) return a.lost - b.lost;
  if (a.size.devices !== b.size.devices) return a.size.devices - b.size.devices;
  if (a.size.cpuMillis !== b.size.cpuMillis) return a.size.cpuMillis - b.size.cpuMillis;
  if (a.size.memoryBytes !== b.size.memoryBytes) return a.size.memoryBytes - b.size.memoryBytes;
  for (let i = 0; i < Math.min(a.ids.length, b.ids.length); i++) {
    const c = byText(a.ids[i]!, b.ids[i]!);
    if (c !== 0) return c;
  }
  return a.ids.length - b.ids.length;
}

/** Every subset by increasing victim count; the first count with a fitting subset wins. */
export function exactSearch(room: Room, units: readonly Unit[]): VictimSet | null {
  const n = units.length;
  // Pruning: fit is monotone, so when all of them do not fit, no subset does.
  for (const u of units) room.add(u);
  const any = room.fits();
  for (const u of units) room.remove(u);
  if (!any) return null;
  const masks: Array<{ mask: number; count: number }> = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    let count = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) count += units[i]!.count;
    masks.push({ mask, count });
  }
  masks.sort((a, b) => a.count - b.count || a.mask - b.mask);
  let best: VictimSet | null = null;
  for (const { mask, count } of masks) {
    // Pruning: every subset of the next count has more victims than the best found.
    if (best && count > best.count) break;
    const chosen = units.filter((_, i) => mask & (1 << i));
    for (const u of chosen) room.add(u);
    const fits = room.fits();
    for (const u of chosen) room.remove(u);
    if (!fits) continue;
    const set = setOf(chosen);
    if (!best || compareSets(set, best) < 0) best = set;
  }
  return best;
}

/** Take in preference order until it fits, then drop what is not needed (least preferred first). */
export function greedySearch(room: Room, units: readonly Unit[]): VictimSet | null {
  const order = units.map((u) => ({ u, s: setOf([u]) })).sort((a, b) => compareSets(a.s, b.s));
  const taken: Unit[] = [];
  for (const { u } of order) {
    if (room.fits()) break;
    room.add(u);
    taken.push(u);
  }
  if (!room.fits()) {
    for (const u of taken) room.remove(u);
    return null;
  }
  const kept: Unit[] = [];
  for (let i = taken.length - 1; i >= 0; i--) {
    const u = taken[i]!;
    room.remove(u);
    if (room.fits()) continue;
    room.add(u);
    kept.push(u);
  }
  for (const u of kept) room.remove(u);
  return setOf(kept.reverse());
}
