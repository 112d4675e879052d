/**
 * What a queue policy keeps between passes, as one immutable value: the jobs found blocked (with
 * their reasons and reservations) and the pass counter that dates them. A pass reads a state and
 * returns the next one (pass.ts); the same snapshot and state always give the same plan and the
 * same next state. `nextQueueState` never changes the state it is given: maps are copied when
 * they change, and shared when a pass changed nothing. `advanceQueueState` gives the same next
 * state by updating, in place, maps that only its holder (QueueScheduler) can reach: a pass then
 * costs what it changed, not a copy of every blocked job.
 */
import type { Reservation } from './allocate.js';
import { reservedSuffix } from './reasons.js';

/** What a pass remembers about a job it could not (fully) start. */
export interface Blocked {
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

export interface QueueState {
  /** Jobs found blocked, by name. */
  readonly blocked: ReadonlyMap<string, Blocked>;
  /** The blocked jobs that hold a reservation (a subset of `blocked`). */
  readonly reserved: ReadonlyMap<string, Blocked>;
  /** Planning passes run so far (estimates do not count): the clock of since / reservedPass. */
  readonly passes: number;
}

export const EMPTY_QUEUE_STATE: QueueState = Object.freeze({ blocked: new Map(), reserved: new Map(), passes: 0 });

/** What one planning pass found, to be folded into the state. */
export interface StateChanges {
  /** Jobs blocked in this pass. */
  added: ReadonlyMap<string, Blocked>;
  /** Standing jobs whose reservation was dropped (they were reconsidered). */
  dropped: readonly string[];
}

/**
 * The state after a planning pass numbered `pass`. With `resourcesChanged` the pass reconsidered
 * every job, so only what it found blocked remains; otherwise the standing jobs stay, less the
 * dropped ones, plus the new ones.
 */
export function nextQueueState(
  state: QueueState,
  changes: StateChanges,
  resourcesChanged: boolean,
  pass: number,
): QueueState {
  const { added, dropped } = changes;
  let blocked: Map<string, Blocked>;
  let reserved: Map<string, Blocked>;
  if (resourcesChanged) {
    blocked = new Map(added);
    reserved = new Map();
  } else {
    if (added.size === 0 && dropped.length === 0)
      return { blocked: state.blocked, reserved: state.reserved, passes: pass };
    blocked = new Map(state.blocked);
    reserved = new Map(state.reserved);
    for (const name of dropped) {
      blocked.delete(name);
      reserved.delete(name);
    }
    for (const [name, b] of added) blocked.set(name, b);
  }
  for (const [name, b] of added) if (b.reservation) reserved.set(name, b);
  return { blocked, reserved, passes: pass };
}

/**
 * The same next state as `nextQueueState`. With `inPlace` the maps of `state` are updated and
 * reused: only for a state this function made, held by one caller alone (QueueScheduler); the
 * maps of EMPTY_QUEUE_STATE (shared by every holder) are always copied. With `inPlace` and
 * `resourcesChanged`, `changes.added` becomes the next state's `blocked` map: the caller hands
 * it over and must not use or change it afterwards.
 */
export function advanceQueueState(
  state: QueueState,
  changes: StateChanges,
  resourcesChanged: boolean,
  pass: number,
  inPlace: boolean,
): QueueState {
  const { added, dropped } = changes;
  const mine = inPlace && state.blocked !== EMPTY_QUEUE_STATE.blocked;
  const reserved = mine ? (state.reserved as Map<string, Blocked>) : new Map(state.reserved);
  if (inPlace && resourcesChanged && added instanceof Map) {
    // Every job was reconsidered, so the blocked jobs are exactly `added`: the caller hands
    // that map over (it is the pass's own) instead of having it copied entry by entry.
    reserved.clear();
    for (const [name, b] of added) if (b.reservation) reserved.set(name, b);
    return { blocked: added as Map<string, Blocked>, reserved, passes: pass };
  }
  const blocked = mine ? (state.blocked as Map<string, Blocked>) : new Map(state.blocked);
  if (resourcesChanged) {
    blocked.clear();
    reserved.clear();
  } else {
    for (const name of dropped) {
      blocked.delete(name);
      reserved.delete(name);
    }
  }
  for (const [name, b] of added) {
    blocked.set(name, b);
    if (b.reservation) reserved.set(name, b);
  }
  return { blocked, reserved, passes: pass };
}

/** A blocked job's reason: its base reason and its reserved start or note. */
export function renderBlocked(b: Blocked, now: number): string {
  if (b.reservation) return `${b.base}; ${reservedSuffix(b.reservation.start, now)}`;
  return b.note ? `${b.base}; ${b.note}` : b.base;
}
