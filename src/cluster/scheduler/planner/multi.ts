/**
 * WorkerCalendar: the cpu, memory and device calendars of one worker planned together. One
 * span id covers all three resources; a request fits when every resource it asks for fits
 * (a zero amount asks for nothing and always fits, so it is not entered in that calendar and
 * that calendar is not asked: jobs that use only cpu cost one calendar, not three).
 */
import { invalid } from '../../../model/errors.js';
import { Calendar, type SpanId } from './calendar.js';

export interface Amounts {
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
}

const NONE = -1;

export class WorkerCalendar {
  readonly capacity: Readonly<Amounts>;
  /** Per-resource calendars, in the order cpuMillis, memoryBytes, devices. */
  readonly cpu: Calendar;
  readonly memory: Calendar;
  readonly devices: Calendar;
  private readonly cals: readonly Calendar[];
  /** Per span, its id in each resource's calendar, or NONE where it asked for zero. */
  private readonly spans = new Map<SpanId, SpanId[]>();
  private nextId: SpanId = 1;

  constructor(capacity: Amounts) {
    this.capacity = { cpuMillis: capacity.cpuMillis, memoryBytes: capacity.memoryBytes, devices: capacity.devices };
    this.cpu = new Calendar(capacity.cpuMillis);
    this.memory = new Calendar(capacity.memoryBytes);
    this.devices = new Calendar(capacity.devices);
    this.cals = [this.cpu, this.memory, this.devices];
  }

  /** Number of live spans. */
  get size(): number {
    return this.spans.size;
  }

  add(start: number, end: number, req: Amounts): SpanId {
    // Unrolled over the three resources (this is on every pass's hot path).
    const cpu = req.cpuMillis === 0 ? NONE : this.cpu.add(start, end, req.cpuMillis);
    let memory = NONE;
    let devices = NONE;
    try {
      if (req.memoryBytes !== 0) memory = this.memory.add(start, end, req.memoryBytes);
      if (req.devices !== 0) devices = this.devices.add(start, end, req.devices);
    } catch (error) {
      if (cpu !== NONE) this.cpu.remove(cpu);
      if (memory !== NONE) this.memory.remove(memory);
      throw error;
    }
    const id = this.nextId++;
    this.spans.set(id, [cpu, memory, devices]);
    return id;
  }

  remove(id: SpanId): void {
    const ids = this.idsOf(id);
    this.spans.delete(id);
    if (ids[0] !== NONE) this.cpu.remove(ids[0]!);
    if (ids[1] !== NONE) this.memory.remove(ids[1]!);
    if (ids[2] !== NONE) this.devices.remove(ids[2]!);
  }

  /** Calendar.suspend for each resource of the span: answers are those without it until resume or remove. */
  suspend(id: SpanId): void {
    const ids = this.idsOf(id);
    for (let r = 0; r < 3; r++) if (ids[r] !== NONE) this.cals[r]!.suspend(ids[r]!);
  }

  /** Puts a suspended span back. */
  resume(id: SpanId): void {
    const ids = this.idsOf(id);
    for (let r = 0; r < 3; r++) if (ids[r] !== NONE) this.cals[r]!.resume(ids[r]!);
  }

  /** The span's id in each resource's calendar (NONE where it asked for zero); an unknown span is an error. */
  private idsOf(id: SpanId): SpanId[] {
    const ids = this.spans.get(id);
    if (ids === undefined) throw invalid(`planner: unknown worker span id ${String(id)}`);
    return ids;
  }

  /** Free amounts at time t. */
  availableAt(t: number): Amounts {
    return {
      cpuMillis: this.cpu.availableAt(t),
      memoryBytes: this.memory.availableAt(t),
      devices: this.devices.availableAt(t),
    };
  }

  /** Minimum free amounts over [start, start+duration), per resource. */
  minAvailable(start: number, duration: number): Amounts {
    return {
      cpuMillis: this.cpu.minAvailable(start, duration),
      memoryBytes: this.memory.minAvailable(start, duration),
      devices: this.devices.minAvailable(start, duration),
    };
  }

  /** The first time >= x at which any resource's availability changes; Infinity when none. */
  nextChange(x: number): number {
    return Math.min(this.cpu.nextChange(x), this.memory.nextChange(x), this.devices.nextChange(x));
  }

  /** The last time at which any resource's availability changes; -Infinity when never. */
  lastChange(): number {
    return Math.max(this.cpu.lastChange(), this.memory.lastChange(), this.devices.lastChange());
  }

  fits(start: number, duration: number, req: Amounts): boolean {
    if (req.cpuMillis !== 0 && !this.cpu.fits(start, duration, req.cpuMillis)) return false;
    if (req.memoryBytes !== 0 && !this.memory.fits(start, duration, req.memoryBytes)) return false;
    return req.devices === 0 || this.devices.fits(start, duration, req.devices);
  }

  /**
   * Earliest t >= from at which every resource fits for `duration`: each resource's earliest
   * answer is a lower bound for the joint one, so move t to the largest of them until all agree.
   * Each round moves t to a later change point, so this ends.
   */
  earliest(from: number, duration: number, req: Amounts): number {
    const cpu = req.cpuMillis;
    const memory = req.memoryBytes;
    const devices = req.devices;
    // One resource asked for (the common case): its own answer is the joint one.
    if (memory === 0 && devices === 0) return cpu === 0 ? from : this.cpu.earliest(from, duration, cpu);
    let t = from;
    for (;;) {
      let agreed = true;
      for (let i = 0; i < 3; i++) {
        const amount = i === 0 ? cpu : i === 1 ? memory : devices;
        if (amount === 0) continue;
        const e = this.cals[i]!.earliest(t, duration, amount);
        if (e === Infinity) return Infinity;
        if (e > t) {
          t = e;
          agreed = false;
        }
      }
      if (agreed) return t;
    }
  }
}
