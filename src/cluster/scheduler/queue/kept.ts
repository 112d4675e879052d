/**
 * KeptCalendars: worker calendars a QueueScheduler keeps from one pass to the next, so a pass
 * pays for the running tasks that started and ended since the last one, and leaves standing
 * reservations where they are, instead of rebuilding every calendar.
 *
 * Guarantees:
 * - After `begin(snapshot, state)`, the calendars hold exactly the snapshot's running tasks,
 *   each from when it was first seen until its planned end: the free amounts at every time from
 *   `now` on are those PassContext enters for a fresh pass (a task past its planned end is held
 *   [now, now+1), for this pass only). Spans are per task instead of summed per end time; the
 *   planner's answers depend only on the amounts over time, not on how they are split.
 * - They also hold the spans of the standing reservations returned in `reserved` (a subset of
 *   the state's reservations, each the same object), and only while every one of them fits with
 *   all the others; otherwise `reserved` is empty and the pass re-enters them as a fresh pass
 *   does. Either way the pass then sees the calendars a fresh pass would have at that step.
 * - `end(spans, next)` leaves in place the spans of the reservations of `next` (as the pass
 *   recorded them) and removes everything else the pass added; `fail()` forgets everything.
 * - `begin` also hands the pass the standingHead the previous pass gave `end` (pass.ts): the
 *   state given to `begin` must be the one that pass made (QueueScheduler's own); a pass without
 *   kept calendars, or one that threw, leaves none.
 * - A change of workers (ids, order or capacity) starts over from empty calendars; a snapshot
 *   without `running` gets null (the pass builds its own) and drops the kept reservations.
 */
import { WorkerCalendar, type Amounts, type SpanId } from '../planner/index.js';
import type { RunningAllocation, SchedulerTask, Snapshot, WorkerView } from '../types.js';
import { PART, type HeldSpans, type Reservation } from './allocate.js';
import type { QueueState } from './state.js';

/** A reservation and the spans it holds in the calendars. */
export interface KeptReservation {
  reservation: Reservation;
  spans: HeldSpans;
}

/**
 * Calendars a caller keeps across passes (KeptCalendars), already holding the running tasks
 * and, in `reserved`, standing reservations of the state (each one fits with all the others).
 * The pass takes out the ones it drops and records in `spans` where every reservation it ends
 * with is held.
 */
export interface KeptPass {
  calendars: WorkerCalendar[];
  unboundedHolds: boolean;
  reserved: ReadonlyMap<string, KeptReservation>;
  /**
   * The previous pass's `standingHead` (PassResult), when that pass only saw arrivals and the
   * state it made is the one given now; else null.
   */
  standingHead: readonly SchedulerTask[] | null;
}

function releaseAll(calendars: readonly WorkerCalendar[], spans: HeldSpans): void {
  for (let i = 0; i < spans.length; i += 2) calendars[spans[i]!]!.remove(spans[i + 1]!);
}

/** Each resource `req` asks for stays within capacity over [start, start+duration) (its own span included). */
function withinCapacity(cal: WorkerCalendar, start: number, duration: number, req: Amounts): boolean {
  if (req.cpuMillis !== 0 && cal.cpu.minAvailable(start, duration) < 0) return false;
  if (req.memoryBytes !== 0 && cal.memory.minAvailable(start, duration) < 0) return false;
  return req.devices === 0 || cal.devices.minAvailable(start, duration) >= 0;
}

/** A worker calendar that remembers the spans added since its pass began, to take them out again. */
export class PassCalendar extends WorkerCalendar {
  /** Spans added since the pass began. */
  private readonly tentative = new Set<SpanId>();
  /** Spans of standing reservations, kept from an earlier pass. */
  private readonly standing = new Set<SpanId>();
  private tracking = false;

  override add(start: number, end: number, req: Amounts): SpanId {
    const id = super.add(start, end, req);
    if (this.tracking) this.tentative.add(id);
    return id;
  }

  override remove(id: SpanId): void {
    super.remove(id);
    this.tentative.delete(id);
    this.standing.delete(id);
  }

  /** Start remembering added spans. */
  track(): void {
    this.tracking = true;
  }

  /**
   * End of a pass: the spans in `keep` (reservations that stand) stay, as standing; every other
   * span added in the pass, and every standing span not in `keep`, is removed. False when some
   * id in `keep` is not a span of this calendar.
   */
  settle(keep: ReadonlySet<SpanId> | undefined): boolean {
    this.tracking = false;
    for (const id of this.tentative) {
      if (keep?.has(id)) this.standing.add(id);
      else super.remove(id);
    }
    this.tentative.clear();
    for (const id of this.standing) {
      if (keep?.has(id)) continue;
      super.remove(id);
      this.standing.delete(id);
    }
    if (keep) for (const id of keep) if (!this.standing.has(id)) return false;
    return true;
  }

  /** End of a pass that changed no standing span: every span added in the pass is removed. */
  settleTentative(): void {
    this.tracking = false;
    for (const id of this.tentative) super.remove(id);
    this.tentative.clear();
  }

  /** Remove every standing reservation span. */
  dropStanding(): void {
    for (const id of this.standing) this.remove(id);
  }
}

/** A span `begin` entered: worker, time and amounts. */
interface Grown {
  w: number;
  start: number;
  end: number;
  req: Amounts;
}

interface Hold {
  w: number;
  id: SpanId;
  source: RunningAllocation;
  seen: number;
}

function sameHold(a: RunningAllocation, b: RunningAllocation): boolean {
  return (
    a === b ||
    (a.workerId === b.workerId &&
      a.cpuMillis === b.cpuMillis &&
      a.memoryBytes === b.memoryBytes &&
      a.devices === b.devices &&
      a.endsAt === b.endsAt)
  );
}

export class KeptCalendars {
  private calendars: PassCalendar[] = [];
  private readonly indexById = new Map<string, number>();
  private shape: Array<{ id: string; cpu: number; memory: number; devices: number }> = [];
  private readonly holds = new Map<string, Hold>();
  private unlimited = 0;
  private generation = 0;
  private open = false;
  /** The last pass's standingHead (pass.ts), for the next pass only. */
  private head: readonly SchedulerTask[] | null = null;
  /** Reservations whose spans stand in the calendars, by job. */
  private reserved = new Map<string, KeptReservation>();

  /**
   * The calendars for this pass, holding exactly the snapshot's running tasks and the standing
   * reservations of `state` that are still in them (`reserved`); null without `running`.
   */
  begin(snapshot: Snapshot, state: QueueState): KeptPass | null {
    const running = snapshot.running;
    if (!running) {
      this.head = null;
      this.dropReservations();
      return null;
    }
    if (!this.sameWorkers(snapshot.workers)) this.reset(snapshot.workers);
    const now = snapshot.now;
    const gen = ++this.generation;
    // Held for this pass only: tasks past their planned end, and a task id seen twice.
    const passOnly: Array<{ w: number; r: RunningAllocation; end: number }> = [];
    // Spans entered by this call (nothing else entered since the last pass went unchecked).
    const grown: Grown[] = [];
    for (const r of running) {
      const w = this.indexById.get(r.workerId);
      if (w === undefined) continue;
      const kept = this.holds.get(r.task);
      if (r.endsAt <= now) {
        if (kept && kept.seen !== gen) this.drop(r.task, kept);
        passOnly.push({ w, r, end: now + 1 });
        continue;
      }
      if (kept && kept.seen === gen) {
        passOnly.push({ w, r, end: r.endsAt });
        continue;
      }
      if (kept && sameHold(kept.source, r)) {
        kept.seen = gen;
        kept.source = r;
        continue;
      }
      if (kept) this.drop(r.task, kept);
      const req = { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices };
      const id = this.calendars[w]!.add(now, r.endsAt, req);
      grown.push({ w, start: now, end: r.endsAt, req });
      if (r.endsAt === Infinity) this.unlimited++;
      this.holds.set(r.task, { w, id, source: r, seen: gen });
    }
    for (const [task, hold] of this.holds) if (hold.seen !== gen) this.drop(task, hold);
    this.open = true;
    for (const cal of this.calendars) cal.track();
    let unbounded = this.unlimited > 0;
    for (const { w, r, end } of passOnly) {
      const req = { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices };
      this.calendars[w]!.add(now, end, req);
      grown.push({ w, start: now, end, req });
      if (end === Infinity) unbounded = true;
    }
    this.checkReservations(snapshot, state, grown);
    return { calendars: this.calendars, unboundedHolds: unbounded, reserved: this.reserved, standingHead: this.head };
  }

  /**
   * Keep the standing reservations only if every one still fits where it is with all the others
   * in place (each resource it asks for stays at or under capacity over its spans, on a worker
   * that takes placements): then every subset fits too, so a pass that re-enters them one by one
   * in any order keeps each of them. Otherwise all are taken out and the pass re-enters them.
   *
   * Every span a pass leaves in the calendars was entered only where it fit (placements,
   * reservations), so after a pass each reservation's spans are within capacity, and taking
   * spans out keeps them so. Only the spans `begin` entered (tasks that started or changed, and
   * overdue holds) can break that; where each of them stays within capacity over its own time on
   * the resources it uses, nothing it overlaps went over, and the reservations need no check of
   * their own. An unbounded one is checked the long way.
   */
  private checkReservations(snapshot: Snapshot, state: QueueState, grown: readonly Grown[]): void {
    if (this.reserved.size === 0) return;
    for (const [name, kept] of this.reserved) {
      if (state.reserved.get(name)?.reservation !== kept.reservation) {
        releaseAll(this.calendars, kept.spans);
        this.reserved.delete(name);
      }
    }
    const workers = snapshot.workers;
    let unbounded = false;
    for (const g of grown) {
      if (g.end === Infinity) unbounded = true;
      else if (!withinCapacity(this.calendars[g.w]!, g.start, g.end - g.start, g.req)) {
        this.dropReservations();
        return;
      }
    }
    for (const kept of this.reserved.values()) {
      const r = kept.reservation;
      const { parts } = r;
      for (let k = 0; k < parts.length; k += PART) {
        const w = this.indexById.get(r.workers[parts[k]!]!);
        if (
          w === undefined ||
          !workers[w]!.schedulable ||
          (unbounded && !withinCapacity(this.calendars[w]!, parts[k + 1]!, r.duration * parts[k + 3]!, r.req))
        ) {
          this.dropReservations();
          return;
        }
      }
    }
  }

  private dropReservations(): void {
    if (this.reserved.size === 0) return;
    for (const cal of this.calendars) cal.dropStanding();
    this.reserved = new Map();
  }

  /**
   * After the pass: the reservations of `next` stay (their spans, as the pass recorded them in
   * `spans`), everything else the pass added is taken out. A reservation whose spans are not
   * known takes all of them out (the next pass re-enters them).
   */
  end(
    spans: ReadonlyMap<string, KeptReservation>,
    next: QueueState,
    standingHead: readonly SchedulerTask[] | null = null,
  ): void {
    if (!this.open) return;
    this.open = false;
    this.head = standingHead;
    if (this.standsAsBefore(spans, next)) {
      // The pass kept every standing reservation where it was and added none: what it added
      // (its placements) goes, the standing spans stay.
      for (const cal of this.calendars) cal.settleTentative();
      return;
    }
    const keep = new Map<number, Set<SpanId>>();
    const reserved = new Map<string, KeptReservation>();
    let known = true;
    for (const [name, b] of next.reserved) {
      const kept = spans.get(name);
      if (!kept || kept.reservation !== b.reservation) {
        known = false;
        continue;
      }
      reserved.set(name, kept);
      const held = kept.spans;
      for (let i = 0; i < held.length; i += 2) {
        const w = held[i]!;
        let ids = keep.get(w);
        if (!ids) keep.set(w, (ids = new Set()));
        ids.add(held[i + 1]!);
      }
    }
    const calendars = this.calendars;
    for (let w = 0; w < calendars.length; w++) if (!calendars[w]!.settle(keep.get(w))) known = false;
    this.reserved = reserved;
    if (!known) this.dropReservations();
  }

  /** `next` holds exactly the reservations standing before the pass, in the same spans. */
  private standsAsBefore(spans: ReadonlyMap<string, KeptReservation>, next: QueueState): boolean {
    const before = this.reserved;
    if (next.reserved.size !== before.size) return false;
    for (const [name, b] of next.reserved) {
      const now = spans.get(name);
      const old = before.get(name);
      if (
        !now ||
        !old ||
        now.reservation !== b.reservation ||
        old.reservation !== b.reservation ||
        now.spans !== old.spans
      )
        return false;
    }
    return true;
  }

  /** The pass threw: forget everything (the next pass starts from empty calendars). */
  fail(): void {
    this.open = false;
    this.head = null;
    this.shape = [];
    this.reset([]);
  }

  private drop(task: string, hold: Hold): void {
    this.calendars[hold.w]!.remove(hold.id);
    if (hold.source.endsAt === Infinity) this.unlimited--;
    this.holds.delete(task);
  }

  private sameWorkers(workers: readonly WorkerView[]): boolean {
    const shape = this.shape;
    if (shape.length !== workers.length) return false;
    for (let w = 0; w < workers.length; w++) {
      const s = shape[w]!;
      const worker = workers[w]!;
      if (
        s.id !== worker.id ||
        s.cpu !== worker.capacity.cpuMillis ||
        s.memory !== worker.capacity.memoryBytes ||
        s.devices !== worker.device.count
      )
        return false;
    }
    return true;
  }

  private reset(workers: readonly WorkerView[]): void {
    this.holds.clear();
    this.reserved = new Map();
    this.indexById.clear();
    this.unlimited = 0;
    this.shape = workers.map((w) => ({
      id: w.id,
      cpu: w.capacity.cpuMillis,
      memory: w.capacity.memoryBytes,
      devices: w.device.count,
    }));
    this.calendars = workers.map((w, i) => {
      this.indexById.set(w.id, i);
      return new PassCalendar({
        cpuMillis: w.capacity.cpuMillis,
        memoryBytes: w.capacity.memoryBytes,
        devices: w.device.count,
      });
    });
  }
}
