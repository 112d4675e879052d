/**
 * What the queue looks like to a user (`iris queue`): the controller's plain QueueListing
 * (pending jobs in the order the scheduler considers them, reservations, policy) turned into
 * the API's QueueInfo with each job's details from the store. Pure reads.
 */
import type { QueueInfo } from '../api/types.js';
import type { QueueListing } from '../cluster/controller/queue-listing.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { jobReason } from './pending-reason.js';

export function queueInfo(state: QueueListing, store: ClusterStore, now: number): QueueInfo {
  const { policy, queueDepth, reservationDepth } = state;
  const jobs = state.pending.map(({ job: name, pendingTasks }, i) => {
    const job = store.job(name)!;
    return {
      position: i + 1,
      job: name,
      user: job.spec.user,
      depth: job.depth,
      pendingTasks,
      submittedAt: job.submittedAt,
      timeLimitMs: job.spec.timeoutMs,
      reason: jobReason(store, job, store.tasksOf(name), now),
      reservedStart: state.reservations.get(name) ?? null,
    };
  });
  return { policy, queueDepth, reservationDepth, jobs };
}
