/**
 * Quotas in the pass (issue 32 §2): a hard quota holds work at the quota (first-fit and the queue
 * policies alike, a gang checked whole), and with quotas configured the users further under their
 * weighted share go first within a band and depth; without quotas the order is as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobQueue } from '../../../../src/cluster/scheduler/queue/job-queue.js';
import { orderTasks } from '../../../../src/cluster/scheduler/queue/order.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { snapshotShares } from '../../../../src/cluster/scheduler/queue/shares.js';
import type { Plan, SchedulerJob, Snapshot } from '../../../../src/cluster/scheduler/types.js';
import { job, quota, snapshot, tasksOf, usage, worker } from '../helpers.js';

type Pass = (snap: Snapshot) => Plan;
const PASSES: Array<[string, Pass]> = [
  ['first-fit', (snap) => schedule(snap)],
  ['easy', (snap) => new QueueScheduler({ policy: 'easy' }).pass(snap)],
  ['conservative', (snap) => new QueueScheduler({ policy: 'conservative' }).pass(snap)],
];

const placed = (plan: Plan): string[] => plan.placements.map((p) => p.task).sort();

describe.each(PASSES)('hard quotas under %s', (_name, pass) => {
  const hard = (cpu: number) => new Map([['alice', quota({ maxRunningCpuMillis: cpu * 1000, hard: true })]]);

  it('starts only the tasks that keep the user within the quota; the rest wait with its reason', () => {
    const sweep = job('/sweep', { user: 'alice', replicas: 4 });
    const snap = snapshot([sweep], [worker('w', { cpu: 8 })], {
      usage: new Map([['alice', usage({ cpuMillis: 1000 })]]),
      quotas: hard(3),
    });
    const plan = pass(snap);
    expect(placed(plan)).toEqual(['/sweep/task-0', '/sweep/task-1']);
    expect(plan.reasons.get('/sweep')).toBe("held at alice's hard cpu quota (3 of 3 CPU)");
  });

  it('checks a gang whole: one that does not fit the quota starts nothing', () => {
    const gang = job('/gang', { user: 'alice', replicas: 3, coschedule: 'rack' });
    const workers = ['a', 'b', 'c'].map((id) => worker(id, { cpu: 2, attributes: { rack: 'r' } }));
    const within = pass(snapshot([gang], workers, { quotas: hard(3) }));
    expect(placed(within)).toHaveLength(3);
    const snap = snapshot([gang], workers, {
      usage: new Map([['alice', usage({ cpuMillis: 1000 })]]),
      quotas: hard(3),
    });
    const plan = pass(snap);
    expect(placed(plan)).toEqual([]);
    expect(plan.reasons.get('/gang')).toBe("held at alice's hard cpu quota (1 of 3 CPU)");
  });

  it('holds one user only: another user takes the capacity, and a soft quota borrows', () => {
    const a = job('/a', { user: 'alice', replicas: 2, rootSubmittedAt: 0 });
    const b = job('/b', { user: 'bob', replicas: 2, rootSubmittedAt: 1 });
    const workers = [worker('w', { cpu: 4 })];
    expect(placed(pass(snapshot([a, b], workers, { quotas: hard(1) })))).toEqual([
      '/a/task-0',
      '/b/task-0',
      '/b/task-1',
    ]);
    const soft = new Map([['alice', quota({ maxRunningCpuMillis: 1000 })]]);
    expect(placed(pass(snapshot([a, b], workers, { quotas: soft })))).toHaveLength(4);
  });

  it('names the capacity as well when it, too, is short', () => {
    const sweep = job('/sweep', { user: 'alice', replicas: 2, cpu: 2 });
    const snap = snapshot([sweep], [worker('w', { cpu: 2 })], { quotas: hard(2) });
    const plan = pass(snap);
    expect(placed(plan)).toEqual(['/sweep/task-0']);
    expect(plan.reasons.get('/sweep')).toMatch(/^held at alice's hard cpu quota \(2 of 2 CPU\); \S/);
  });
});

describe('fair-share order', () => {
  const older = job('/older', { user: 'alice', rootSubmittedAt: 0 });
  const newer = job('/newer', { user: 'bob', rootSubmittedAt: 10 });
  const workers = [worker('w', { cpu: 1 })];
  const aliceRuns = new Map([['alice', usage({ cpuMillis: 2000 })]]);

  it.each(PASSES)('under %s the user further under their share goes first, within a band and depth', (_n, pass) => {
    const quotas = new Map([['carol', quota({ weight: 1 })]]);
    expect(placed(pass(snapshot([older, newer], workers, { usage: aliceRuns, quotas })))).toEqual(['/newer/task-0']);
    // No quota configured: shares play no part, the older tree goes first as before.
    expect(placed(pass(snapshot([older, newer], workers, { usage: aliceRuns })))).toEqual(['/older/task-0']);
  });

  it('divides the share by the weight; depth and band still come first', () => {
    const bobRuns = new Map([
      ['alice', usage({ cpuMillis: 2000 })],
      ['bob', usage({ cpuMillis: 1500 })],
    ]);
    const heavy = new Map([['alice', quota({ weight: 2 })]]);
    // alice 2/8 / 2 = 0.125 < bob 1.5/8 = 0.1875: alice's older tree first again.
    const snap = snapshot([older, newer], [worker('w', { cpu: 1 }), worker('idle', { cpu: 7, freeCpu: 0 })], {
      usage: bobRuns,
      quotas: heavy,
    });
    expect(snapshotShares(snap)).toEqual(
      new Map([
        ['alice', 0.125],
        ['bob', 0.1875],
      ]),
    );
    expect(placed(schedule(snap))).toEqual(['/older/task-0']);
    const deep = job('/older/child', { user: 'alice', rootSubmittedAt: 0 });
    const withChild = snapshot([older, newer, deep], workers, { usage: aliceRuns, quotas: heavy });
    expect(placed(schedule(withChild))).toEqual(['/older/child/task-0']);
    const batch: SchedulerJob = { ...job('/bulk', { user: 'bob' }), band: 'batch' };
    expect(placed(schedule(snapshot([older, batch], workers, { usage: aliceRuns, quotas: heavy })))).toEqual([
      '/older/task-0',
    ]);
  });

  it('orderTasks and the JobQueue agree on the order with shares (one comparison)', () => {
    const users = ['u0', 'u1', 'u2', 'u3'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ user: fc.integer({ min: 0, max: 3 }), root: fc.integer({ min: 0, max: 5 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        (specs, used, quotas) => {
          const jobs = specs.map((s, i) =>
            job(`/j${i}`, { user: users[s.user]!, rootSubmittedAt: s.root, replicas: 1 + (i % 2) }),
          );
          const snap = snapshot(jobs, [worker('w', { cpu: 8 })], {
            pending: jobs.flatMap((j) => tasksOf(j)),
            usage: new Map(users.map((u, i) => [u, usage({ cpuMillis: used[i]! })])),
            quotas: quotas ? new Map([['u0', quota({ weight: 2 })]]) : new Map(),
          });
          const byTasks = orderTasks(snap.pending, snap.jobs, snapshotShares(snap)).map((t) => t.job);
          const queue = new JobQueue(snap);
          const byJobs: string[] = [];
          for (let q = queue.next(); q; q = queue.next()) byJobs.push(...q.tasks.map((t) => t.job));
          expect(byJobs).toEqual(byTasks);
          if (!quotas) expect(byTasks).toEqual(orderTasks(snap.pending, snap.jobs).map((t) => t.job));
        },
      ),
    );
  });
});
