import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Calendar, WorkerCalendar } from '../../../../src/cluster/scheduler/planner/index.js';
import { NaiveCalendar, NaiveWorker } from './naive.js';

// Small time and amount domains so spans share points and overlap a lot.
const time = fc.integer({ min: 0, max: 30 });
const end = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 12 }) },
  { weight: 1, arbitrary: fc.constant(Infinity) },
);
const duration = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 15 }) },
  { weight: 1, arbitrary: fc.constant(Infinity) },
);

type Op =
  | { kind: 'add'; start: number; len: number; amount: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'query'; t: number; duration: number; amount: number };

const op = (maxAmount: number): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        start: time,
        len: end,
        amount: fc.integer({ min: 0, max: maxAmount }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('query' as const),
        t: fc.integer({ min: -2, max: 45 }),
        duration,
        amount: fc.integer({ min: 0, max: maxAmount + 1 }),
      }),
    },
  );

/**
 * Replays adds, removes and queries on a planner calendar and its brute-force reference (the
 * same span ids on both); `query` compares them, `after` runs after every step. Returns the ids
 * still live.
 */
function applyOps<V, A extends { kind: 'add'; start: number; len: number }, Q extends { kind: 'query' }>(
  cal: { add(start: number, end: number, v: V): number; remove(id: number): void; size: number },
  ref: { add(id: number, start: number, end: number, v: V): void; remove(id: number): void },
  ops: ReadonlyArray<A | Q | { kind: 'remove'; pick: number }>,
  valueOfAdd: (o: A) => V,
  query: (o: Q) => void,
): number[] {
  const live: number[] = [];
  for (const o of ops) {
    if (o.kind === 'add') {
      const a = o as A;
      const id = cal.add(a.start, a.start + a.len, valueOfAdd(a));
      ref.add(id, a.start, a.start + a.len, valueOfAdd(a));
      live.push(id);
    } else if (o.kind === 'remove') {
      if (live.length === 0) continue;
      const [id] = live.splice((o as { pick: number }).pick % live.length, 1);
      cal.remove(id!);
      ref.remove(id!);
    } else {
      query(o as Q);
    }
    expect(cal.size).toBe(live.length);
  }
  return live;
}

/** Replays `ops` on a Calendar with `blockSize` points per block and on the reference. */
function replay(total: number, ops: readonly Op[], blockSize?: number): void {
  const cal = new Calendar(total, blockSize);
  const ref = new NaiveCalendar(total);
  const live = applyOps(
    cal,
    ref,
    ops,
    (o: Extract<Op, { kind: 'add' }>) => o.amount,
    (o: Extract<Op, { kind: 'query' }>) => {
      expect(cal.availableAt(o.t)).toBe(ref.availableAt(o.t));
      expect(cal.minAvailable(o.t, o.duration)).toBe(ref.minAvailable(o.t, o.duration));
      expect(cal.fits(o.t, o.duration, o.amount)).toBe(ref.fits(o.t, o.duration, o.amount));
      expect(cal.earliest(o.t, o.duration, o.amount)).toBe(ref.earliest(o.t, o.duration, o.amount));
      expect(cal.nextChange(o.t)).toBe(ref.nextChange(o.t));
    },
  );
  // Removing everything leaves no change points behind.
  for (const id of live) cal.remove(id);
  expect(cal.points).toBe(0);
  expect(cal.availableAt(0)).toBe(total);
}

describe('Calendar matches a brute-force reference', () => {
  it('on random add / remove / query sequences (with Infinity ends and durations)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.array(op(6), { maxLength: 60 }), (total, ops) =>
        replay(total, ops),
      ),
      { numRuns: 400 },
    );
  });

  // Blocks of 2-5 points: the same sequences then span many blocks, so splitting and joining
  // blocks, lazy offsets and stepping over whole blocks are all exercised.
  it.each([2, 3, 5])('with blocks of %i points', (blockSize) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.array(op(6), { maxLength: 80 }), (total, ops) =>
        replay(total, ops, blockSize),
      ),
      { numRuns: 300 },
    );
  });

  // Few distinct amounts and queries that mostly ask for a lot: many free gaps just too short.
  it('on near-full calendars with many short gaps', () => {
    const packedOp: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('add' as const),
          start: fc.integer({ min: 0, max: 60 }),
          len: fc.integer({ min: 1, max: 6 }),
          amount: fc.integer({ min: 1, max: 3 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('query' as const),
          t: fc.integer({ min: -1, max: 62 }),
          duration: fc.integer({ min: 0, max: 8 }),
          amount: fc.integer({ min: 1, max: 4 }),
        }),
      },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 5 }),
        fc.integer({ min: 2, max: 6 }),
        fc.array(packedOp, { maxLength: 120 }),
        (total, blockSize, ops) => replay(total, ops, blockSize),
      ),
      { numRuns: 200 },
    );
  });
});

describe('WorkerCalendar.earliest matches a brute-force reference', () => {
  const amounts = fc.record({
    cpuMillis: fc.integer({ min: 0, max: 4 }),
    memoryBytes: fc.integer({ min: 0, max: 4 }),
    devices: fc.integer({ min: 0, max: 2 }),
  });
  const wop = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), start: time, len: end, req: amounts }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('query' as const), t: time, duration, req: amounts }) },
  );
  it('on random sequences over cpu, memory and devices', () => {
    fc.assert(
      fc.property(fc.array(wop, { maxLength: 40 }), (ops) => {
        const capacity = { cpuMillis: 4, memoryBytes: 4, devices: 2 };
        const cal = new WorkerCalendar(capacity);
        const ref = new NaiveWorker(capacity);
        type WorkerOp = (typeof ops)[number];
        applyOps(
          cal,
          ref,
          ops,
          (o: Extract<WorkerOp, { kind: 'add' }>) => o.req,
          (o: Extract<WorkerOp, { kind: 'query' }>) => {
            expect(cal.fits(o.t, o.duration, o.req)).toBe(ref.fits(o.t, o.duration, o.req));
            expect(cal.earliest(o.t, o.duration, o.req)).toBe(ref.earliest(o.t, o.duration, o.req));
          },
        );
      }),
      { numRuns: 300 },
    );
  });
});
