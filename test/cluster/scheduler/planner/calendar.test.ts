import { describe, expect, it } from 'vitest';
import { Calendar, WorkerCalendar } from '../../../../src/cluster/scheduler/planner/index.js';
import { IrisError } from '../../../../src/model/errors.js';

/** 10 units; [0,10) uses 6, [5,15) uses 3, [20,∞) uses 8. Free: 4 | 1 | 7 | 10 | 2. */
function sample(): { cal: Calendar; ids: number[] } {
  const cal = new Calendar(10);
  const ids = [cal.add(0, 10, 6), cal.add(5, 15, 3), cal.add(20, Infinity, 8)];
  return { cal, ids };
}

describe('Calendar', () => {
  it.each([
    [-5, 10],
    [0, 4],
    [4.999, 4],
    [5, 1],
    [10, 7],
    [15, 10],
    [19, 10],
    [20, 2],
    [1e12, 2],
  ])('availableAt(%d) = %d', (t, free) => {
    expect(sample().cal.availableAt(t)).toBe(free);
  });

  it.each([
    [0, 5, 4],
    [0, 6, 1],
    [10, 5, 7],
    [10, 10, 7],
    [10, 11, 2],
    [15, 5, 10],
    [12, Infinity, 2],
    [7, 0, 1],
  ])('minAvailable(%d, %d) = %d', (start, duration, free) => {
    expect(sample().cal.minAvailable(start, duration)).toBe(free);
  });

  it.each([
    [0, 5, 4, true],
    [0, 5, 5, false],
    [15, 5, 10, true],
    [15, 6, 10, false],
    [0, 100, 0, true],
  ])('fits(%d, %d, %d) = %s', (start, duration, amount, ok) => {
    expect(sample().cal.fits(start, duration, amount)).toBe(ok);
  });

  it.each([
    ['free now', 0, 5, 4, 0],
    ['waits for the first span to end', 0, 5, 5, 10],
    ['a gap too short is skipped', 0, 6, 8, Infinity],
    ['the first gap long enough', 0, 5, 8, 15],
    ['fits in the gap exactly', 0, 5, 10, 15],
    ['small enough to fit beside the infinite span', 0, Infinity, 2, 10],
    ['forever, when room stays forever', 16, Infinity, 2, 16],
    ['never: blocked forever by the infinite span', 0, Infinity, 3, Infinity],
    ['never: more than the capacity', 0, 1, 11, Infinity],
    ['amount 0 always fits', 3, Infinity, 0, 3],
    ['from inside a blocked stretch', 6, 2, 8, 15],
  ])('earliest: %s', (_name, from, duration, amount, expected) => {
    expect(sample().cal.earliest(from, duration, amount)).toBe(expected);
  });

  it('many spans sharing start and end points, removed in any order', () => {
    const cal = new Calendar(4);
    const ids = [cal.add(0, 10, 1), cal.add(0, 10, 1), cal.add(0, 10, 1), cal.add(10, 20, 4), cal.add(0, 20, 1)];
    expect(cal.size).toBe(5);
    expect(cal.points).toBe(3); // 0, 10, 20
    expect(cal.availableAt(0)).toBe(0);
    expect(cal.earliest(0, 1, 1)).toBe(20);
    cal.remove(ids[3]!);
    expect(cal.earliest(0, 1, 3)).toBe(10);
    cal.remove(ids[0]!);
    cal.remove(ids[4]!);
    expect(cal.earliest(0, 5, 2)).toBe(0);
    expect(cal.points).toBe(2);
    cal.remove(ids[1]!);
    cal.remove(ids[2]!);
    expect(cal.size).toBe(0);
    expect(cal.points).toBe(0);
    expect(cal.span(ids[1]!)).toBeUndefined();
  });

  it('overcommit is allowed and shows as negative availability', () => {
    const cal = new Calendar(2);
    cal.add(0, 10, 2);
    cal.add(5, 10, 1);
    expect(cal.availableAt(6)).toBe(-1);
    expect(cal.fits(0, 10, 1)).toBe(false);
    expect(cal.earliest(0, 1, 1)).toBe(10);
  });

  it('works with epoch-millisecond times', () => {
    const now = 1_760_000_000_000;
    const cal = new Calendar(8000);
    cal.add(now, now + 3_600_000, 6000);
    expect(cal.earliest(now, 60_000, 4000)).toBe(now + 3_600_000);
    expect(cal.earliest(now, 60_000, 2000)).toBe(now);
  });

  it.each([
    ['start after end', () => new Calendar(1).add(5, 5, 1), /start 5 must be before its end 5/],
    ['negative amount', () => new Calendar(1).add(0, 1, -1), /amount must be a finite number >= 0/],
    ['infinite start', () => new Calendar(1).add(-Infinity, 1, 1), /span start must be a finite number/],
    ['NaN end', () => new Calendar(1).add(0, Number.NaN, 1), /span end must be a number/],
    ['unknown id', () => new Calendar(1).remove(42), /unknown span id 42/],
    [
      'removed twice',
      () => {
        const c = new Calendar(1);
        const id = c.add(0, 1, 1);
        c.remove(id);
        c.remove(id);
      },
      /unknown span id/,
    ],
    ['negative duration', () => new Calendar(1).earliest(0, -1, 1), /duration must be a number >= 0/],
    ['negative capacity', () => new Calendar(-1), /capacity must be a finite number >= 0/],
  ])('rejects %s with an IrisError', (_name, run, message) => {
    expect(run).toThrow(IrisError);
    expect(run).toThrow(message);
  });
});

describe('WorkerCalendar', () => {
  const cap = { cpuMillis: 8000, memoryBytes: 32, devices: 4 };

  it('one id covers every resource; earliest waits for the scarcest one', () => {
    const w = new WorkerCalendar(cap);
    const a = w.add(0, 10, { cpuMillis: 2000, memoryBytes: 30, devices: 0 }); // memory busy until 10
    w.add(5, 20, { cpuMillis: 0, memoryBytes: 0, devices: 4 }); // devices busy [5, 20)
    const req = { cpuMillis: 1000, memoryBytes: 4, devices: 1 };
    expect(w.fits(0, 1, req)).toBe(false);
    // memory frees at 10, devices at 20 → 20.
    expect(w.earliest(0, 1, req)).toBe(20);
    // A request without devices only waits for memory.
    expect(w.earliest(0, 100, { cpuMillis: 1000, memoryBytes: 4, devices: 0 })).toBe(10);
    w.remove(a);
    expect(w.earliest(0, 5, req)).toBe(0);
    expect(w.availableAt(6)).toEqual({ cpuMillis: 8000, memoryBytes: 32, devices: 0 });
    expect(w.size).toBe(1);
    expect(() => w.remove(a)).toThrow(/unknown worker span id/);
  });

  it('alternating blockers on two resources converge to the first common gap', () => {
    const w = new WorkerCalendar(cap);
    w.add(0, 10, { cpuMillis: 8000, memoryBytes: 0, devices: 0 });
    w.add(10, 20, { cpuMillis: 0, memoryBytes: 32, devices: 0 });
    w.add(20, 30, { cpuMillis: 8000, memoryBytes: 0, devices: 0 });
    w.add(35, 40, { cpuMillis: 0, memoryBytes: 32, devices: 0 });
    const req = { cpuMillis: 1, memoryBytes: 1, devices: 0 };
    expect(w.earliest(0, 5, req)).toBe(30);
    expect(w.earliest(0, 6, req)).toBe(40);
  });

  it('a failed add leaves nothing behind', () => {
    const w = new WorkerCalendar(cap);
    expect(() => w.add(0, 10, { cpuMillis: 1, memoryBytes: -1, devices: 0 })).toThrow(IrisError);
    expect(w.size).toBe(0);
    expect(w.cpu.size).toBe(0);
  });
});
