/**
 * The adaptive pass (placement/adaptive.ts with ranking.ts and warm-classes.ts: ranked classes,
 * bounds, picks by tree) against a straightforward reference written here from the rule itself
 * (issue 15 §2, issue 36, docs/architecture.md "Placement"): for each task, in the order the pass
 * placed them, every schedulable worker with room is scored
 *
 *   s = (age + (λ·μ̂ − (1−λ+2j)·ĉ)) + reuse
 *
 * and the workers are sorted by score, then the rotation (j > 0: among the feasible workers of
 * the worker's class — equal μ and cost — in worker order, how far after the task's slot
 * taskSlot(task) mod their number it sits, nearer first), then longest idle, then
 * (min-satisfying) smaller μ, then worker order. The pass must pick the reference's first worker
 * and record the reference's pool, λ, score, runner-up (the first worker of another class) and
 * reuse hit, and leave a job waiting only when the reference finds no room for it either. Random
 * pools mix identical workers (ties), per-type and per-worker prices, disabled workers, partly used
 * workers, fresh / loading / stale cache hints and task ages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { idHash, taskSlot } from '../../../../src/cluster/scheduler/placement/jitter.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import type {
  CacheHint,
  SchedulerJob,
  SchedulerTask,
  Snapshot,
  WorkerView,
} from '../../../../src/cluster/scheduler/types.js';
import { GiB, job, worker } from '../helpers.js';

const NOW = 1_000_000;

/** μ as issue 15 §2 defines it (CPU workers here: no GPU term). */
const mu = (w: WorkerView): number => w.capacity.memoryBytes / GiB / 2 + 0.5 * (w.capacity.cpuMillis / 1000);

interface RefChoice {
  worker: number;
  decision: {
    mode: string;
    pool: number;
    lambda: number;
    score: number;
    runnerUp: { workerId: string; score: number } | null;
    reuseHit: boolean;
  };
}

/**
 * The reference: score every feasible worker and sort. `placedUses`: `${worker}:${key}` -> tasks using key placed there
 * this pass.
 */
function reference(
  snap: Snapshot,
  opts: PlacementProfile,
  jb: SchedulerJob,
  task: SchedulerTask,
  free: Array<{ cpu: number; mem: number }>,
  placedUses: Map<string, number>,
): RefChoice | null {
  const fits = snap.workers.flatMap((w, i) =>
    w.schedulable && free[i]!.cpu >= jb.resources.cpuMillis && free[i]!.mem >= jb.resources.memoryBytes ? [i] : [],
  );
  if (fits.length === 0) return null;
  const mus = fits.map((i) => mu(snap.workers[i]!)),
    costs = fits.map((i) => snap.workers[i]!.costPerHour ?? 1);
  const muMin = Math.min(...mus),
    muSpan = Math.max(...mus) - muMin;
  const cMin = Math.min(...costs),
    cSpan = Math.max(...costs) - cMin;
  const lambda = opts.lambda[jb.category ?? 'other'];
  const age = Math.min(Math.max(0, snap.now - task.submittedAt) / 1000, 300) * 1e-4;
  const uses = jb.uses ?? [];
  /** 0: not warm; else 1 + the most tasks already using one of the keys there. */
  const warmth = (i: number): number => {
    if (uses.length === 0) return 0;
    let busy = 0;
    for (const key of uses) {
      const hint = snap.cacheHints?.get(snap.workers[i]!.id)?.get(key);
      if (!hint || !(hint.loading || hint.expiresAt > snap.now)) return 0;
      busy = Math.max(busy, (hint.loading ? 1 : 0) + (placedUses.get(`${i}:${key}`) ?? 0));
    }
    return 1 + busy;
  };
  const scored = fits.map((i, k) => {
    const base =
      (muSpan > 0 ? lambda * ((mus[k]! - muMin) / muSpan) : 0) -
      (cSpan > 0 ? (1 - lambda + 2 * opts.jitter) * ((costs[k]! - cMin) / cSpan) : 0);
    const warm = warmth(i);
    // The reuse bonus: 0.2 scaled by 1 − ĉ (whole on the cheapest candidate) and damped by warmth.
    const costShare = cSpan > 0 ? (costs[k]! - cMin) / cSpan : 0;
    const score = age + base + (warm > 0 ? (0.2 * (1 - costShare)) / warm : 0);
    const kind = `${mus[k]}/${costs[k]}`;
    return { i, score, idle: snap.workers[i]!.lastDispatchAt ?? -Infinity, mu: mus[k]!, warm, kind, rot: 0 };
  });
  if (opts.jitter > 0) {
    // The rotation: within a class (fits are in worker order), the distance after the task's slot.
    const slot = taskSlot(idHash(task.id));
    for (const kind of new Set(scored.map((x) => x.kind))) {
      const members = scored.filter((x) => x.kind === kind);
      const r = slot % members.length;
      members.forEach((x, rank) => {
        x.rot = -((rank - r + members.length) % members.length);
      });
    }
  }
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      b.rot - a.rot ||
      a.idle - b.idle ||
      (opts.selection === 'min-satisfying' ? a.mu - b.mu : 0) ||
      a.i - b.i,
  );
  const best = scored[0]!;
  const second = scored.find((x) => x.kind !== best.kind);
  return {
    worker: best!.i,
    decision: {
      mode: opts.selection === 'first-fit' ? 'adaptive' : `adaptive+${opts.selection}`,
      pool: fits.length,
      lambda,
      score: best!.score,
      runnerUp: second ? { workerId: snap.workers[second.i]!.id, score: second.score } : null,
      reuseHit: best!.warm > 0,
    },
  };
}

/** Runs the pass and checks every placement, and every job left waiting, against the reference. */
function expectReference(snap: Snapshot, opts: PlacementProfile): number {
  const plan = schedule(snap, opts);
  const free = snap.workers.map((w) => ({ cpu: w.free.cpuMillis, mem: w.free.memoryBytes }));
  const placedUses = new Map<string, number>();
  const placedTasks = new Set<string>();
  for (const p of plan.placements) {
    const jb = snap.jobs.get(p.job)!;
    const task = snap.pending.find((t) => t.id === p.task)!;
    const want = reference(snap, opts, jb, task, free, placedUses);
    expect(want, `${p.task}: the reference finds no room`).not.toBeNull();
    expect(p.workerId, p.task).toBe(snap.workers[want!.worker]!.id);
    expect(p.decision).toEqual(want!.decision);
    free[want!.worker]!.cpu -= jb.resources.cpuMillis;
    free[want!.worker]!.mem -= jb.resources.memoryBytes;
    for (const key of jb.uses ?? [])
      placedUses.set(`${want!.worker}:${key}`, (placedUses.get(`${want!.worker}:${key}`) ?? 0) + 1);
    placedTasks.add(p.task);
  }
  for (const task of snap.pending) {
    if (placedTasks.has(task.id)) continue;
    expect(
      reference(snap, opts, snap.jobs.get(task.job)!, task, free, placedUses),
      `${task.id} waits though the reference finds room`,
    ).toBeNull();
  }
  return plan.placements.length;
}

const hintArb = fc.option(
  fc.record({ key: fc.constantFrom('m1', 'm2'), state: fc.constantFrom('fresh', 'loading', 'stale') }),
  { freq: 2 },
);
/** A machine kind: `copies` identical workers (they tie unless priced per worker). */
const kindArb = (maxCopies: number, wide = false) =>
  fc.record({
    cpu: fc.integer({ min: 1, max: 8 }),
    mem: wide ? fc.integer({ min: 1, max: 64 }) : fc.constantFrom(8, 16, 32),
    cost: fc.integer({ min: 1, max: 40 }),
    copies: fc.integer({ min: 1, max: maxCopies }),
  });
interface Kind {
  cpu: number;
  mem: number;
  cost: number;
  copies: number;
}
const workerArb = fc.record({
  idle: fc.option(fc.integer({ min: 0, max: 2 })),
  disabled: fc.boolean(),
  usedCpu: fc.integer({ min: 0, max: 2 }),
  hints: fc.array(hintArb, { maxLength: 2 }),
  priceNoise: fc.integer({ min: 0, max: 9 }),
});
/** Workers that nearly all hold a live hint for m1 (large warm tie groups). */
const warmWorkerArb = fc.record({
  idle: fc.option(fc.integer({ min: 0, max: 2 })),
  disabled: fc.boolean(),
  usedCpu: fc.integer({ min: 0, max: 2 }),
  hints: fc.array(
    fc.option(fc.record({ key: fc.constant('m1'), state: fc.constantFrom('fresh', 'fresh', 'loading', 'stale') }), {
      freq: 8,
    }),
    { minLength: 1, maxLength: 1 },
  ),
  priceNoise: fc.integer({ min: 0, max: 9 }),
});
const jobArb = fc.record({
  cpu: fc.integer({ min: 1, max: 3 }),
  replicas: fc.integer({ min: 1, max: 25 }),
  category: fc.constantFrom<SchedulerJob['category']>('training', 'inference', 'other'),
  uses: fc.constantFrom<string[] | undefined>(undefined, ['m1'], ['m2'], ['m1', 'm2']),
  ageS: fc.integer({ min: 0, max: 400 }),
});

type WorkerState = typeof workerArb extends fc.Arbitrary<infer T> ? T : never;
type JobSpec = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

/** A snapshot from machine kinds (copies of one kind tie unless priced per worker) and per-worker state. */
function build(kinds: Kind[], states: Array<WorkerState>, jobsIn: Array<JobSpec>, perWorkerPrice: boolean): Snapshot {
  const workers: WorkerView[] = [];
  const cacheHints = new Map<string, Map<string, CacheHint>>();
  for (const kind of kinds) {
    for (let c = 0; c < kind.copies; c++) {
      const i = workers.length;
      const st = states[i % states.length]!;
      const id = `w${String(i).padStart(3, '0')}`;
      const used = Math.min(st.usedCpu, kind.cpu);
      workers.push({
        ...worker(id, { cpu: kind.cpu, memGiB: kind.mem, freeCpu: kind.cpu - used, schedulable: !st.disabled }),
        ...(st.disabled ? { disabled: 'by user' } : {}),
        costPerHour: perWorkerPrice ? kind.cost + st.priceNoise / 10 : kind.cost,
        lastDispatchAt: st.idle === null ? null : NOW - 1000 * st.idle,
      });
      const hs = st.hints.flatMap((h) =>
        h
          ? [{ key: h.key, expiresAt: h.state === 'stale' ? NOW - 1 : NOW + 3_600_000, loading: h.state === 'loading' }]
          : [],
      );
      if (hs.length > 0) cacheHints.set(id, new Map(hs.map((h) => [h.key, h])));
    }
  }
  const jobs = jobsIn.map((x, i) => ({
    ...job(`/j${i}`, { cpu: x.cpu, memGiB: 1, replicas: x.replicas, seq: i }),
    category: x.category,
    ...(x.uses ? { uses: x.uses } : {}),
  }));
  const pending: SchedulerTask[] = jobs.flatMap((jb, i) =>
    Array.from({ length: jb.replicas }, (_, index) => ({
      id: `${jb.name}/task-${index}`,
      job: jb.name,
      index,
      submittedAt: NOW - 1000 * jobsIn[i]!.ageS,
      seq: i * 1000 + index,
    })),
  );
  return {
    now: NOW,
    jobs: new Map(jobs.map((jb) => [jb.name, jb])),
    pending,
    workers,
    usage: new Map(),
    quotas: new Map(),
    cacheHints,
  };
}

describe('the adaptive pass chooses what a plain scoring of every feasible worker chooses', () => {
  const run = (maxKinds: number, maxCopies: number, numRuns: number, seed: number, wide = false, warm = false) =>
    fc.assert(
      fc.property(
        fc.array(kindArb(maxCopies, wide), { minLength: 1, maxLength: maxKinds }),
        fc.array(warm ? warmWorkerArb : workerArb, { minLength: 1, maxLength: 12 }),
        fc.array(jobArb, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom(0, 1e-3, 0.05),
        fc.constantFrom<PlacementProfile['selection']>('first-fit', 'min-satisfying'),
        (kinds, states, jobsIn, perWorkerPrice, j, selection) => {
          expectReference(build(kinds, states, jobsIn, perWorkerPrice), placementOptions({ jitter: j, selection }));
        },
      ),
      { seed, numRuns },
    );

  it('property: small pools (a few kinds, a few copies each)', () => run(5, 6, 400, 101));
  it(
    'property: pools of hundreds of workers with large tie groups (the ranked window grows, most pairs are settled ' +
      'by hash)',
    () => run(4, 120, 40, 102),
  );
  it('property: more hardware kinds than the ranking groups by (its linear fallback)', () => run(60, 3, 60, 103, true));
  it('property: large groups of warm workers (most hold a live hint for m1)', () => run(4, 60, 80, 104, false, true));

  it('a tie group of identical workers: the pass picks the reference winner for every task and rotates', () => {
    const kinds = [
      { cpu: 4, mem: 16, cost: 2, copies: 200 },
      { cpu: 8, mem: 32, cost: 9, copies: 50 },
    ];
    const states = [{ idle: null, disabled: false, usedCpu: 0, hints: [], priceNoise: 0 }];
    const jobsIn = [{ cpu: 1, replicas: 300, category: 'inference' as const, uses: undefined, ageS: 5 }];
    const snap = build(kinds, states, jobsIn, false);
    expect(expectReference(snap, placementOptions())).toBe(300);
    const used = new Set(schedule(snap, placementOptions()).placements.map((p) => p.workerId));
    expect(used.size).toBeGreaterThan(100); // identical workers share the work
  });
});
