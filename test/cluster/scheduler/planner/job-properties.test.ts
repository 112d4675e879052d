import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  earliestGang,
  WorkerCalendar,
  type Amounts,
  type WorkerSlot,
} from '../../../../src/cluster/scheduler/planner/index.js';

// Brute force: try `from` and every span boundary after it, in order; the first time at
// which the job can be placed is the answer.
const cap: Amounts = { cpuMillis: 4, memoryBytes: 4, devices: 2 };
const amounts = fc.record({
  cpuMillis: fc.integer({ min: 0, max: 4 }),
  memoryBytes: fc.integer({ min: 0, max: 4 }),
  devices: fc.integer({ min: 0, max: 2 }),
});
const span = fc.record({
  worker: fc.nat(),
  start: fc.integer({ min: 0, max: 20 }),
  len: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constant(Infinity)),
  req: amounts,
});
const scenario = fc.record({
  groups: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 5 }),
  spans: fc.array(span, { maxLength: 12 }),
  from: fc.integer({ min: 0, max: 25 }),
  duration: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(Infinity)),
  req: amounts,
  count: fc.integer({ min: 1, max: 4 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): { workers: WorkerSlot[]; candidates: number[] } {
  const workers = s.groups.map((group, i) => ({ id: `w${i}`, group, calendar: new WorkerCalendar(cap) }));
  const candidates = new Set([s.from]);
  for (const sp of s.spans) {
    workers[sp.worker % workers.length]!.calendar.add(sp.start, sp.start + sp.len, sp.req);
    for (const p of [sp.start, sp.start + sp.len]) if (p > s.from && p !== Infinity) candidates.add(p);
  }
  return { workers, candidates: [...candidates].sort((a, b) => a - b) };
}

describe('job planning matches brute force over candidate times', () => {
  it('earliestGang', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { workers, candidates } = build(s);
        const ok = (t: number) =>
          ['a', 'b', 'c'].some(
            (g) => workers.filter((w) => w.group === g && w.calendar.fits(t, s.duration, s.req)).length >= s.count,
          );
        const expected = candidates.find(ok) ?? Infinity;
        const plan = earliestGang(workers, s.from, s.duration, s.req, s.count);
        expect(plan.start).toBe(expected);
        if (expected !== Infinity) {
          expect(new Set(plan.workers).size).toBe(s.count);
          for (const id of plan.workers) {
            const w = workers.find((x) => x.id === id)!;
            expect(w.group).toBe(plan.group);
            expect(w.calendar.fits(plan.start, s.duration, s.req)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
