import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { AdaptiveSelector } from '../../../../src/cluster/scheduler/placement/adaptive.js';
import { sortByMuCost, WorkerClasses } from '../../../../src/cluster/scheduler/placement/classes.js';
import { ageTerm, REUSE_BONUS, throughput } from '../../../../src/cluster/scheduler/placement/adaptive-score.js';
import { idHash, taskSlot } from '../../../../src/cluster/scheduler/placement/jitter.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { nthLargest, ShapeRanking } from '../../../../src/cluster/scheduler/placement/ranking.js';
import type { CacheHint, SchedulerJob, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { GiB, gpuWorker, job, snapshot, tasksOf, where, worker } from '../helpers.js';

const adaptive = placementOptions();
const priced = (w: WorkerView, costPerHour: number): WorkerView => ({ ...w, costPerHour });
const withCategory = (j: SchedulerJob, category: SchedulerJob['category'], uses?: string[]): SchedulerJob => ({
  ...j,
  category,
  ...(uses ? { uses } : {}),
});
const hints = (entries: Record<string, CacheHint[]>): Snapshot['cacheHints'] =>
  new Map(Object.entries(entries).map(([w, list]) => [w, new Map(list.map((h) => [h.key, h]))]));

describe('adaptive score', () => {
  it('μ is 100 per GPU + GPU memory GiB + RAM GiB / 2 + half a point per core', () => {
    expect(throughput(worker('c', { cpu: 8, memGiB: 32 }))).toBe(16 + 4);
    const gpu = {
      ...gpuWorker('g', 'H100', 2),
      device: { type: 'gpu' as const, variant: 'H100', count: 2, memoryBytes: 80 * GiB },
    };
    expect(throughput(gpu)).toBe(200 + 160 + 128 + 16);
    expect(throughput(gpuWorker('g', 'H100', 2))).toBe(200 + 128 + 16); // per-device memory unknown: 0
  });

  it(
    'scores are min–max normalised over the feasible candidates; the decision records pool, λ, score and ' +
      'runner-up',
    () => {
      // big: μ̂ 1, ĉ 1; small: μ̂ 0, ĉ 0. Training (λ 0.8): big 0.8 − 0.2 = 0.6, small 0 (± jitter).
      const workers = [
        priced(worker('small', { cpu: 2, memGiB: 4 }), 1),
        priced(worker('big', { cpu: 32, memGiB: 128 }), 10),
      ];
      const training = withCategory(job('/t'), 'training');
      const plan = schedule(snapshot([training], workers), adaptive);
      expect(where(plan)).toEqual({ '/t/task-0': 'big' });
      const d = plan.placements[0]!.decision!;
      expect(d).toMatchObject({ mode: 'adaptive', pool: 2, lambda: 0.8, reuseHit: false });
      expect(d.score).toBeCloseTo(0.6, 2);
      expect(d.runnerUp!.workerId).toBe('small');
      expect(d.runnerUp!.score).toBeCloseTo(0, 2);
    },
  );

  it('mixed workloads: training goes to the fast expensive worker, inference to the cheap one', () => {
    const workers = [
      priced(gpuWorker('expensive', 'H100', 8), 30),
      priced(gpuWorker('cheap', 'H100', 2, { cpu: 8, memGiB: 64 }), 3),
    ];
    const gpu = { type: 'gpu' as const, variant: null, count: 1 };
    const train = withCategory(job('/train', { device: gpu }), 'training');
    const infer = withCategory(job('/infer', { device: gpu }), 'inference');
    const plan = schedule(snapshot([train, infer], workers), adaptive);
    expect(where(plan)).toEqual({ '/train/task-0': 'expensive', '/infer/task-0': 'cheap' });
    const [t, i] = plan.placements.map((p) => p.decision!);
    expect(t!.lambda).toBe(0.8);
    expect(i!.lambda).toBe(0.4);
    // Overriding λ flips them.
    const flipped = schedule(
      snapshot([train, infer], workers),
      placementOptions({ lambda: { training: 0.1, inference: 0.9 } }),
    );
    expect(where(flipped)).toEqual({ '/train/task-0': 'cheap', '/infer/task-0': 'expensive' });
  });

  it('the age term counts seconds waited up to 300 s and is the same for every worker', () => {
    expect(ageTerm(0, 10_000)).toBeCloseTo(10e-4);
    expect(ageTerm(0, 10_000_000)).toBeCloseTo(300e-4);
    const workers = [worker('a'), worker('b')];
    const s = snapshot([job('/j')], workers, { pending: tasksOf(job('/j'), 0) });
    const older = schedule({ ...s, now: 61_000 }, adaptive).placements[0]!.decision!;
    const young = schedule({ ...s, now: 1_000 }, adaptive).placements[0]!.decision!;
    expect(older.score - young.score).toBeCloseTo(60e-4, 6);
  });
});

describe('tie breaking', () => {
  it('the rotation slot is deterministic and depends on the task id', () => {
    expect(taskSlot(idHash('/j/task-0'))).toBe(taskSlot(idHash('/j/task-0')));
    const slots = new Set<number>();
    for (let t = 0; t < 200; t++) {
      const v = taskSlot(idHash(`/j/task-${t}`));
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(2 ** 32);
      slots.add(v);
    }
    expect(slots.size).toBe(200);
  });

  it('identical workers: tasks rotate across them, and the same snapshot gives the same plan', () => {
    const workers = ['w0', 'w1', 'w2', 'w3'].map((id) => worker(id, { cpu: 64, memGiB: 256 }));
    const jobs = Array.from({ length: 40 }, (_, i) => job(`/j${i}`, { seq: i }));
    const plan = schedule(snapshot(jobs, workers), adaptive);
    const counts: Record<string, number> = {};
    for (const p of plan.placements) counts[p.workerId] = (counts[p.workerId] ?? 0) + 1;
    // Every worker gets some of the 40 tasks (first-fit would put all on w0).
    expect(Object.keys(counts).sort()).toEqual(['w0', 'w1', 'w2', 'w3']);
    for (const n of Object.values(counts)) expect(n).toBeGreaterThanOrEqual(4);
    expect(where(schedule(snapshot(jobs, workers), adaptive))).toEqual(where(plan));
    expect(
      new Set(Object.values(where(schedule(snapshot(jobs, workers), placementOptions({ mode: 'first-fit' }))))),
    ).toEqual(new Set(['w0']));
  });

  it('without jitter, equal scores go to the worker idle longest (never dispatched first), then worker order', () => {
    const noJitter = placementOptions({ jitter: 0 });
    const workers = [
      { ...worker('a'), lastDispatchAt: 500 },
      { ...worker('b'), lastDispatchAt: 100 },
      { ...worker('c'), lastDispatchAt: 900 },
    ];
    expect(where(schedule(snapshot([job('/j')], workers), noJitter))).toEqual({ '/j/task-0': 'b' });
    const never = [...workers, { ...worker('d'), lastDispatchAt: null }, worker('e')];
    expect(where(schedule(snapshot([job('/j')], never), noJitter))).toEqual({ '/j/task-0': 'd' });
  });
});

describe('normalisation is relative to the candidates', () => {
  const w = (id: string, cpu: number, cost: number) => priced(worker(id, { cpu, memGiB: 0 }), cost);

  it('example: adding one small worker flips the choice between two others', () => {
    const a = w('a', 60, 2),
      b = w('b', 40, 1); // μ 30 and 20
    const j = withCategory(job('/j', { memGiB: 0 }), 'other');
    const opts = placementOptions({ jitter: 0, lambda: { other: 0.6 } });
    const pick = (workers: WorkerView[]) => schedule(snapshot([j], workers), opts).placements[0]!;
    // a: 0.6·1 − 0.4·1 = 0.2; b: 0.
    expect(pick([a, b]).workerId).toBe('a');
    // x (μ 1, cost 1.5) stretches the μ range down to 1: a 0.6·1 − 0.4 = 0.2, b 0.6·19/29 ≈ 0.39, x −0.2.
    const flipped = pick([a, b, w('x', 2, 1.5)]);
    expect(flipped.workerId).toBe('b');
    const age = ageTerm(0, 1_000); // the task waited 1 s
    expect(flipped.decision!.score).toBeCloseTo((0.6 * 19) / 29 + age, 9);
    expect(flipped.decision!.runnerUp).toEqual({ workerId: 'a', score: expect.closeTo(0.2 + age, 9) });
  });

  it('property: the choice is always a max-score worker, and some added worker flips a choice', () => {
    let flips = 0;
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.integer({ min: 1, max: 64 }), cost: fc.integer({ min: 1, max: 20 }) }), {
          minLength: 2,
          maxLength: 6,
        }),
        fc.record({ cpu: fc.integer({ min: 1, max: 64 }), cost: fc.integer({ min: 1, max: 20 }) }),
        fc.constantFrom<SchedulerJob['category']>('training', 'inference', 'other'),
        (specs, extra, category) => {
          const workers = specs.map((s, i) => w(`w${i}`, s.cpu, s.cost));
          const j = withCategory(job('/j', { memGiB: 0, cpu: 1 }), category);
          const task = tasksOf(j)[0]!;
          const snap = snapshot([j], workers);
          const sel = new AdaptiveSelector(snap, adaptive);
          const all = workers.map((_, i) => i);
          const best = sel.select(j, task, all, () => true);
          // Recompute every score by the documented formula and check the choice is a maximum.
          const mu = workers.map(throughput),
            cost = workers.map((x) => x.costPerHour!);
          const norm = (xs: number[], x: number) =>
            Math.max(...xs) === Math.min(...xs) ? 0 : (x - Math.min(...xs)) / (Math.max(...xs) - Math.min(...xs));
          const lambda = adaptive.lambda[category!];
          const score = (i: number) =>
            lambda * norm(mu, mu[i]!) -
            (1 - lambda + 2 * 1e-3) * norm(cost, cost[i]!) +
            ageTerm(task.submittedAt, snap.now);
          const top = Math.max(...all.map(score));
          expect(score(best)).toBeCloseTo(top, 12);
          expect(sel.decision!.score).toBeCloseTo(top, 12);
          // Among the first two workers, does adding `extra` as a (never chosen) normaliser change who wins?
          const pair = [workers[0]!, workers[1]!];
          const before = new AdaptiveSelector(snapshot([j], pair), adaptive).select(j, task, [0, 1], () => true);
          const grown = [...pair, w('x', extra.cpu, extra.cost)];
          const afterSel = new AdaptiveSelector(snapshot([j], grown), adaptive);
          const after = afterSel.select(j, task, [0, 1, 2], () => true);
          if (after !== 2 && after !== before) flips++;
        },
      ),
      { seed: 15, numRuns: 400 },
    );
    expect(flips).toBeGreaterThan(0);
  });
});

describe('selection strategies', () => {
  const workers = () => [
    worker('big', { cpu: 32, memGiB: 128 }),
    worker('small', { cpu: 4, memGiB: 8 }),
    worker('mid', { cpu: 8, memGiB: 32 }),
    worker('tiny', { cpu: 1, memGiB: 1 }),
  ];

  it('first-fit matches worker order', () => {
    const plan = schedule(
      snapshot([job('/j', { replicas: 2, cpu: 2, memGiB: 2 })], workers()),
      placementOptions({ mode: 'first-fit' }),
    );
    expect(plan.placements.map((p) => p.workerId)).toEqual(['big', 'big']);
    expect(plan.placements[0]!.decision).toBeUndefined();
  });

  it('min-satisfying picks the smallest worker that fits (μ ascending, then worker order)', () => {
    const opts = placementOptions({ mode: 'first-fit', selection: 'min-satisfying' });
    const plan = schedule(snapshot([job('/j', { replicas: 3, cpu: 2, memGiB: 2 })], workers()), opts);
    // tiny cannot fit; small takes two (4 cpu), then mid.
    expect(plan.placements.map((p) => p.workerId)).toEqual(['small', 'small', 'mid']);
    const queued = new QueueScheduler({ policy: 'easy' }, opts).pass(
      snapshot([job('/j', { cpu: 2, memGiB: 2 })], workers()),
    );
    expect(where(queued)).toEqual({ '/j/task-0': 'small' });
  });

  it('min-satisfying breaks adaptive ties toward the smaller worker; first-fit toward worker order', () => {
    // Equal score by construction: λ 0 ignores μ, equal costs; no jitter, never dispatched.
    const flat = { jitter: 0, lambda: { other: 0 } };
    const snap = snapshot([job('/j')], workers());
    expect(where(schedule(snap, placementOptions({ ...flat, selection: 'min-satisfying' })))).toEqual({
      '/j/task-0': 'tiny',
    });
    expect(where(schedule(snap, placementOptions(flat)))).toEqual({ '/j/task-0': 'big' });
    expect(
      schedule(snap, placementOptions({ ...flat, selection: 'min-satisfying' })).placements[0]!.decision!.mode,
    ).toBe('adaptive+min-satisfying');
  });

  it('rejects unknown modes, selections and out-of-range λ or jitter with a hint', () => {
    expect(() => placementOptions({ mode: 'random' as never })).toThrow(/unknown placement mode "random"/);
    expect(() => placementOptions({ selection: 'best' as never })).toThrow(/unknown placement selection "best"/);
    expect(() => placementOptions({ lambda: { training: 1.5 } })).toThrow(
      /lambda training must be a number from 0 to 1/,
    );
    expect(() => placementOptions({ jitter: -1 })).toThrow(/jitter must be a number from 0 to 0.1/);
  });
});

describe('reuse priority', () => {
  const two = () => [worker('cold'), worker('warm')];
  const model = () => withCategory(job('/infer'), 'inference', ['llama']);

  it('the worker with a fresh hint is chosen until the TTL lapses; a stale hint is neutral', () => {
    const j = model();
    const cacheHints = hints({ warm: [{ key: 'llama', expiresAt: 5_000, loading: false }] });
    for (const now of [1_000, 3_000, 4_999]) {
      const plan = schedule({ ...snapshot([j], two()), now, cacheHints }, adaptive);
      expect(where(plan)).toEqual({ '/infer/task-0': 'warm' });
      expect(plan.placements[0]!.decision!.reuseHit).toBe(true);
    }
    // At and after expiry: neutral, so the result is what no hint gives (jitter alone).
    const none = where(schedule({ ...snapshot([j], two()), now: 5_000 }, adaptive));
    const stale = schedule({ ...snapshot([j], two()), now: 5_000, cacheHints }, adaptive);
    expect(where(stale)).toEqual(none);
    expect(stale.placements[0]!.decision!.reuseHit).toBe(false);
  });

  it('a loading hint counts as warm; a worker must hold every key the job uses', () => {
    const loading = hints({ warm: [{ key: 'llama', expiresAt: 0, loading: true }] });
    expect(where(schedule({ ...snapshot([model()], two()), cacheHints: loading }, adaptive))).toEqual({
      '/infer/task-0': 'warm',
    });
    const both = withCategory(job('/infer'), 'inference', ['llama', 'tokenizer']);
    const partial = hints({ warm: [{ key: 'llama', expiresAt: 1e9, loading: false }], cold: [] });
    const plan = schedule({ ...snapshot([both], two()), cacheHints: partial }, adaptive);
    expect(plan.placements[0]!.decision!.reuseHit).toBe(false);
  });

  it('stickiness ranks above reuse', () => {
    const j = { ...model(), sticky: { workerId: 'cold', parent: '/p' } };
    const cacheHints = hints({ warm: [{ key: 'llama', expiresAt: 1e9, loading: false }] });
    expect(where(schedule({ ...snapshot([j], two()), cacheHints }, adaptive))).toEqual({ '/infer/task-0': 'cold' });
  });
});

describe('reuse damping', () => {
  it(
    'the bonus halves for each task already using the key on the warm worker, so equal cold workers get the ' + 'rest',
    () => {
      const workers = [worker('warm', { cpu: 16 }), worker('c1', { cpu: 16 }), worker('c2', { cpu: 16 })];
      const jobs = Array.from({ length: 3 }, (_, i) => withCategory(job(`/m${i}`, { seq: i }), 'inference', ['llama']));
      const cacheHints = hints({ warm: [{ key: 'llama', expiresAt: 1e9, loading: false }] });
      const sel = new AdaptiveSelector({ ...snapshot(jobs, workers), cacheHints }, adaptive);
      expect(sel.warmth(jobs[0]!, 0)).toBe(1);
      sel.placed(jobs[0]!, 0);
      expect(sel.warmth(jobs[0]!, 0)).toBe(2); // bonus REUSE_BONUS / 2
      expect(sel.warmth(jobs[0]!, 1)).toBe(0);
      const plan = schedule({ ...snapshot(jobs, workers), cacheHints }, adaptive);
      const hits = plan.placements.filter((p) => p.workerId === 'warm');
      // Every task may still prefer warm while its damped bonus beats ±2e-3 of jitter: REUSE_BONUS/3 > 0.002.
      expect(REUSE_BONUS / 3).toBeGreaterThan(2e-3);
      expect(hits.length).toBe(3);
      // A loading hint (a task uses it there now) starts the damping at one.
      const busy = hints({ warm: [{ key: 'llama', expiresAt: 0, loading: true }] });
      expect(new AdaptiveSelector({ ...snapshot(jobs, workers), cacheHints: busy }, adaptive).warmth(jobs[0]!, 0)).toBe(
        2,
      );
    },
  );

  it('damping lets a slightly better cold worker win once the warm one is busy with the model', () => {
    // cold is cheaper by a margin m with REUSE_BONUS/2 < m < REUSE_BONUS: first task warm, second cold.
    const workers = [
      priced(worker('warm', { cpu: 16 }), 10),
      priced(worker('cold', { cpu: 16 }), 10 - 10 * 0.3),
      priced(worker('dear', { cpu: 16 }), 20),
    ];
    // cost range 7..20: warm ĉ 3/13 ≈ 0.23, cold 0; λ 0.4 → (1−λ)·0.23 ≈ 0.138 difference, between 0.1 and 0.2.
    const jobs = Array.from({ length: 2 }, (_, i) => withCategory(job(`/m${i}`, { seq: i }), 'inference', ['llama']));
    const cacheHints = hints({ warm: [{ key: 'llama', expiresAt: 1e9, loading: false }] });
    const plan = schedule({ ...snapshot(jobs, workers), cacheHints }, adaptive);
    expect(where(plan)).toEqual({ '/m0/task-0': 'warm', '/m1/task-0': 'cold' });
    expect(plan.placements.map((p) => p.decision!.reuseHit)).toEqual([true, false]);
  });
});

describe('the ranked pass agrees with scoring every candidate', () => {
  const agrees = (copies: number, maxReplicas: number, numRuns: number) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            cpu: fc.integer({ min: 1, max: 8 }),
            mem: fc.integer({ min: 1, max: 8 }),
            cost: fc.integer({ min: 1, max: 4 }),
            idle: fc.option(fc.integer({ min: 0, max: 3 })),
            hint: fc.option(fc.constantFrom('m1', 'm2')),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.array(
          fc.record({
            cpu: fc.integer({ min: 1, max: 3 }),
            replicas: fc.integer({ min: 1, max: maxReplicas }),
            category: fc.constantFrom<SchedulerJob['category']>('training', 'inference', 'other'),
            uses: fc.option(fc.constantFrom('m1', 'm2')),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom(0, 1e-3, 0.05),
        (ws, js, j) => {
          const kinds = ws.flatMap((x) => Array.from({ length: copies }, () => x));
          const workers = kinds.map((x, i) => ({
            ...priced(worker(`w${i}`, { cpu: x.cpu, memGiB: x.mem }), x.cost),
            lastDispatchAt: x.idle,
          }));
          const jobs = js.map((x, i) =>
            withCategory(
              job(`/j${i}`, { cpu: x.cpu, memGiB: 1, replicas: x.replicas, seq: i }),
              x.category,
              x.uses ? [x.uses] : undefined,
            ),
          );
          const cacheHints = hints(
            Object.fromEntries(
              kinds.flatMap((x, i) => (x.hint ? [[`w${i}`, [{ key: x.hint, expiresAt: 1e9, loading: false }]]] : [])),
            ),
          );
          const snap = { ...snapshot(jobs, workers), cacheHints };
          const opts = placementOptions({ jitter: j });
          const plan = schedule(snap, opts);
          // Reference: one full scan per task, in the order the plan placed them, on capacity tracked here.
          const free = workers.map((w) => ({ cpu: w.capacity.cpuMillis, mem: w.capacity.memoryBytes }));
          const ref = new AdaptiveSelector(snap, opts);
          const all = workers.map((_, i) => i);
          for (const p of plan.placements) {
            const jb = snap.jobs.get(p.job)!;
            const task = snap.pending.find((t) => t.id === p.task)!;
            const res = jb.resources;
            const w = ref.select(
              jb,
              task,
              all,
              (x) => free[x]!.cpu >= res.cpuMillis && free[x]!.mem >= res.memoryBytes,
            );
            expect(workers[w]!.id).toBe(p.workerId);
            expect(ref.decision).toEqual(p.decision);
            free[w]!.cpu -= res.cpuMillis;
            free[w]!.mem -= res.memoryBytes;
            ref.placed(jb, w);
          }
        },
      ),
      { seed: 42, numRuns },
    );
  };

  it('property: schedule() places every task where a full scan of the feasible workers would', () =>
    agrees(1, 4, 1000));
  it('property: the same with hundreds of workers, where the ranked window must grow', () => agrees(40, 60, 60));
});

describe('nthLargest', () => {
  it('property: equals the m-th value of a descending sort', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 60 }),
        fc.nat(),
        (values, pick) => {
          const m = 1 + (pick % values.length);
          const sorted = [...values].sort((a, b) => b - a);
          expect(nthLargest(Float64Array.from(values), m)).toBe(sorted[m - 1]);
        },
      ),
      { seed: 7, numRuns: 500 },
    );
  });
});

/**
 * Every placement of `schedule(snap, opts)` is where one full scan of the feasible workers (capacity tracked here) puts
 * it, decision included.
 */
function expectFullScanAgreement(snap: Snapshot, opts = adaptive): number {
  const plan = schedule(snap, opts);
  const free = snap.workers.map((w) => ({ cpu: w.capacity.cpuMillis, mem: w.capacity.memoryBytes }));
  const ref = new AdaptiveSelector(snap, opts);
  const all = snap.workers.map((_, i) => i);
  for (const p of plan.placements) {
    const jb = snap.jobs.get(p.job)!;
    const task = snap.pending.find((t) => t.id === p.task)!;
    const res = jb.resources;
    const w = ref.select(jb, task, all, (x) => free[x]!.cpu >= res.cpuMillis && free[x]!.mem >= res.memoryBytes);
    expect(snap.workers[w]!.id).toBe(p.workerId);
    expect(ref.decision).toEqual(p.decision);
    free[w]!.cpu -= res.cpuMillis;
    free[w]!.mem -= res.memoryBytes;
    ref.placed(jb, w);
  }
  return plan.placements.length;
}

describe('the ranked pass agrees with a full scan where ranges move (issue 15 §7 performance work)', () => {
  const category = fc.constantFrom<SchedulerJob['category']>('training', 'inference', 'other');

  it(
    'property: (mostly) a distinct price per worker, each worker taking one task, so extremes leave one by ' + 'one',
    () => {
      fc.assert(
        fc.property(
          // Mostly distinct prices, some shared (ties at an extreme).
          fc.array(
            fc.record({
              mem: fc.integer({ min: 1, max: 3 }),
              cents: fc.oneof(fc.integer({ min: 50, max: 5000 }), fc.constantFrom(50, 100, 5000)),
            }),
            { minLength: 2, maxLength: 70 },
          ),
          fc.integer({ min: 1, max: 80 }),
          category,
          fc.constantFrom(0, 1e-3, 0.05),
          (ws, replicas, cat, j) => {
            // One CPU each and tasks of one CPU: every placement fills its worker; the cheapest, the
            // dearest and the largest go in turn, so every range changes during the pass.
            const workers = ws.map((x, i) => priced(worker(`w${i}`, { cpu: 1, memGiB: 4 * x.mem }), x.cents / 100));
            const jb = withCategory(job('/j', { cpu: 1, memGiB: 1, replicas }), cat);
            const placed = expectFullScanAgreement(snapshot([jb], workers), placementOptions({ jitter: j }));
            expect(placed).toBe(Math.min(replicas, workers.length));
          },
        ),
        { seed: 11, numRuns: 300 },
      );
    },
  );

  it(
    'property: more distinct μ values than the ranking groups by (the linear fallback), with prices per type or ' +
      'per machine',
    () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { minLength: 34, maxLength: 60 }),
          fc.boolean(),
          fc.array(
            fc.record({ cpu: fc.integer({ min: 1, max: 4 }), replicas: fc.integer({ min: 1, max: 40 }), category }),
            { minLength: 1, maxLength: 4 },
          ),
          (cpus, perType, js) => {
            const workers = cpus.map((cpu, i) =>
              priced(worker(`w${i}`, { cpu, memGiB: 64 }), perType ? 1 + (cpu % 3) : 1 + ((i * 37) % 101) / 10),
            );
            const jobs = js.map((x, i) =>
              withCategory(job(`/j${i}`, { cpu: x.cpu, memGiB: 1, replicas: x.replicas, seq: i }), x.category),
            );
            expectFullScanAgreement(snapshot(jobs, workers));
          },
        ),
        { seed: 12, numRuns: 60 },
      );
    },
  );

  it('property: fresh, loading and stale hints, jobs using one or two keys', () => {
    const hint = fc.option(
      fc.record({ key: fc.constantFrom('m1', 'm2'), state: fc.constantFrom('fresh', 'loading', 'stale') }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            cpu: fc.integer({ min: 1, max: 6 }),
            cost: fc.integer({ min: 1, max: 3 }),
            hints: fc.array(hint, { maxLength: 2 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.array(
          fc.record({
            replicas: fc.integer({ min: 1, max: 30 }),
            category,
            uses: fc.constantFrom<string[] | undefined>(undefined, ['m1'], ['m2'], ['m1', 'm2']),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (ws, js) => {
          const workers = ws.map((x, i) => priced(worker(`w${i}`, { cpu: x.cpu, memGiB: 16 }), x.cost));
          const jobs = js.map((x, i) =>
            withCategory(job(`/j${i}`, { cpu: 1, memGiB: 1, replicas: x.replicas, seq: i }), x.category, x.uses),
          );
          const entries = ws.flatMap((x, i) => {
            const list = x.hints.flatMap((h) =>
              h ? [{ key: h.key, expiresAt: h.state === 'stale' ? 500 : 1e9, loading: h.state === 'loading' }] : [],
            );
            return list.length > 0 ? [[`w${i}`, list] as const] : [];
          });
          expectFullScanAgreement({ ...snapshot(jobs, workers), cacheHints: hints(Object.fromEntries(entries)) });
        },
      ),
      { seed: 13, numRuns: 300 },
    );
  });
});

describe('ShapeRanking orders', () => {
  it('property: order(λ, m) is a prefix of the full order of classes by base, grouped or not', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ mu: fc.integer({ min: 0, max: 60 }), cost: fc.integer({ min: 0, max: 9 }), fits: fc.boolean() }),
          { minLength: 1, maxLength: 80 },
        ),
        fc.constantFrom(0, 0.4, 0.8, 1),
        fc.integer({ min: 1, max: 90 }),
        (ws, lambda, m) => {
          const mu = Float64Array.from(ws, (x) => x.mu),
            cost = Float64Array.from(ws, (x) => x.cost);
          const classes = new WorkerClasses(sortByMuCost(mu, cost), mu, cost);
          const ranking = new ShapeRanking(
            [...ws.keys()],
            (w) => ws[w]!.fits,
            mu,
            cost,
            () => classes,
            2e-3,
          );
          ranking.rebuild();
          const feasible = [...ws.keys()].filter((w) => ws[w]!.fits);
          expect(ranking.count).toBe(feasible.length);
          // One class per distinct (μ, cost) among the feasible workers, each holding them all.
          const kinds = new Set(feasible.map((w) => `${mu[w]}/${cost[w]}`));
          expect(ranking.classes).toBe(kinds.size);
          for (const w of feasible) {
            const c = ranking.classOf(w);
            const same = feasible.filter((v) => mu[v] === mu[w] && cost[v] === cost[w]);
            expect(ranking.alive(c)).toBe(same.length);
            expect(ranking.list[ranking.memberAt(c, same.indexOf(w))]).toBe(w);
          }
          const order = ranking.order(lambda, m);
          const want = [...kinds]
            .map((k) => ranking.base(ranking.classOf(feasible.find((w) => `${mu[w]}/${cost[w]}` === k)!), lambda))
            .sort((a, b) => b - a);
          expect(order.classes.length).toBeGreaterThanOrEqual(Math.min(m, kinds.size));
          expect([...order.base]).toEqual(want.slice(0, order.classes.length));
          for (let i = 0; i < order.classes.length; i++)
            expect(order.base[i]).toBe(ranking.base(order.classes[i]!, lambda));
          expect(order.complete).toBe(order.classes.length === kinds.size);
        },
      ),
      { seed: 14, numRuns: 400 },
    );
  });
});
