/**
 * What the queue looks like to a user: pending jobs in the order the scheduler considers them
 * (`iris queue`), and a job's estimated start without submitting it (`iris submit --dry-run`).
 * Read-only over a snapshot and the store; the queue policy's own state is not changed.
 */
import type { QueueEntry } from '../api/types.js';
import { jobDepth, parentJob } from '../model/names.js';
import type { JobSpec } from '../model/types.js';
import type { QueueScheduler } from '../cluster/scheduler/queue/index.js';
import { orderPending, type Snapshot } from '../cluster/scheduler/index.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { schedulerJob } from '../cluster/controller/snapshot.js';

/** Pending jobs in scheduling order, with the reserved start of the last pass where there is one. */
export function queueEntries(snapshot: Snapshot, store: ClusterStore, reservations: ReadonlyMap<string, number>): QueueEntry[] {
  const counts = new Map<string, number>();
  for (const task of orderPending(snapshot)) counts.set(task.job, (counts.get(task.job) ?? 0) + 1);
  let position = 0;
  return [...counts].map(([name, pendingTasks]) => {
    const job = store.job(name)!;
    return {
      position: ++position,
      job: name,
      user: job.spec.user,
      depth: job.depth,
      pendingTasks,
      submittedAt: job.submittedAt,
      timeLimitMs: job.spec.timeoutMs,
      reason: job.reason,
      reservedStart: reservations.get(name) ?? null,
    };
  });
}

/** When a job with this spec would start if it were submitted at snapshot.now (null: no time can be given). */
export function estimateStart(snapshot: Snapshot, store: ClusterStore, queue: QueueScheduler, spec: JobSpec): { start: number | null; reason: string } {
  const parent = parentJob(spec.name);
  const root = parent ? store.job(parent)?.rootSubmittedAt ?? snapshot.now : snapshot.now;
  const job = schedulerJob({ name: spec.name, depth: jobDepth(spec.name), rootSubmittedAt: root, seq: Number.MAX_SAFE_INTEGER, spec });
  return queue.estimate(snapshot, job);
}
