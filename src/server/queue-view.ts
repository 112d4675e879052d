/**
 * What the queue looks like to a user (`iris queue`): the controller's plain QueueListing
 * (pending jobs in the order the scheduler considers them, reservations, policy) turned into
 * the API's QueueInfo with each job's details from the store, then the jobs whose pending tasks
 * all wait out a retry backoff (not in a pass yet; their reason says how long), each with the
 * duration the planner plans its tasks with (predicted or its limit). Pure reads.
 */
import type { QueueInfo, RuntimeEstimateInfo } from '../api/types.js';
import { runtimeEstimate } from '../cluster/scheduler/planner/index.js';
import type { RuntimeEstimate } from '../cluster/scheduler/planner/index.js';
import type { QueueListing } from '../cluster/controller/queue-listing.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { jobReason } from './pending-reason.js';
import { bandOf } from '../model/band.js';

export function queueInfo(state: QueueListing, store: ClusterStore, now: number): QueueInfo {
  const { policy, queueDepth, reservationDepth } = state;
  const listed = new Set(state.pending.map((p) => p.job));
  // Jobs whose every pending task waits out a retry backoff are not the scheduler's yet: last.
  const backoff = new Map<string, number>();
  for (const task of store.pendingTasks()) {
    if (listed.has(task.job) || task.eligibleAt === null || task.eligibleAt <= now) continue;
    backoff.set(task.job, (backoff.get(task.job) ?? 0) + 1);
  }
  const entries = [...state.pending, ...[...backoff].map(([job, pendingTasks]) => ({ job, pendingTasks }))];
  const jobs = entries.map(({ job: name, pendingTasks }, i) => {
    const job = store.job(name)!;
    return {
      position: i + 1,
      job: name,
      user: job.spec.user,
      band: bandOf(job.spec),
      depth: job.depth,
      pendingTasks,
      submittedAt: job.submittedAt,
      timeLimitMs: job.spec.timeoutMs,
      estimate: estimateInfo(runtimeEstimate(job.spec, store.runtimes)),
      reason: jobReason(store, job, store.tasksOf(name), now),
      reservedStart: state.reservations.get(name) ?? null,
    };
  });
  return { policy, queueDepth, reservationDepth, jobs };
}

/** The planner's estimate of a job's task duration as the API gives it (`iris queue`, `--dry-run`). */
export function estimateInfo(estimate: RuntimeEstimate): RuntimeEstimateInfo {
  const { duration, source, runs } = estimate;
  return { durationMs: Number.isFinite(duration) ? duration : null, source, runs };
}
