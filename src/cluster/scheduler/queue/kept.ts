/**
 * KeptCalendars: worker calendars a QueueScheduler keeps from one pass to the next, so a pass
 * pays for the running tasks that started and ended since the last one instead of re-entering
 * every running task.
 *
 * Guarantees:
 * - After `begin(snapshot)`, the calendars hold exactly the snapshot's running tasks, each from
 *   when it was first seen until its planned end, as PassContext would enter them for a fresh
 *   pass: the free amounts at every time from `now` on are the same (a task past its planned end
 *   is held [now, now+1), re-entered each pass). Spans are per task instead of summed per end
 *   time; the planner's answers depend only on the amounts over time, not on how they are split.
 * - Every span added during the pass (placements, reservations, overdue holds) is removed by
 *   `end()`, so the next pass starts again from the running holds alone.
 * - A change of workers (ids, order or capacity) starts over from empty calendars. A pass that
 *   throws between `begin` and `end` leaves nothing behind: `end` (in a finally) forgets all.
 */
import { WorkerCalendar, type Amounts, type SpanId } from '../planner/index.js';
import type { RunningAllocation, Snapshot, WorkerView } from '../types.js';

/** A worker calendar that remembers the spans added since its pass began, to take them out again. */
export class PassCalendar extends WorkerCalendar {
  private readonly passSpans = new Set<SpanId>();
  private tracking = false;

  override add(start: number, end: number, req: Amounts): SpanId {
    const id = super.add(start, end, req);
    if (this.tracking) this.passSpans.add(id);
    return id;
  }

  override remove(id: SpanId): void {
    super.remove(id);
    this.passSpans.delete(id);
  }

  /** Start remembering added spans. */
  track(): void {
    this.tracking = true;
  }

  /** Remove every span added since `track`, and stop remembering. */
  rollBack(): void {
    this.tracking = false;
    for (const id of this.passSpans) super.remove(id);
    this.passSpans.clear();
  }
}

interface Hold {
  w: number;
  id: SpanId;
  source: RunningAllocation;
  seen: number;
}

function sameHold(a: RunningAllocation, b: RunningAllocation): boolean {
  return a === b || (a.workerId === b.workerId && a.cpuMillis === b.cpuMillis && a.memoryBytes === b.memoryBytes && a.devices === b.devices && a.endsAt === b.endsAt);
}

export class KeptCalendars {
  private calendars: PassCalendar[] = [];
  private readonly indexById = new Map<string, number>();
  private shape: Array<{ id: string; cpu: number; memory: number; devices: number }> = [];
  private readonly holds = new Map<string, Hold>();
  private unlimited = 0;
  private generation = 0;
  private open = false;

  /** The calendars for this pass, holding exactly the snapshot's running tasks; null without `running`. */
  begin(snapshot: Snapshot): { calendars: PassCalendar[]; unboundedHolds: boolean } | null {
    const running = snapshot.running;
    if (!running) return null;
    if (!this.sameWorkers(snapshot.workers)) this.reset(snapshot.workers);
    const now = snapshot.now;
    const gen = ++this.generation;
    // Held for this pass only: tasks past their planned end, and a task id seen twice.
    const passOnly: Array<{ w: number; r: RunningAllocation; end: number }> = [];
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
      const id = this.calendars[w]!.add(now, r.endsAt, { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices });
      if (r.endsAt === Infinity) this.unlimited++;
      this.holds.set(r.task, { w, id, source: r, seen: gen });
    }
    for (const [task, hold] of this.holds) if (hold.seen !== gen) this.drop(task, hold);
    this.open = true;
    for (const cal of this.calendars) cal.track();
    let unbounded = this.unlimited > 0;
    for (const { w, r, end } of passOnly) {
      this.calendars[w]!.add(now, end, { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices });
      if (end === Infinity) unbounded = true;
    }
    return { calendars: this.calendars, unboundedHolds: unbounded };
  }

  /** Take out what the pass added. `failed`: the pass threw, forget everything. */
  end(failed = false): void {
    if (!this.open) return;
    this.open = false;
    if (failed) {
      this.reset([]);
      return;
    }
    for (const cal of this.calendars) cal.rollBack();
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
      if (s.id !== worker.id || s.cpu !== worker.capacity.cpuMillis || s.memory !== worker.capacity.memoryBytes || s.devices !== worker.device.count) return false;
    }
    return true;
  }

  private reset(workers: readonly WorkerView[]): void {
    this.holds.clear();
    this.indexById.clear();
    this.unlimited = 0;
    this.shape = workers.map((w) => ({ id: w.id, cpu: w.capacity.cpuMillis, memory: w.capacity.memoryBytes, devices: w.device.count }));
    this.calendars = workers.map((w, i) => {
      this.indexById.set(w.id, i);
      return new PassCalendar({ cpuMillis: w.capacity.cpuMillis, memoryBytes: w.capacity.memoryBytes, devices: w.device.count });
    });
  }
}
