import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  borrowedTasks,
  dominantShare,
  hardQuotaReason,
  type RunningUse,
  userShares,
} from '../../../../src/cluster/scheduler/queue/shares.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { ResourceSpec } from '../../../../src/model/resources.js';
import type { Quota } from '../../../../src/model/types.js';
import { GiB, job, quota, snapshot, usage, worker } from '../helpers.js';

/** A running task of `user`: 1 CPU, 1 GiB, no accelerators unless told. */
function run(task: string, user: string, startedAt: number, o: Partial<RunningUse> = {}): RunningUse {
  return { task, user, startedAt, cpuMillis: 1000, memoryBytes: GiB, accelerators: 0, ...o };
}

const quotas = (entries: Record<string, Partial<Quota>>): Map<string, Quota> =>
  new Map(Object.entries(entries).map(([user, q]) => [user, quota(q)]));

const cpuNeed = (cores: number, o: Partial<ResourceSpec> = {}): ResourceSpec => ({
  cpuMillis: cores * 1000,
  memoryBytes: GiB,
  device: null,
  ...o,
});

describe('borrowedTasks', () => {
  const cases: Array<[string, RunningUse[], Map<string, Quota>, Record<string, string>]> = [
    [
      'the most recently started tasks beyond the cpu quota are borrowed',
      [run('a3', 'alice', 30), run('a1', 'alice', 10), run('a4', 'alice', 40), run('a2', 'alice', 20)],
      quotas({ alice: { maxRunningCpuMillis: 2000 } }),
      { a3: "borrowed: beyond alice's cpu quota 2", a4: "borrowed: beyond alice's cpu quota 2" },
    ],
    [
      'ties in start time are broken by task id',
      [run('b', 'alice', 5), run('c', 'alice', 5), run('a', 'alice', 5)],
      quotas({ alice: { maxRunningCpuMillis: 1000 } }),
      { b: "borrowed: beyond alice's cpu quota 1", c: "borrowed: beyond alice's cpu quota 1" },
    ],
    [
      'exactly at the quota borrows nothing',
      [run('a1', 'alice', 1), run('a2', 'alice', 2)],
      quotas({ alice: { maxRunningCpuMillis: 2000 } }),
      {},
    ],
    ['no quota: nothing is borrowed', [run('a1', 'alice', 1), run('a2', 'alice', 2)], quotas({}), {}],
    [
      'a quota without running limits borrows nothing',
      [run('a1', 'alice', 1)],
      quotas({ alice: { maxPendingTasks: 1, weight: 3 } }),
      {},
    ],
    [
      'a hard quota borrows nothing',
      [run('a1', 'alice', 1), run('a2', 'alice', 2), run('a3', 'alice', 3)],
      quotas({ alice: { maxRunningCpuMillis: 1000, hard: true } }),
      {},
    ],
    [
      'a memory limit, formatted as a size',
      [run('m1', 'bob', 1, { memoryBytes: 20 * GiB }), run('m2', 'bob', 2, { memoryBytes: 20 * GiB })],
      quotas({ bob: { maxRunningMemoryBytes: 32 * GiB } }),
      { m2: "borrowed: beyond bob's memory quota 32GiB" },
    ],
    [
      'an accelerator limit',
      [run('g1', 'carol', 1, { accelerators: 4 }), run('g2', 'carol', 2, { accelerators: 4 })],
      quotas({ carol: { maxRunningAccelerators: 6 } }),
      { g2: "borrowed: beyond carol's accelerators quota 6" },
    ],
    [
      'the first dimension past its limit is named (cpu before memory)',
      [run('x1', 'dan', 1, { cpuMillis: 3000, memoryBytes: 3 * GiB })],
      quotas({ dan: { maxRunningCpuMillis: 2000, maxRunningMemoryBytes: 2 * GiB } }),
      { x1: "borrowed: beyond dan's cpu quota 2" },
    ],
    [
      'a later dimension crossing first still makes the rest borrowed',
      [
        run('y1', 'erin', 1, { cpuMillis: 500, memoryBytes: 3 * GiB }),
        run('y2', 'erin', 2, { cpuMillis: 500, memoryBytes: 0 }),
      ],
      quotas({ erin: { maxRunningCpuMillis: 4000, maxRunningMemoryBytes: 2 * GiB } }),
      { y1: "borrowed: beyond erin's memory quota 2GiB", y2: "borrowed: beyond erin's memory quota 2GiB" },
    ],
    [
      'users are counted apart',
      [run('a1', 'alice', 1), run('b1', 'bob', 2), run('a2', 'alice', 3), run('b2', 'bob', 4)],
      quotas({ alice: { maxRunningCpuMillis: 1000 }, bob: { maxRunningCpuMillis: 1500 } }),
      { a2: "borrowed: beyond alice's cpu quota 1", b2: "borrowed: beyond bob's cpu quota 1.5" },
    ],
  ];

  it.each(cases)('%s', (_label, running, q, expected) => {
    expect(Object.fromEntries(borrowedTasks(running, q))).toEqual(expected);
  });

  it('the answer does not depend on the order the running tasks are given in', () => {
    const running = [run('a1', 'alice', 1), run('a2', 'alice', 2), run('a3', 'alice', 2), run('a4', 'alice', 9)];
    const q = quotas({ alice: { maxRunningCpuMillis: 2500 } });
    const forward = borrowedTasks(running, q);
    expect([...forward.keys()].sort()).toEqual(['a3', 'a4']);
    expect(Object.fromEntries(borrowedTasks([...running].reverse(), q))).toEqual(Object.fromEntries(forward));
  });
});

describe('borrowedTasks: properties', () => {
  const user = fc.constantFrom('alice', 'bob', 'carol');
  const use = fc.record({
    user,
    startedAt: fc.integer({ min: 0, max: 20 }),
    cpuMillis: fc.integer({ min: 0, max: 4000 }),
    memoryBytes: fc.integer({ min: 0, max: 8 }).map((g) => g * GiB),
    accelerators: fc.integer({ min: 0, max: 4 }),
  });
  const running = fc
    .array(use, { maxLength: 40 })
    .map((list) => list.map((u, i): RunningUse => ({ ...u, task: `t-${String(i).padStart(3, '0')}` })));
  const limit = (max: number) => fc.option(fc.integer({ min: 1, max }), { nil: null });
  const softQuota = fc.record({
    maxRunningCpuMillis: limit(12_000),
    maxRunningMemoryBytes: limit(24).map((g) => (g === null ? null : g * GiB)),
    maxRunningAccelerators: limit(10),
    hard: fc.boolean(),
  });
  const quotaMap = fc
    .dictionary(user, softQuota)
    .map((d) => new Map(Object.entries(d).map(([u, q]) => [u, quota(q)] as const)));

  const within = (sum: { cpuMillis: number; memoryBytes: number; accelerators: number }, q: Quota): boolean =>
    (q.maxRunningCpuMillis === null || sum.cpuMillis <= q.maxRunningCpuMillis) &&
    (q.maxRunningMemoryBytes === null || sum.memoryBytes <= q.maxRunningMemoryBytes) &&
    (q.maxRunningAccelerators === null || sum.accelerators <= q.maxRunningAccelerators);

  it('borrowed is exactly the start-order suffix whose running sum exceeds a soft quota', () => {
    fc.assert(
      fc.property(running, quotaMap, (tasks, q) => {
        const borrowed = borrowedTasks(tasks, q);
        for (const name of ['alice', 'bob', 'carol']) {
          const mine = tasks
            .filter((t) => t.user === name)
            .sort((a, b) => a.startedAt - b.startedAt || (a.task < b.task ? -1 : 1));
          const userQuota = q.get(name);
          const sum = { cpuMillis: 0, memoryBytes: 0, accelerators: 0 };
          let seenBorrowed = false;
          for (const t of mine) {
            sum.cpuMillis += t.cpuMillis;
            sum.memoryBytes += t.memoryBytes;
            sum.accelerators += t.accelerators;
            const expected = userQuota !== undefined && !userQuota.hard && !within(sum, userQuota);
            expect(borrowed.has(t.task)).toBe(expected);
            // A suffix: once one task is borrowed, every later one is.
            if (seenBorrowed) expect(borrowed.has(t.task)).toBe(true);
            seenBorrowed ||= expected;
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('what is left after removing the borrowed tasks is within every soft quota', () => {
    fc.assert(
      fc.property(running, quotaMap, (tasks, q) => {
        const borrowed = borrowedTasks(tasks, q);
        for (const [name, userQuota] of q) {
          if (userQuota.hard) continue;
          const kept = tasks.filter((t) => t.user === name && !borrowed.has(t.task));
          const sum = { cpuMillis: 0, memoryBytes: 0, accelerators: 0 };
          for (const t of kept) {
            sum.cpuMillis += t.cpuMillis;
            sum.memoryBytes += t.memoryBytes;
            sum.accelerators += t.accelerators;
          }
          expect(within(sum, userQuota)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('dominantShare', () => {
  const totals = { cpuMillis: 100_000, memoryBytes: 400 * GiB, accelerators: 16 };
  const cases: Array<[string, Parameters<typeof dominantShare>[0], typeof totals, number, number]> = [
    ['cpu dominates', { cpuMillis: 50_000, memoryBytes: 40 * GiB, accelerators: 0 }, totals, 1, 0.5],
    ['memory dominates', { cpuMillis: 10_000, memoryBytes: 300 * GiB, accelerators: 2 }, totals, 1, 0.75],
    ['accelerators dominate', { cpuMillis: 1000, memoryBytes: GiB, accelerators: 4 }, totals, 1, 0.25],
    ['weight divides the share', { cpuMillis: 50_000, memoryBytes: 0, accelerators: 0 }, totals, 2, 0.25],
    ['a fractional weight', { cpuMillis: 20_000, memoryBytes: 0, accelerators: 0 }, totals, 2.5, 0.08],
    [
      'a zero total contributes nothing',
      { cpuMillis: 25_000, memoryBytes: 0, accelerators: 3 },
      { ...totals, accelerators: 0 },
      1,
      0.25,
    ],
    [
      'all totals zero',
      { cpuMillis: 5, memoryBytes: 5, accelerators: 5 },
      { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
      1,
      0,
    ],
    ['nothing running', { cpuMillis: 0, memoryBytes: 0, accelerators: 0 }, totals, 1, 0],
  ];
  it.each(cases)('%s', (_label, use, total, weight, expected) => {
    expect(dominantShare(use, total, weight)).toBeCloseTo(expected, 12);
  });
});

describe('userShares', () => {
  const totals = { cpuMillis: 10_000, memoryBytes: 100 * GiB, accelerators: 8 };

  it('one line per user with running work or a quota, sorted by name', () => {
    const running = [
      run('c1', 'carol', 1, { accelerators: 4 }),
      run('a1', 'alice', 1, { cpuMillis: 2000 }),
      run('a2', 'alice', 2, { cpuMillis: 2000 }),
      run('a3', 'alice', 3, { cpuMillis: 1000, memoryBytes: 2 * GiB }),
    ];
    const q = quotas({ alice: { maxRunningCpuMillis: 3000, weight: 2 }, bob: { maxRunningCpuMillis: 1000 } });
    const lines = userShares(running, q, totals);
    expect(lines.map((l) => l.user)).toEqual(['alice', 'bob', 'carol']);
    const [alice, bob, carol] = lines;
    expect(alice).toEqual({
      user: 'alice',
      usage: { cpuMillis: 5000, memoryBytes: 4 * GiB, accelerators: 0 },
      quota: q.get('alice'),
      share: 0.25,
      borrowed: { cpuMillis: 3000, memoryBytes: 3 * GiB, accelerators: 0 },
      borrowedTasks: 2,
    });
    expect(bob).toEqual({
      user: 'bob',
      usage: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
      quota: q.get('bob'),
      share: 0,
      borrowed: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
      borrowedTasks: 0,
    });
    expect(carol).toMatchObject({ quota: null, share: 0.5, borrowedTasks: 0 });
  });

  it('the borrowed part matches borrowedTasks, and a hard quota has none', () => {
    const running = [run('h1', 'hank', 1), run('h2', 'hank', 2), run('s1', 'sue', 1), run('s2', 'sue', 2)];
    const q = quotas({ hank: { maxRunningCpuMillis: 1000, hard: true }, sue: { maxRunningCpuMillis: 1000 } });
    const [hank, sue] = userShares(running, q, totals);
    expect(hank).toMatchObject({ borrowedTasks: 0, borrowed: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 } });
    expect(sue).toMatchObject({ borrowedTasks: 1, borrowed: { cpuMillis: 1000, memoryBytes: GiB, accelerators: 0 } });
    expect([...borrowedTasks(running, q).keys()]).toEqual(['s2']);
  });

  it('scale: 100,000 running tasks over 1,000 users', () => {
    const running: RunningUse[] = [];
    const q = new Map<string, Quota>();
    for (let u = 0; u < 1000; u++) {
      const name = `user-${String(u).padStart(4, '0')}`;
      if (u % 4 !== 3) q.set(name, quota({ maxRunningCpuMillis: 50_000, hard: u % 10 === 0 }));
    }
    for (let i = 0; i < 100_000; i++) {
      const u = (i * 7919) % 1000;
      running.push(run(`t-${i}`, `user-${String(u).padStart(4, '0')}`, (i * 31) % 5000));
    }
    const started = performance.now();
    const borrowed = borrowedTasks(running, q);
    const lines = userShares(running, q, { cpuMillis: 1e8, memoryBytes: 1e6 * GiB, accelerators: 0 });
    const ms = performance.now() - started;
    console.log(`shares scale: 100,000 tasks, 1,000 users: ${ms.toFixed(0)} ms`);
    expect(lines).toHaveLength(1000);
    // Each user runs 100 one-CPU tasks against a 50-CPU quota: soft users lend 50 each.
    const softUsers = [...q.values()].filter((x) => !x.hard).length;
    expect(borrowed.size).toBe(softUsers * 50);
    expect(lines.reduce((n, l) => n + l.borrowedTasks, 0)).toBe(borrowed.size);
  });
});

describe('hardQuotaReason', () => {
  const hard = (o: Partial<Quota>) => quota({ hard: true, ...o });
  const cases: Array<[string, Parameters<typeof hardQuotaReason>, string | null]> = [
    ['no quota', ['alice', usage({ cpuMillis: 1e9 }), undefined, cpuNeed(1)], null],
    [
      'a soft quota never holds',
      ['alice', usage({ cpuMillis: 8000 }), quota({ maxRunningCpuMillis: 8000 }), cpuNeed(1)],
      null,
    ],
    [
      'within the hard quota',
      ['alice', usage({ cpuMillis: 7000 }), hard({ maxRunningCpuMillis: 8000 }), cpuNeed(1)],
      null,
    ],
    ['nothing running yet', ['alice', undefined, hard({ maxRunningCpuMillis: 8000 }), cpuNeed(8)], null],
    [
      'at the hard cpu quota',
      ['alice', usage({ cpuMillis: 8000 }), hard({ maxRunningCpuMillis: 8000 }), cpuNeed(1)],
      "held at alice's hard cpu quota (8 of 8 CPU)",
    ],
    [
      'the next task would cross it',
      ['alice', usage({ cpuMillis: 6500 }), hard({ maxRunningCpuMillis: 8000 }), cpuNeed(2)],
      "held at alice's hard cpu quota (6.5 of 8 CPU)",
    ],
    [
      'memory',
      [
        'bob',
        usage({ memoryBytes: 30 * GiB }),
        hard({ maxRunningMemoryBytes: 32 * GiB }),
        cpuNeed(1, { memoryBytes: 4 * GiB }),
      ],
      "held at bob's hard memory quota (30GiB of 32GiB)",
    ],
    [
      'accelerators (GPUs)',
      [
        'carol',
        usage({ accelerators: 6 }),
        hard({ maxRunningAccelerators: 8 }),
        cpuNeed(1, { device: { type: 'gpu', variant: null, count: 4 } }),
      ],
      "held at carol's hard accelerators quota (6 of 8 accelerators)",
    ],
    [
      'accelerators (TPU chips) within',
      [
        'carol',
        usage({ accelerators: 4 }),
        hard({ maxRunningAccelerators: 8 }),
        cpuNeed(1, { device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } }),
      ],
      null,
    ],
    [
      'a task larger than the quota alone',
      ['dan', undefined, hard({ maxRunningCpuMillis: 8000 }), cpuNeed(16)],
      "needs 16 CPU, more than dan's hard cpu quota 8",
    ],
    [
      'a hard quota without running limits',
      ['erin', usage({ cpuMillis: 1e9 }), hard({ maxPendingTasks: 3 }), cpuNeed(1)],
      null,
    ],
  ];
  it.each(cases)('%s', (_label, args, expected) => {
    expect(hardQuotaReason(...args)).toBe(expected);
  });
});

describe('soft-quota deferral leaves hard users alone', () => {
  // Bob runs more than alice (no quota): by share alone alice goes first, so only deferral moves her.
  const alice = job('/a', { user: 'alice', rootSubmittedAt: 0 });
  const bob = job('/b', { user: 'bob', rootSubmittedAt: 5 });
  const snap = (alicePolicy: Partial<Quota>, aliceCpu: number) =>
    snapshot([alice, bob], [worker('w', { cpu: 1 })], {
      usage: new Map([
        ['alice', usage({ cpuMillis: aliceCpu })],
        ['bob', usage({ cpuMillis: 16000 })],
      ]),
      quotas: new Map([['alice', quota({ maxRunningCpuMillis: 8000, ...alicePolicy })]]),
    });
  it('a soft user at their limit goes behind; a hard user within it keeps queue order', () => {
    expect(schedule(snap({}, 8000)).placements.map((p) => p.task)).toEqual(['/b/task-0']);
    expect(schedule(snap({ hard: true }, 7000)).placements.map((p) => p.task)).toEqual(['/a/task-0']);
  });
  it('a hard user at their limit is held, with the reason naming the quota', () => {
    const plan = schedule(snap({ hard: true }, 8000));
    expect(plan.placements.map((p) => p.task)).toEqual(['/b/task-0']);
    expect(plan.reasons.get('/a')).toMatch(/^held at alice's hard cpu quota \(8 of 8 CPU\)/);
  });
});
