/**
 * Task merging (src/cluster/scheduler/placement/merge.ts): which pending tasks join a placed task
 * as one attempt. Table tests for each guarantee of the module header, and a property over random
 * queues: batches hold only equal merge groups (so never two users), never exceed max-batch, never
 * hold a task twice, and the leads are exactly the tasks the pass placed anyway.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MERGE_OPTIONS,
  mergePlan,
  validMergeOptions,
} from '../../../../src/cluster/scheduler/placement/merge.js';
import { mergeGroup } from '../../../../src/model/workload.js';
import { placementOptions } from '../../../../src/cluster/scheduler/placement/registry.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/queue-scheduler.js';
import type { Placement, Plan, SchedulerJob, Snapshot } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot, worker } from '../helpers.js';

const ADAPTIVE = placementOptions();

/** A job in merge group `key` of `user` (what lifecycle/scheduler-job.ts sets from the spec). */
function keyed(name: string, key: string | null, o: { user?: string; cpu?: number; seq?: number } = {}): SchedulerJob {
  const j = job(name, { user: o.user ?? 'alice', cpu: o.cpu ?? 1, seq: o.seq ?? 0 });
  const merge = mergeGroup({ ...j, mergeKey: key, image: null, command: ['serve'] });
  return merge === null ? j : { ...j, merge };
}

function planOf(placed: string[]): Plan {
  const placements: Placement[] = placed.map((task) => ({
    task,
    job: task.slice(0, task.lastIndexOf('/')),
    workerId: 'w0',
    deviceIndices: [],
  }));
  return { placements, reasons: new Map() };
}

describe('mergeGroup', () => {
  const base = { mergeKey: 'k', user: 'alice', image: null, command: ['serve'], constraints: [], coschedule: null };
  const resources = { cpuMillis: 1000, memoryBytes: 1, device: null };
  it('is equal exactly when key, user, image, command, resources and constraints are', () => {
    const a = mergeGroup({ ...base, resources });
    expect(a).not.toBeNull();
    expect(mergeGroup({ ...base, resources: { ...resources } })).toBe(a);
    expect(mergeGroup({ ...base, resources, mergeKey: 'other' })).not.toBe(a);
    expect(mergeGroup({ ...base, resources, user: 'bob' })).not.toBe(a);
    expect(mergeGroup({ ...base, resources, image: 'img' })).not.toBe(a);
    expect(mergeGroup({ ...base, resources, command: ['serve', '-v'] })).not.toBe(a);
    expect(mergeGroup({ ...base, resources: { ...resources, cpuMillis: 2000 } })).not.toBe(a);
  });
  it('is null without a key and for a gang', () => {
    expect(mergeGroup({ ...base, resources, mergeKey: undefined })).toBeNull();
    expect(mergeGroup({ ...base, resources, coschedule: 'tpu-name' })).toBeNull();
  });
});

describe('validMergeOptions', () => {
  it('defaults to enabled, batches of 4; refuses bad values naming the key', () => {
    expect(validMergeOptions()).toEqual(DEFAULT_MERGE_OPTIONS);
    expect(validMergeOptions({ maxBatch: 2 })).toEqual({ enabled: true, maxBatch: 2 });
    expect(() => validMergeOptions({ maxBatch: 0 })).toThrow(/placement\.merge\.max-batch/);
    expect(() => validMergeOptions({ maxBatch: 65 })).toThrow(/placement\.merge\.max-batch/);
    expect(() => validMergeOptions({ maxBatch: 1.5 })).toThrow(/placement\.merge\.max-batch/);
  });
});

describe('mergePlan', () => {
  const jobs = [keyed('/a', 'k', { seq: 1 }), keyed('/b', 'k', { seq: 2 }), keyed('/c', 'k', { seq: 3 })];
  const more = [keyed('/d', 'k', { seq: 4 }), keyed('/e', 'k', { seq: 5 })];

  it('folds the next pending tasks of the same group, in queue order, into the placed one', () => {
    const s = snapshot([...jobs, ...more], [worker('w0')]);
    const plan = mergePlan(s, planOf(['/a/task-0']), ADAPTIVE);
    expect(plan.placements).toEqual([
      expect.objectContaining({ task: '/a/task-0', merged: ['/b/task-0', '/c/task-0', '/d/task-0'] }),
    ]);
  });

  it('never above max-batch, lead included', () => {
    const s = snapshot([...jobs, ...more], [worker('w0')]);
    const two = placementOptions({ merge: { maxBatch: 2 } });
    expect(mergePlan(s, planOf(['/a/task-0']), two).placements[0]!.merged).toEqual(['/b/task-0']);
    const one = placementOptions({ merge: { maxBatch: 1 } });
    expect(mergePlan(s, planOf(['/a/task-0']), one).placements[0]!.merged).toBeUndefined();
  });

  it('a task the pass placed later joins an earlier batch and loses its own placement', () => {
    const s = snapshot(jobs, [worker('w0')]);
    const plan = mergePlan(s, planOf(['/a/task-0', '/c/task-0']), ADAPTIVE);
    expect(plan.placements.map((p) => [p.task, p.merged])).toEqual([['/a/task-0', ['/b/task-0', '/c/task-0']]]);
  });

  it('never across users, keys or resources; never for jobs without a key', () => {
    const s = snapshot(
      [
        keyed('/a', 'k', { seq: 1 }),
        keyed('/bob', 'k', { user: 'bob', seq: 2 }),
        keyed('/other', 'x', { seq: 3 }),
        keyed('/big', 'k', { cpu: 2, seq: 4 }),
        keyed('/none', null, { seq: 5 }),
      ],
      [worker('w0')],
    );
    expect(mergePlan(s, planOf(['/a/task-0']), ADAPTIVE).placements[0]!.merged).toBeUndefined();
    expect(mergePlan(s, planOf(['/none/task-0']), ADAPTIVE).placements[0]!.merged).toBeUndefined();
  });

  it('never when disabled or under another placement mode', () => {
    const s = snapshot(jobs, [worker('w0')]);
    const off = placementOptions({ merge: { enabled: false } });
    expect(mergePlan(s, planOf(['/a/task-0']), off).placements[0]!.merged).toBeUndefined();
    for (const mode of ['first-fit', 'static-worker', 'round-robin'] as const) {
      expect(mergePlan(s, planOf(['/a/task-0']), placementOptions({ mode })).placements[0]!.merged).toBeUndefined();
    }
  });

  it('a sticky job, a preemptor or a claimant is never a member', () => {
    const sticky = { ...keyed('/b', 'k', { seq: 2 }), sticky: { workerId: 'w0', parent: '/p' } };
    const s = snapshot([jobs[0]!, sticky, jobs[2]!], [worker('w0')]);
    const plan = planOf(['/a/task-0']);
    plan.preemptions = [
      { job: '/c', band: 'production', victims: [], workers: [], need: { cpuMillis: 0, memoryBytes: 0, devices: 0 } },
    ];
    expect(mergePlan(s, plan, ADAPTIVE).placements[0]!.merged).toBeUndefined();
    const claimed: Snapshot = {
      ...snapshot(jobs, [worker('w0')]),
      claims: [{ job: '/b', workerId: 'w0', amount: { cpuMillis: 1000, memoryBytes: 0, devices: 0 } }],
    };
    expect(mergePlan(claimed, planOf(['/a/task-0']), ADAPTIVE).placements[0]!.merged).toEqual(['/c/task-0']);
  });

  it('the queue scheduler merges: one worker with room for one task starts the first with three members', () => {
    const s = snapshot([...jobs, ...more], [worker('w0', { cpu: 1 })]);
    const plan = new QueueScheduler({}, ADAPTIVE).pass(s);
    expect(plan.placements.map((p) => [p.task, p.merged])).toEqual([
      ['/a/task-0', ['/b/task-0', '/c/task-0', '/d/task-0']],
    ]);
    const firstFit = new QueueScheduler({}, placementOptions({ mode: 'first-fit' })).pass(s);
    expect(firstFit.placements.map((p) => [p.task, p.merged])).toEqual([['/a/task-0', undefined]]);
  });

  it('property: equal groups only, at most max-batch, no task twice, leads are the placed tasks', () => {
    const arb = fc.record({
      specs: fc.array(fc.record({ key: fc.constantFrom('k', 'x', null), user: fc.constantFrom('alice', 'bob') }), {
        minLength: 1,
        maxLength: 12,
      }),
      placed: fc.array(fc.nat(11), { maxLength: 6 }),
      maxBatch: fc.integer({ min: 1, max: 5 }),
    });
    fc.assert(
      fc.property(arb, ({ specs, placed, maxBatch }) => {
        const all = specs.map((sp, i) => keyed(`/j${i}`, sp.key, { user: sp.user, seq: i }));
        const s = snapshot(all, [worker('w0')]);
        const chosen = [...new Set(placed.filter((i) => i < all.length))].map((i) => `/j${i}/task-0`);
        const plan = mergePlan(s, planOf(chosen), placementOptions({ merge: { maxBatch } }));
        const seen = new Set<string>();
        const groupOf = (task: string) => s.jobs.get(task.slice(0, task.lastIndexOf('/')))!;
        for (const p of plan.placements) {
          expect(chosen).toContain(p.task);
          const batch = [p.task, ...(p.merged ?? [])];
          expect(batch.length).toBeLessThanOrEqual(maxBatch);
          for (const t of batch) {
            expect(seen.has(t)).toBe(false);
            seen.add(t);
            if (t !== p.task) {
              expect(groupOf(t).merge).toBeDefined();
              expect(groupOf(t).merge).toBe(groupOf(p.task).merge);
              expect(groupOf(t).user).toBe(groupOf(p.task).user);
            }
          }
        }
        // Every placed task is started: as a lead, or as a member of an earlier batch.
        for (const t of chosen) expect(seen.has(t)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
