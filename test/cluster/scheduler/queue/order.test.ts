import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderPending } from '../../../../src/cluster/scheduler/index.js';
import { comparePending, orderTasks } from '../../../../src/cluster/scheduler/queue/order.js';
import type { SchedulerTask } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot } from '../helpers.js';
import { JobQueue } from '../../../../src/cluster/scheduler/queue/job-queue.js';
import { BANDS, bandRank } from '../../../../src/model/band.js';

const task = (jobName: string, index: number, submittedAt: number, seq: number): SchedulerTask => ({
  id: `${jobName}/task-${index}`,
  job: jobName,
  index,
  submittedAt,
  seq,
});

describe('queue order (seed 000)', () => {
  it('orders the seed example: deeper first, then older trees, then FIFO', () => {
    const jobs = [
      job('/train', { rootSubmittedAt: 0 }),
      job('/train/eval-1', { rootSubmittedAt: 0 }),
      job('/train/eval-2', { rootSubmittedAt: 0 }),
      job('/inference', { rootSubmittedAt: 2 }),
      job('/train/eval-1/score', { rootSubmittedAt: 0 }),
    ];
    const pending = [
      task('/inference', 0, 2, 4),
      task('/train', 0, 0, 1),
      task('/train/eval-2', 0, 1, 3),
      task('/train/eval-1/score', 0, 3, 5),
      task('/train/eval-1', 0, 1, 2),
    ];
    const order = orderPending(snapshot(jobs, [], { pending })).map((t) => t.job);
    expect(order).toEqual(['/train/eval-1/score', '/train/eval-1', '/train/eval-2', '/train', '/inference']);
  });

  it('a child of an older tree beats a root of a newer tree at the same depth only by depth', () => {
    const jobs = [
      job('/old', { rootSubmittedAt: 1000 }),
      job('/new', { rootSubmittedAt: 2000 }),
      job('/old/child', { rootSubmittedAt: 1000 }),
    ];
    const pending = [task('/new', 0, 2000, 2), task('/old', 0, 1000, 1), task('/old/child', 0, 3000, 3)];
    expect(orderPending(snapshot(jobs, [], { pending })).map((t) => t.job)).toEqual(['/old/child', '/old', '/new']);
  });

  it('at equal depth the older tree wins even when its child was submitted later', () => {
    const jobs = [job('/a/x', { rootSubmittedAt: 10 }), job('/b/y', { rootSubmittedAt: 5 })];
    const pending = [task('/a/x', 0, 1, 1), task('/b/y', 0, 50, 2)];
    expect(orderPending(snapshot(jobs, [], { pending })).map((t) => t.job)).toEqual(['/b/y', '/a/x']);
  });

  it('orders band first: a batch child of an old tree waits behind a new interactive root, production leads', () => {
    const jobs = [
      { ...job('/old', { rootSubmittedAt: 0 }), band: 'batch' as const },
      { ...job('/old/deep', { rootSubmittedAt: 0 }), band: 'batch' as const },
      job('/new', { rootSubmittedAt: 50 }),
      { ...job('/urgent', { rootSubmittedAt: 90 }), band: 'production' as const },
    ];
    const pending = [
      task('/old', 0, 0, 1),
      task('/old/deep', 0, 10, 2),
      task('/new', 0, 50, 3),
      task('/urgent', 0, 90, 4),
    ];
    const order = orderPending(snapshot(jobs, [], { pending })).map((t) => t.job);
    expect(order).toEqual(['/urgent', '/new', '/old/deep', '/old']);
  });

  it('property: bands never interleave, and within a band deeper jobs come first', () => {
    const names = ['/a', '/b', '/a/c', '/a/c/d', '/b/e'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...BANDS), { minLength: names.length, maxLength: names.length }),
        fc.array(fc.record({ job: fc.constantFrom(...names), submittedAt: fc.nat(5), seq: fc.nat(5) }), {
          maxLength: 30,
        }),
        (bands, raw) => {
          const jobs = new Map(names.map((n, i) => [n, { ...job(n), band: bands[i]! }]));
          const ordered = orderTasks(
            raw.map((r, i) => task(r.job, i, r.submittedAt, r.seq)),
            jobs,
          );
          for (let i = 1; i < ordered.length; i++) {
            const a = jobs.get(ordered[i - 1]!.job)!;
            const b = jobs.get(ordered[i]!.job)!;
            expect(bandRank(a.band)).toBeLessThanOrEqual(bandRank(b.band));
            if (a.band === b.band) expect(a.depth).toBeGreaterThanOrEqual(b.depth);
          }
        },
      ),
    );
  });

  it('breaks ties on seq, then id', () => {
    const jobs = [job('/j')];
    const pending = [task('/j', 2, 5, 9), task('/j', 0, 5, 7), task('/j', 1, 5, 8)];
    expect(orderPending(snapshot(jobs, [], { pending })).map((t) => t.index)).toEqual([0, 1, 2]);
  });

  it('a retried task keeps its place because its submittedAt is unchanged', () => {
    const jobs = [job('/j', { rootSubmittedAt: 0, replicas: 3 })];
    // task-0 failed and was requeued later (new seq) but keeps submittedAt 100.
    const pending = [task('/j', 1, 200, 11), task('/j', 2, 300, 12), task('/j', 0, 100, 50)];
    expect(orderPending(snapshot(jobs, [], { pending })).map((t) => t.index)).toEqual([0, 1, 2]);
  });

  it('tasks of unknown jobs sort last', () => {
    const jobs = [job('/known')];
    const pending = [task('/ghost', 0, 0, 0), task('/known', 0, 99, 1)];
    expect(orderPending(snapshot(jobs, [], { pending })).map((t) => t.job)).toEqual(['/known', '/ghost']);
  });

  it('does not mutate the pending array', () => {
    const jobs = [job('/a'), job('/a/b')];
    const pending = [task('/a', 0, 0, 0), task('/a/b', 0, 1, 1)];
    const copy = [...pending];
    orderPending(snapshot(jobs, [], { pending }));
    expect(pending).toEqual(copy);
  });

  it('property: orderTasks agrees with comparePending and is a permutation', () => {
    const names = ['/a', '/b', '/a/c', '/a/c/d', '/b/e'];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: names.length, maxLength: names.length }),
        fc.array(
          fc.record({
            job: fc.constantFrom(...names),
            submittedAt: fc.integer({ min: 0, max: 5 }),
            seq: fc.integer({ min: 0, max: 5 }),
          }),
          { maxLength: 40 },
        ),
        (roots, raw) => {
          const jobs = new Map(names.map((n, i) => [n, job(n, { rootSubmittedAt: roots[i]! })]));
          const pending = raw.map((r, i) => task(r.job, i, r.submittedAt, r.seq));
          const ordered = orderTasks(pending, jobs);
          expect([...ordered].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(
            [...pending].sort((x, y) => (x.id < y.id ? -1 : 1)),
          );
          for (let i = 1; i < ordered.length; i++)
            expect(comparePending(ordered[i - 1]!, ordered[i]!, jobs)).toBeLessThanOrEqual(0);
          for (let i = 1; i < ordered.length; i++) {
            expect(jobs.get(ordered[i - 1]!.job)!.depth).toBeGreaterThanOrEqual(jobs.get(ordered[i]!.job)!.depth);
          }
        },
      ),
    );
  });

  it(
    'property: the job queue lists the jobs in the order of their first task in orderTasks, each with its tasks in ' +
      'that order',
    () => {
      const names = ['/a', '/b', '/a/c', '/a/c/d', '/b/e'];
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 5 }), { minLength: names.length, maxLength: names.length }),
          fc.array(
            fc.record({
              job: fc.constantFrom(...names, '/ghost'),
              submittedAt: fc.integer({ min: 0, max: 5 }),
              seq: fc.integer({ min: 0, max: 5 }),
            }),
            { maxLength: 40 },
          ),
          fc.array(fc.constantFrom(...BANDS), { minLength: names.length, maxLength: names.length }),
          (roots, raw, bands) => {
            const jobs = names.map((n, i) => ({ ...job(n, { rootSubmittedAt: roots[i]! }), band: bands[i]! }));
            const pending = raw.map((r, i) => task(r.job, i, r.submittedAt, r.seq));
            const expected: { job: string; tasks: string[] }[] = [];
            for (const t of orderTasks(pending, new Map(jobs.map((j) => [j.name, j])))) {
              if (t.job === '/ghost') continue; // unknown: never listed
              const entry = expected.find((e) => e.job === t.job);
              if (entry) entry.tasks.push(t.id);
              else expected.push({ job: t.job, tasks: [t.id] });
            }
            const queue = new JobQueue(snapshot(jobs, [], { pending }));
            const listed: { job: string; tasks: string[] }[] = [];
            for (let q = queue.next(); q !== null; q = queue.next())
              listed.push({ job: q.job.name, tasks: q.tasks.map((t) => t.id) });
            expect(listed).toEqual(expected);
          },
        ),
      );
    },
  );
});
