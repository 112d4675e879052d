import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BANDS, type Band } from '../../../../src/model/band.js';
import {
  chooseVictims,
  type Amount,
  type PreemptorView,
  type RunningTaskView,
} from '../../../../src/cluster/scheduler/preemption/victims.js';

// Random small clusters, checked against a naive oracle written independently of the module:
// eligibility by the rules' own words, fit by placing tasks one at a time, and every subset of
// the eligible units for the fewest victims.

const NOW = 1_000;
const OPTS = { now: NOW, exemptMs: 60 };
const RANK: Record<Band, number> = { production: 0, interactive: 1, batch: 2 };
const WORKERS = ['w0', 'w1', 'w2', 'w3'];

const small = fc.integer({ min: 0, max: 4 });
const amount = fc.record({ cpuMillis: small, memoryBytes: fc.integer({ min: 0, max: 2 }), devices: small });

const runningArb = fc.record({
  w: fc.integer({ min: 0, max: 3 }),
  job: fc.constantFrom('/a', '/a/b', '/ab', '/a/b/c', '/c', '/c/d'),
  band: fc.constantFrom(...BANDS),
  held: amount,
  age: fc.integer({ min: 0, max: 120 }),
  gang: fc.constantFrom<string | null>(null, null, null, 'g1', 'g2', 'g3'),
});

const caseOf = (minRunning: number, maxRunning: number) =>
  fc.record({
    free: fc.array(amount, { minLength: 4, maxLength: 4 }),
    running: fc.array(runningArb, { minLength: minRunning, maxLength: maxRunning }),
    job: fc.constantFrom('/a/b', '/a/b/c', '/c/d', '/e'),
    band: fc.constantFrom(...BANDS),
    need: amount,
    tasks: fc.integer({ min: 1, max: 3 }),
    gang: fc.boolean(),
    onePerWorker: fc.boolean(),
    candidate: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    group: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 4, maxLength: 4 }),
  });
const caseArb = caseOf(0, 8);
/**
 * Past the exact bound: 24 to 32 running tasks, most of them lone units, on 4 workers, for a
 * production job, none exempt, so that most scopes hold more than 12 eligible units (greedy).
 */
const largeArb = caseOf(24, 32).map((c) => ({
  ...c,
  band: 'production' as Band,
  running: c.running.map((r) => ({ ...r, age: 60 + r.age })),
}));

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): { p: PreemptorView; running: RunningTaskView[] } {
  const ids = WORKERS.filter((_, i) => c.candidate[i]);
  const workers = ids.map((id) => ({ id, free: c.free[WORKERS.indexOf(id)]! }));
  const groups = [0, 1].map((g) => ids.filter((id) => c.group[WORKERS.indexOf(id)] === g)).filter((g) => g.length);
  const p: PreemptorView = {
    job: c.job,
    band: c.band,
    need: c.need,
    tasks: c.tasks,
    gang: c.gang,
    workers,
    ...(c.gang ? { groups, onePerWorker: c.onePerWorker } : {}),
  };
  const running = c.running.map((r, i) => ({
    task: `${r.job}/task-${i}`,
    job: r.job,
    workerId: WORKERS[r.w]!,
    ...r.held,
    band: r.band,
    startedAt: NOW - r.age,
    gang: r.gang,
  }));
  return { p, running };
}

const isAncestorOrSelf = (victim: string, job: string) => job === victim || job.startsWith(victim + '/');

function eligible(p: PreemptorView, t: RunningTaskView): boolean {
  return RANK[t.band] > RANK[p.band] && !isAncestorOrSelf(t.job, p.job) && NOW - t.startedAt >= OPTS.exemptMs;
}

/** Units as the rules say: a lone task, or every running task sharing a gang key. */
function unitsOf(running: RunningTaskView[]): RunningTaskView[][] {
  const map = new Map<string, RunningTaskView[]>();
  for (const t of running) {
    const key = t.gang ?? `#${t.task}`;
    map.set(key, [...(map.get(key) ?? []), t]);
  }
  return [...map.values()];
}

function scopes(p: PreemptorView): ReadonlyArray<readonly string[]> {
  return p.gang ? (p.groups ?? [p.workers.map((w) => w.id)]) : [p.workers.map((w) => w.id)];
}

function roomWith(p: PreemptorView, victims: RunningTaskView[]): Map<string, Amount> {
  const room = new Map(p.workers.map((w) => [w.id, { ...w.free }]));
  for (const v of victims) {
    const r = room.get(v.workerId);
    if (!r) continue;
    r.cpuMillis += v.cpuMillis;
    r.memoryBytes += v.memoryBytes;
    r.devices += v.devices;
  }
  return room;
}

const fitsIn = (r: Amount, n: Amount) =>
  r.cpuMillis >= n.cpuMillis && r.memoryBytes >= n.memoryBytes && r.devices >= n.devices;

/** Place the tasks one at a time on the first worker of a scope with room (identical tasks: exact). */
function fits(p: PreemptorView, victims: RunningTaskView[]): boolean {
  const onePer = p.gang && p.onePerWorker === true;
  return scopes(p).some((scope) => {
    const room = roomWith(p, victims);
    const used = new Set<string>();
    for (let k = 0; k < p.tasks; k++) {
      const id = scope.find((w) => !(onePer && used.has(w)) && fitsIn(room.get(w)!, p.need));
      if (id === undefined) return false;
      const r = room.get(id)!;
      r.cpuMillis -= p.need.cpuMillis;
      r.memoryBytes -= p.need.memoryBytes;
      r.devices -= p.need.devices;
      used.add(id);
    }
    return true;
  });
}

/** The assignment the module answered is valid: within one scope, within each worker's room. */
function assignmentValid(p: PreemptorView, victims: RunningTaskView[], workers: string[]): boolean {
  if (workers.length !== p.tasks) return false;
  if (!scopes(p).some((s) => workers.every((w) => s.includes(w)))) return false;
  if (p.gang && p.onePerWorker && new Set(workers).size !== workers.length) return false;
  const room = roomWith(p, victims);
  for (const w of workers) {
    const r = room.get(w)!;
    r.cpuMillis -= p.need.cpuMillis;
    r.memoryBytes -= p.need.memoryBytes;
    r.devices -= p.need.devices;
    if (r.cpuMillis < 0 || r.memoryBytes < 0 || r.devices < 0) return false;
  }
  return true;
}

/** The fewest victim tasks over every subset of eligible units, or null when none fits. */
function bruteMinimum(p: PreemptorView, units: RunningTaskView[][]): number | null {
  let best: number | null = null;
  for (let mask = 0; mask < 1 << units.length; mask++) {
    const set = units.filter((_, i) => mask & (1 << i)).flat();
    if ((best === null || set.length < best) && fits(p, set)) best = set.length;
  }
  return best;
}

/** Every rule against the oracle; `exact`: the fewest must equal the brute-force minimum. */
function check(c: Case, exact: boolean): void {
  const { p, running } = build(c);
  const got = chooseVictims(p, running, OPTS);
  const units = unitsOf(running);
  const okUnits = units.filter((u) => u.every((t) => eligible(p, t)));
  const fitsNow = fits(p, []);
  // Past the bound the brute force is too slow; fit is monotone, so "some subset fits" is "all fit".
  const canPreempt = p.band !== 'batch' && !fitsNow && fits(p, okUnits.flat());
  const fewest = exact && canPreempt ? bruteMinimum(p, okUnits) : null;
  if (got.kind === 'none') {
    expect(canPreempt).toBe(false);
    if (p.band === 'batch') expect(got.reason).toBe('batch never preempts');
    if (fitsNow && p.band !== 'batch') expect(got.reason).toMatch(/fits on free capacity/);
    return;
  }
  // Never same or higher band, never the own job or an ancestor, never exempt; batch never preempts.
  expect(p.band).not.toBe('batch');
  const byId = new Map(running.map((t) => [t.task, t]));
  const victims = got.victims.map((id) => byId.get(id)!);
  for (const v of victims) expect(eligible(p, v)).toBe(true);
  expect(got.victims).toEqual([...got.victims].sort());
  // Gangs whole.
  const chosen = units.filter((u) => u.some((t) => got.victims.includes(t.task)));
  for (const u of chosen) for (const t of u) expect(got.victims).toContain(t.task);
  // The result fits, by the oracle and by the assignment the module gives.
  expect(fits(p, victims)).toBe(true);
  expect(assignmentValid(p, victims, got.workers)).toBe(true);
  // Minimal: dropping any one unit does not fit.
  for (const u of chosen) {
    const rest = victims.filter((v) => !u.includes(v));
    expect(fits(p, rest)).toBe(false);
  }
  // Fewest: equal to the brute-force minimum (8 units or fewer, so the module is exact).
  expect(canPreempt).toBe(true);
  if (exact) expect(got.victims.length).toBe(fewest);
}

describe('chooseVictims properties (random small clusters, at most 8 units)', () => {
  it('answers exactly as the oracle: the rules, gangs whole, fits, minimal, fewest', () => {
    fc.assert(
      fc.property(caseArb, (c) => check(c, true)),
      { numRuns: 600 },
    );
  });

  it('past the exact bound (greedy) still keeps every rule, fits and is minimal', () => {
    fc.assert(
      fc.property(largeArb, (c) => check(c, false)),
      { numRuns: 150 },
    );
  });

  it('does not depend on the order of the running tasks', () => {
    fc.assert(
      fc.property(caseArb, fc.integer(), (c, seed) => {
        const { p, running } = build(c);
        const shuffled = [...running];
        let x = seed >>> 0;
        for (let i = shuffled.length - 1; i > 0; i--) {
          x = (x * 1103515245 + 12345) >>> 0;
          const j = x % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        expect(chooseVictims(p, shuffled, OPTS)).toEqual(chooseVictims(p, running, OPTS));
      }),
      { numRuns: 200 },
    );
  });
});
