// Brute-force reference planner for the property tests: an array of spans, every question
// answered by scanning all spans and every candidate time.
import type { Amounts } from '../../../../src/cluster/scheduler/planner/index.js';

export interface NaiveSpan {
  start: number;
  end: number;
  amount: number;
}

export class NaiveCalendar {
  readonly spans = new Map<number, NaiveSpan>();
  constructor(readonly total: number) {}

  add(id: number, start: number, end: number, amount: number): void {
    this.spans.set(id, { start, end, amount });
  }

  remove(id: number): void {
    this.spans.delete(id);
  }

  availableAt(t: number): number {
    let used = 0;
    for (const s of this.spans.values()) if (s.start <= t && t < s.end) used += s.amount;
    return this.total - used;
  }

  minAvailable(start: number, duration: number): number {
    const end = start + duration;
    let min = this.availableAt(start);
    for (const s of this.spans.values()) {
      for (const p of [s.start, s.end]) {
        if (p > start && p < end) min = Math.min(min, this.availableAt(p));
      }
    }
    return min;
  }

  fits(start: number, duration: number, amount: number): boolean {
    return amount <= 0 || this.minAvailable(start, duration) >= amount;
  }

  /** The first span boundary >= x of a span with a non-zero amount; Infinity when none. */
  nextChange(x: number): number {
    let best = Infinity;
    for (const s of this.spans.values()) {
      if (s.amount <= 0) continue;
      if (s.start >= x && s.start < best) best = s.start;
      if (s.end >= x && s.end < best) best = s.end;
    }
    return best;
  }

  /** Candidates: from, and every span boundary after it; the first that fits. */
  earliest(from: number, duration: number, amount: number): number {
    const candidates = [from];
    for (const s of this.spans.values()) {
      if (s.start > from) candidates.push(s.start);
      if (s.end > from && s.end !== Infinity) candidates.push(s.end);
    }
    candidates.sort((a, b) => a - b);
    for (const t of candidates) if (this.fits(t, duration, amount)) return t;
    return Infinity;
  }
}

export class NaiveWorker {
  readonly cals: NaiveCalendar[];
  constructor(capacity: Amounts) {
    this.cals = [
      new NaiveCalendar(capacity.cpuMillis),
      new NaiveCalendar(capacity.memoryBytes),
      new NaiveCalendar(capacity.devices),
    ];
  }
  add(id: number, start: number, end: number, req: Amounts): void {
    [req.cpuMillis, req.memoryBytes, req.devices].forEach((a, i) => this.cals[i]!.add(id, start, end, a));
  }
  remove(id: number): void {
    for (const c of this.cals) c.remove(id);
  }
  fits(start: number, duration: number, req: Amounts): boolean {
    return [req.cpuMillis, req.memoryBytes, req.devices].every((a, i) => this.cals[i]!.fits(start, duration, a));
  }
  earliest(from: number, duration: number, req: Amounts): number {
    const candidates = [from];
    for (const c of this.cals) {
      for (const s of c.spans.values()) {
        if (s.start > from) candidates.push(s.start);
        if (s.end > from && s.end !== Infinity) candidates.push(s.end);
      }
    }
    candidates.sort((a, b) => a - b);
    for (const t of candidates) if (this.fits(t, duration, req)) return t;
    return Infinity;
  }
}
