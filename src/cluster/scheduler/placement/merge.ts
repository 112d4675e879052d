/**
 * Task merging (seed 003's adaptive dispatcher; docs/architecture.md, "Task merging"): the one
 * home of the rule that folds ready tasks into one attempt, and of its options.
 *
 * Guarantees of `mergePlan(snapshot, plan, profile)`:
 * - It merges only under the adaptive placement mode with `merge.enabled`; otherwise the plan is
 *   returned as it is.
 * - Only jobs that opted in (`--merge-key`) take part, and only tasks of jobs in the same merge
 *   group (SchedulerJob.merge, model/workload.ts mergeGroup: equal key, user, image, command,
 *   resources and constraints; never a gang)
 *   are folded together. Their data (env, task index) may differ.
 * - The lead of a batch is a task the pass placed anyway, on the worker the pass chose, with the
 *   resources of one task; its members are the next pending tasks of its group in queue order
 *   (orderPending), tasks the pass placed later included (their own placements are dropped, so
 *   they are never started twice). A task is in at most one batch, a batch never has more than
 *   `merge.maxBatch` tasks, and a sticky job, a preemptor or a claimant is never a member.
 * - Pure: the same snapshot and plan give the same batches.
 */
import { invalid } from '../../../model/errors.js';
import { orderPending } from '../queue/order.js';
import type { Placement, Plan, Snapshot } from '../types.js';

export interface MergeOptions {
  /** `placement.merge.enabled` (default true): merging happens at all (under the adaptive mode only). */
  enabled: boolean;
  /** `placement.merge.max-batch` (default 4): the most tasks one merged attempt serves, its lead included. */
  maxBatch: number;
}

/** Seed 003's reference batch size is 4. */
export const DEFAULT_MERGE_OPTIONS: Readonly<MergeOptions> = Object.freeze({ enabled: true, maxBatch: 4 });

/** The largest batch allowed: one attempt's data file and environment stay small. */
export const MAX_MERGE_BATCH = 64;

/** Merge options with defaults filled in; an IrisError naming the key for a bad value. */
export function validMergeOptions(given: Partial<MergeOptions> = {}): MergeOptions {
  const enabled = given.enabled ?? DEFAULT_MERGE_OPTIONS.enabled;
  if (typeof enabled !== 'boolean') {
    throw invalid(
      `placement.merge.enabled must be true or false, got ${String(enabled)}`,
      'for example enabled: false',
    );
  }
  const maxBatch = given.maxBatch ?? DEFAULT_MERGE_OPTIONS.maxBatch;
  if (typeof maxBatch !== 'number' || !Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_MERGE_BATCH) {
    throw invalid(
      `placement.merge.max-batch must be a whole number from 1 to ${MAX_MERGE_BATCH}, got ${String(maxBatch)}`,
      'for example max-batch: 4 (1 turns merging off)',
    );
  }
  return { enabled, maxBatch };
}

/** What the rule reads of the placement profile. */
export interface MergeProfile {
  mode: string;
  merge?: MergeOptions;
}

/** True when `profile` merges at all: adaptive mode, merging enabled, batches above one task. */
export function merges(profile: MergeProfile): boolean {
  const options = profile.merge ?? DEFAULT_MERGE_OPTIONS;
  return profile.mode === 'adaptive' && options.enabled && options.maxBatch > 1;
}

/**
 * `plan` with its merged batches (Placement.merged): see the module header. The placements keep
 * their order; a placement folded into an earlier batch is left out.
 */
export function mergePlan(snapshot: Snapshot, plan: Plan, profile: MergeProfile): Plan {
  if (!merges(profile) || plan.placements.length === 0) return plan;
  const groupOf = (job: string) => snapshot.jobs.get(job)?.merge ?? null;
  if (!plan.placements.some((p) => groupOf(p.job) !== null)) return plan;
  const maxBatch = (profile.merge ?? DEFAULT_MERGE_OPTIONS).maxBatch;
  // Preemptors and claimants start where their victims' capacity is: never as another task's member.
  const preemptors = new Set([
    ...(plan.preemptions ?? []).map((p) => p.job),
    ...(snapshot.claims ?? []).map((c) => c.job),
  ]);
  // Pending tasks that may join a batch, per group, in queue order.
  const waiting = new Map<string, string[]>();
  for (const task of orderPending(snapshot)) {
    const job = snapshot.jobs.get(task.job);
    const group = job?.merge ?? null;
    if (group === null || job?.sticky || preemptors.has(task.job)) continue;
    let list = waiting.get(group);
    if (!list) waiting.set(group, (list = []));
    list.push(task.id);
  }
  const taken = new Set<string>();
  const placements: Placement[] = [];
  for (const placement of plan.placements) {
    if (taken.has(placement.task)) continue;
    taken.add(placement.task);
    const group = groupOf(placement.job);
    const list = group === null ? undefined : waiting.get(group);
    const members: string[] = [];
    for (const id of list ?? []) {
      if (members.length + 1 >= maxBatch) break;
      if (taken.has(id)) continue;
      taken.add(id);
      members.push(id);
    }
    placements.push(members.length === 0 ? placement : { ...placement, merged: members });
  }
  return { ...plan, placements };
}
