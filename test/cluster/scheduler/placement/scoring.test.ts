/**
 * The one scoring extension point (placement/scoring.ts, registry.ts): every built-in mode is a
 * named list of weighted scorers, and the fast paths (the FreePool for first-fit, the ranked
 * AdaptiveSelector for adaptive) choose exactly what the generic chooser does with that list.
 * A scorer of weight 0 changes no total, but the list is then no longer one a fast path
 * implements, so the pass runs the generic ScoredSelector: the plans must be equal, decisions,
 * reasons and baseline memory included, in the plain pass and under a queue policy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { PLACEMENT_MODES, SELECTIONS } from '../../../../src/cluster/scheduler/placement/modes.js';
import { KEEP_ACCELERATORS } from '../../../../src/cluster/scheduler/placement/accelerators.js';
import {
  isAdaptive,
  isFirstFit,
  keepsAccelerators,
  MODE_LISTS,
} from '../../../../src/cluster/scheduler/placement/registry.js';
import { ADAPTIVE_TERMS, WORKER_ORDER } from '../../../../src/cluster/scheduler/placement/scorers.js';
import type { PlacementProfile, WorkerScorer } from '../../../../src/cluster/scheduler/placement/scoring.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  CacheHint,
  RunningAllocation,
  SchedulerJob,
  Snapshot,
  WorkerView,
} from '../../../../src/cluster/scheduler/types.js';
import { GiB, job, worker } from '../helpers.js';

const NOW = 1_000_000;

const nothing: WorkerScorer = { name: 'nothing', begin: () => ({ score: () => 0 }) };

/** `p` with a scorer of weight 0 appended: the same totals, but only the generic chooser implements it. */
const generic = (p: PlacementProfile): PlacementProfile => ({
  ...p,
  scorers: [...p.scorers, { scorer: nothing, weight: 0 }],
});

const profiles = PLACEMENT_MODES.flatMap((mode) =>
  SELECTIONS.flatMap((selection) =>
    [true, false].map((keepAccelerators) => placementOptions({ mode, selection, keepAccelerators })),
  ),
);

const kindArb = fc.record({
  cpu: fc.integer({ min: 1, max: 8 }),
  mem: fc.constantFrom(8, 16, 32),
  cost: fc.option(fc.integer({ min: 1, max: 30 })),
  copies: fc.integer({ min: 1, max: 6 }),
  gpus: fc.constantFrom(0, 0, 2, 8),
});
const workerStateArb = fc.record({
  idle: fc.option(fc.integer({ min: 0, max: 2 })),
  disabled: fc.boolean(),
  usedCpu: fc.integer({ min: 0, max: 2 }),
  hint: fc.option(fc.record({ key: fc.constantFrom('m1', 'm2'), state: fc.constantFrom('fresh', 'loading', 'stale') })),
});
const jobArb = fc.record({
  name: fc.constantFrom('/a/train', '/a/eval', '/b', '/infer-1', '/infer-2', '/c/train'),
  cpu: fc.integer({ min: 1, max: 3 }),
  replicas: fc.integer({ min: 1, max: 8 }),
  category: fc.constantFrom<SchedulerJob['category']>('training', 'inference', 'other'),
  uses: fc.constantFrom<string[] | undefined>(undefined, ['m1'], ['m1', 'm2']),
  ageS: fc.integer({ min: 0, max: 400 }),
  gpu: fc.constantFrom(0, 0, 0, 1),
});
const runningArb = fc.array(fc.record({ root: fc.constantFrom('/a', '/b', '/z'), worker: fc.nat() }), { maxLength: 3 });

type Kind = typeof kindArb extends fc.Arbitrary<infer T> ? T : never;
type WorkerState = typeof workerStateArb extends fc.Arbitrary<infer T> ? T : never;
type JobSpec = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function build(
  kinds: Kind[],
  states: WorkerState[],
  specs: JobSpec[],
  running: Array<{ root: string; worker: number }>,
): Snapshot {
  const workers: WorkerView[] = [];
  const cacheHints = new Map<string, Map<string, CacheHint>>();
  for (const kind of kinds) {
    for (let c = 0; c < kind.copies; c++) {
      const i = workers.length;
      const st = states[i % states.length]!;
      const id = `w${String(i).padStart(2, '0')}`;
      const used = Math.min(st.usedCpu, kind.cpu);
      const device = { type: 'gpu' as const, variant: 'H100', count: kind.gpus, memoryBytes: 80 * GiB };
      workers.push({
        ...worker(id, {
          cpu: kind.cpu,
          memGiB: kind.mem,
          freeCpu: kind.cpu - used,
          schedulable: !st.disabled,
          ...(kind.gpus > 0 ? { device } : {}),
        }),
        ...(st.disabled ? { disabled: 'by user' } : {}),
        // Priced and unpriced workers mixed (an unpriced one costs 1, adaptive-score.ts).
        ...(kind.cost === null ? {} : { costPerHour: kind.cost }),
        lastDispatchAt: st.idle === null ? null : NOW - 1000 * st.idle,
      });
      if (st.hint) {
        const { key, state } = st.hint;
        const hint = { key, expiresAt: state === 'stale' ? NOW - 1 : NOW + 3_600_000, loading: state === 'loading' };
        cacheHints.set(id, new Map([[key, hint]]));
      }
    }
  }
  const byName = new Map<string, JobSpec>();
  for (const s of specs) if (!byName.has(s.name)) byName.set(s.name, s);
  const jobs = [...byName.values()].map((s, i) => ({
    ...job(s.name, {
      cpu: s.cpu,
      memGiB: 1,
      replicas: s.replicas,
      seq: i,
      device: s.gpu > 0 ? { type: 'gpu', variant: null, count: s.gpu } : null,
    }),
    category: s.category,
    ...(s.uses ? { uses: s.uses } : {}),
  }));
  const pending = jobs.flatMap((jb, i) =>
    Array.from({ length: jb.replicas }, (_, index) => ({
      id: `${jb.name}/task-${index}`,
      job: jb.name,
      index,
      submittedAt: NOW - 1000 * [...byName.values()][i]!.ageS,
      seq: i * 1000 + index,
    })),
  );
  const runningOn: RunningAllocation[] = running.map((r, k) => ({
    task: `${r.root}/x/task-${k}`,
    job: `${r.root}/x`,
    workerId: workers[r.worker % workers.length]!.id,
    cpuMillis: 0,
    memoryBytes: 0,
    devices: 0,
    endsAt: NOW + 60_000,
  }));
  return {
    now: NOW,
    jobs: new Map(jobs.map((jb) => [jb.name, jb])),
    pending,
    workers,
    usage: new Map(),
    quotas: new Map(),
    cacheHints,
    running: runningOn,
  };
}

describe('placement modes are scorer lists', () => {
  it('every mode and selection resolves to a named list; first-fit and adaptive are the fast paths', () => {
    for (const p of profiles) {
      expect(MODE_LISTS[p.mode][p.selection].name).toBe(p.name);
      expect(p.scorers.length).toBeGreaterThan(0);
      expect(isFirstFit(p)).toBe(p.mode === 'first-fit' && p.selection === 'first-fit');
      expect(isAdaptive(p)).toBe(p.mode === 'adaptive');
      expect(isFirstFit(generic(p)) || isAdaptive(generic(p))).toBe(false);
    }
    const keep = { scorer: KEEP_ACCELERATORS, weight: 1 };
    expect(placementOptions({ mode: 'first-fit' }).scorers).toEqual([keep, { scorer: WORKER_ORDER, weight: 1 }]);
    expect(placementOptions({ mode: 'first-fit', keepAccelerators: false }).scorers).toEqual([
      { scorer: WORKER_ORDER, weight: 1 },
    ]);
    expect(placementOptions().scorers).toEqual([keep, ...ADAPTIVE_TERMS]);
    expect(placementOptions({ keepAccelerators: false }).scorers).toBe(ADAPTIVE_TERMS);
    for (const mode of ['static-worker', 'fixed-pipeline', 'round-robin'] as const) {
      expect(keepsAccelerators(placementOptions({ mode }))).toBe(false);
    }
    // The jitter is no longer a term of the score but the first tie-breaker, the rotation (issue 36).
    expect(ADAPTIVE_TERMS.map((s) => s.scorer.name)).toEqual(['age', 'throughput-cost', 'reuse']);
    expect(placementOptions().tieBreakers.map((s) => s.name)).toEqual(['rotation', 'idle-longest']);
    expect(placementOptions({ selection: 'min-satisfying' }).tieBreakers.map((s) => s.name)).toEqual([
      'rotation',
      'idle-longest',
      'smallest-fit',
    ]);
  });

  it('property: the generic chooser over each built-in list plans exactly what the mode plans', () => {
    fc.assert(
      fc.property(
        fc.array(kindArb, { minLength: 1, maxLength: 4 }),
        fc.array(workerStateArb, { minLength: 1, maxLength: 8 }),
        fc.array(jobArb, { minLength: 1, maxLength: 5 }),
        runningArb,
        fc.constantFrom(0, 1e-3, 0.05),
        (kinds, states, specs, running, jitter) => {
          const snap = build(kinds, states, specs, running);
          for (const base of profiles) {
            const p = { ...base, jitter } as PlacementProfile;
            expect(schedule(snap, generic(p)), p.name).toEqual(schedule(snap, p));
            // What is planned; `settled` speaks of a next pass and needs a chooser known never to refuse.
            const viaQueue = (q: PlacementProfile) => {
              const { placements, reasons, reservations } = new QueueScheduler({ policy: 'easy' }, q).pass(snap);
              return { placements, reasons, reservations };
            };
            expect(viaQueue(generic(p)), `${p.name} (easy)`).toEqual(viaQueue(p));
          }
        },
      ),
      { seed: 29, numRuns: 60 },
    );
  });

  it('a scorer added to a mode changes the choice through the same entry point', () => {
    const workers = [worker('a', { cpu: 8, memGiB: 32 }), worker('b', { cpu: 2, memGiB: 4 })];
    const snap: Snapshot = {
      now: NOW,
      jobs: new Map([['/j', job('/j')]]),
      pending: [{ id: '/j/task-0', job: '/j', index: 0, submittedAt: NOW, seq: 0 }],
      workers,
      usage: new Map(),
      quotas: new Map(),
    };
    const firstFit = placementOptions({ mode: 'first-fit' });
    expect(schedule(snap, firstFit).placements[0]!.workerId).toBe('a');
    // Least free memory first (bin packing), ahead of worker order.
    const leastFreeMemory: WorkerScorer = {
      name: 'least-free-memory',
      begin: ({ view }) => ({ score: (_job, _task, w) => -view.free!(w).memoryBytes / GiB }),
    };
    const packing: PlacementProfile = {
      ...firstFit,
      name: 'packing',
      scorers: [{ scorer: leastFreeMemory, weight: 100 }, ...firstFit.scorers],
      record: 'scored',
    };
    const placed = schedule(snap, packing).placements[0]!;
    expect(placed.workerId).toBe('b');
    expect(placed.decision).toEqual({
      mode: 'packing',
      pool: 2,
      lambda: 0.5,
      score: -400 - 1,
      runnerUp: { workerId: 'a', score: -3200 },
      reuseHit: false,
    });
  });
});
