// Calendar.suspend / resume (the queue pass re-plans a held reservation with its spans
// suspended): while suspended, every answer but nextChange is the one of a calendar without the
// span; resumed, the one with it; removing a suspended span leaves no change point behind.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Calendar, WorkerCalendar } from '../../../../src/cluster/scheduler/planner/index.js';
import { NaiveCalendar } from './naive.js';

type Op =
  | { kind: 'add'; start: number; len: number; amount: number }
  | { kind: 'remove' | 'suspend' | 'resume'; pick: number }
  | { kind: 'query'; t: number; duration: number; amount: number };

const pick = (kind: 'remove' | 'suspend' | 'resume') => fc.record({ kind: fc.constant(kind), pick: fc.nat() });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      start: fc.integer({ min: 0, max: 30 }),
      len: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(Infinity)),
      amount: fc.integer({ min: 0, max: 5 }),
    }),
  },
  { weight: 1, arbitrary: pick('remove') },
  { weight: 2, arbitrary: pick('suspend') },
  { weight: 2, arbitrary: pick('resume') },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      t: fc.integer({ min: -2, max: 45 }),
      duration: fc.oneof(fc.integer({ min: 0, max: 15 }), fc.constant(Infinity)),
      amount: fc.integer({ min: 0, max: 7 }),
    }),
  },
);

function replay(total: number, blockSize: number, ops: readonly Op[]): void {
  const cal = new Calendar(total, blockSize);
  const ref = new NaiveCalendar(total);
  const live = new Map<number, { start: number; end: number; amount: number; suspended: boolean }>();
  const ids = (): number[] => [...live.keys()];
  for (const o of ops) {
    if (o.kind === 'add') {
      const id = cal.add(o.start, o.start + o.len, o.amount);
      ref.add(id, o.start, o.start + o.len, o.amount);
      live.set(id, { start: o.start, end: o.start + o.len, amount: o.amount, suspended: false });
    } else if (o.kind === 'query') {
      expect(cal.availableAt(o.t)).toBe(ref.availableAt(o.t));
      expect(cal.minAvailable(o.t, o.duration)).toBe(ref.minAvailable(o.t, o.duration));
      expect(cal.fits(o.t, o.duration, o.amount)).toBe(ref.fits(o.t, o.duration, o.amount));
      expect(cal.earliest(o.t, o.duration, o.amount)).toBe(ref.earliest(o.t, o.duration, o.amount));
    } else {
      const all = ids();
      if (all.length === 0) continue;
      const id = all[o.pick % all.length]!;
      const span = live.get(id)!;
      if (o.kind === 'remove') {
        cal.remove(id);
        if (!span.suspended) ref.remove(id);
        live.delete(id);
      } else if (o.kind === 'suspend') {
        if (span.suspended) {
          expect(() => cal.suspend(id)).toThrow(/already suspended/);
          continue;
        }
        cal.suspend(id);
        ref.remove(id);
        span.suspended = true;
      } else {
        if (!span.suspended) {
          expect(() => cal.resume(id)).toThrow(/not suspended/);
          continue;
        }
        cal.resume(id);
        ref.add(id, span.start, span.end, span.amount);
        span.suspended = false;
      }
    }
  }
  for (const id of ids()) cal.remove(id);
  expect(cal.points).toBe(0);
  expect(cal.availableAt(0)).toBe(total);
}

describe('Calendar.suspend / resume', () => {
  it(
    'answers as without the span while suspended and as with it once resumed (random sequences, small and default ' +
      'blocks)',
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 8 }),
          fc.constantFrom(2, 3, 5, 256),
          fc.array(op, { maxLength: 80 }),
          (total, blockSize, ops) => replay(total, blockSize, ops),
        ),
        { numRuns: 400 },
      );
    },
  );

  it('suspends every resource of a worker span', () => {
    const cal = new WorkerCalendar({ cpuMillis: 4, memoryBytes: 4, devices: 2 });
    const req = { cpuMillis: 4, memoryBytes: 1, devices: 2 };
    const id = cal.add(0, 10, req);
    expect(cal.earliest(0, 5, req)).toBe(10);
    cal.suspend(id);
    expect(cal.earliest(0, 5, req)).toBe(0);
    expect(cal.minAvailable(0, 10)).toEqual({ cpuMillis: 4, memoryBytes: 4, devices: 2 });
    cal.resume(id);
    expect(cal.fits(0, 5, req)).toBe(false);
    cal.suspend(id);
    cal.remove(id);
    expect(cal.size).toBe(0);
    expect(cal.cpu.points).toBe(0);
    expect(() => cal.suspend(id)).toThrow(/unknown worker span/);
  });
});
