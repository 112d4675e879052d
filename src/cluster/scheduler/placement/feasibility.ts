/**
 * Submit-time feasibility: would this job be refused because no worker of the cluster could
 * ever run it, even completely idle? Uses total capacity, not free capacity. Disabled workers
 * count as present (they may be enabled again). Draining workers
 * count as absent; but when every worker is draining the job is not refused (it stays pending
 * with a reason) since the cluster may be refilled. A cluster with no workers refuses.
 */
import { explainJob } from './explain.js';
import type { SchedulerJob, WorkerView } from '../types.js';

/** Reason the job can never run on `workers`, or null when it can (or might later). */
export function neverReason(job: SchedulerJob, all: readonly WorkerView[]): string | null {
  const workers = presentWorkers(all);
  if (workers.length > 0 && !workers.some((w) => w.schedulable)) return null;
  return explainJob(job, job.coschedule !== null ? job.replicas : 1, { workers });
}

/**
 * The workers as questions about "ever" see them: a disabled worker may be enabled again (by the
 * user, or by the elastic coordinator when work queues up), so it counts as schedulable there
 * (submit-time feasibility, deadlocks). The same array when none is disabled.
 */
export function presentWorkers(workers: readonly WorkerView[]): readonly WorkerView[] {
  return workers.some((w) => w.disabled) ? workers.map((w) => (w.disabled ? { ...w, schedulable: true } : w)) : workers;
}
