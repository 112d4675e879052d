/**
 * Why a pending task waits, in words, for every view that shows one (`status`, `jobs`, `queue`):
 * - a task waiting out its retry backoff: `retry 2/3 in 8s (backoff)`, counted from `now` when
 *   the view is built (the stored fact is the task's `eligibleAt`, never the relative text);
 * - a task of a job waiting on its dependencies: `waiting for /prep (RUNNING)` (store.dependencyWait,
 *   from the dependency's state now);
 * - any other pending task: the last pass's reason for its job (store.waitingReason), which a
 *   partly running array has too, else the PENDING job's stored reason;
 * - a retried task keeps its own `retrying after exit 1` in front.
 * A job with pending tasks gets the reason of its first waiting task; a RUNNING one says how
 * many tasks still wait: `2 pending: need 2 CPU, largest free worker has 1`.
 */
import type { ClusterStore } from '../cluster/state/store.js';
import { formatDuration } from '../model/duration.js';
import type { Job, Task } from '../model/types.js';

/**
 * What a view shows of a job no pass has looked at yet: a new one, or one deep in a long queue (a
 * pass reads the queue in order only as far as the free capacity lets jobs start: pass-loop.ts).
 */
export const NOT_YET_CONSIDERED = 'queued: no scheduling pass has reached it yet';

function backoffText(job: Job, task: Task, now: number): string {
  // Whole seconds, rounded up: a wait of 7.6s left reads `8s`, never `0s` while it still waits.
  const left = formatDuration(Math.ceil(Math.max(0, task.eligibleAt! - now) / 1000) * 1000, { style: 'short' });
  return `retry ${task.failures}/${job.spec.maxRetries} in ${left} (backoff)`;
}

function inBackoff(task: Task, now: number): boolean {
  return task.eligibleAt !== null && task.eligibleAt > now;
}

/** The scheduler's reason for `job`'s pending tasks that are not in a backoff. */
function schedulerReason(store: ClusterStore, job: Job): string {
  return (
    store.dependencyWait(job.name) ??
    store.waitingReason(job.name) ??
    (job.state === 'PENDING' ? job.reason : null) ??
    NOT_YET_CONSIDERED
  );
}

/** The reason shown for one task: its pending reason when PENDING, else its own. */
export function taskReason(store: ClusterStore, job: Job, task: Task, now: number): string | null {
  if (task.state !== 'PENDING') return task.reason;
  const why = inBackoff(task, now) ? backoffText(job, task, now) : schedulerReason(store, job);
  return task.reason ? `${task.reason}; ${why}` : why;
}

/** The reason shown for a job: its own, or, while it has pending tasks, why they wait. */
export function jobReason(store: ClusterStore, job: Job, tasks: readonly Task[], now: number): string | null {
  if (job.state !== 'PENDING' && job.state !== 'RUNNING') return job.reason;
  let count = 0;
  let first: Task | null = null;
  for (const task of tasks) {
    if (task.state !== 'PENDING') continue;
    count++;
    // A task the scheduler considers speaks for the job before one in a backoff.
    if (first === null || (inBackoff(first, now) && !inBackoff(task, now))) first = task;
  }
  if (first === null) return job.reason;
  const why = inBackoff(first, now) ? backoffText(job, first, now) : schedulerReason(store, job);
  return job.state === 'RUNNING' ? `${count} pending: ${why}` : why;
}
