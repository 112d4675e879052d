/**
 * The queue as the scheduler sees it, as plain data: pending jobs in the order the queue policy
 * considers them, the reserved starts of the last pass, and the policy's settings. The server
 * turns it into the API's QueueInfo (src/server/queue-view.ts). Also the dry-run estimate: when
 * a job would start if submitted now. Read-only: the queue policy's own state is not changed.
 */
import { jobDepth, parentJob } from '../../model/names.js';
import type { JobSpec } from '../../model/types.js';
import type { NamedQueueListing, QueueSet } from '../scheduler/queue/index.js';
import { orderPending, type Snapshot } from '../scheduler/index.js';
import type { ClusterStore } from '../state/store.js';
import { schedulerJob } from '../lifecycle/scheduler-job.js';
import { runtimeEstimate } from '../scheduler/planner/index.js';

export interface QueueListing {
  policy: string;
  queueDepth: number;
  reservationDepth: number;
  /** Jobs with pending tasks, in scheduling order, with how many of their tasks are pending. */
  pending: Array<{ job: string; pendingTasks: number }>;
  /** Reserved start per blocked job, from the last pass. */
  reservations: ReadonlyMap<string, number>;
  /** The named queues in config order (config `queues:`); absent: one queue over every worker. */
  queues?: NamedQueueListing[];
}

/** Pending jobs in scheduling order with their pending task counts. */
export function pendingJobs(snapshot: Snapshot): QueueListing['pending'] {
  const counts = new Map<string, number>();
  for (const task of orderPending(snapshot)) counts.set(task.job, (counts.get(task.job) ?? 0) + 1);
  return [...counts].map(([job, pendingTasks]) => ({ job, pendingTasks }));
}

/** When a job with this spec would start if it were submitted at snapshot.now (null: no time can be given). */
export function estimateStart(
  snapshot: Snapshot,
  store: ClusterStore,
  queue: QueueSet,
  spec: JobSpec,
): { start: number | null; reason: string } {
  const parent = parentJob(spec.name);
  const root = parent ? (store.job(parent)?.rootSubmittedAt ?? snapshot.now) : snapshot.now;
  const job = schedulerJob(
    { name: spec.name, depth: jobDepth(spec.name), rootSubmittedAt: root, seq: Number.MAX_SAFE_INTEGER, spec },
    runtimeEstimate(spec, store.runtimes),
  );
  return queue.estimate(snapshot, job);
}
