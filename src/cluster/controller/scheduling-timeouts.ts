/**
 * Scheduling timeouts: a job with `schedulingTimeoutMs` that is still pending that long after
 * its submission becomes UNSCHEDULABLE, with the scheduler's last reason appended.
 *
 * Invariant: after every pass `track` holds the deadline of exactly the jobs that still have
 * pending tasks in the queue and a scheduling timeout; `expire` ends only jobs still PENDING in
 * the store. A job waiting on its dependencies is in no queue, so it does not expire while it
 * waits (a pass never walks it); once released, its deadline is still counted from submission.
 */
import type { ClusterStore, StopOrder } from '../state/store.js';
import { formatDuration } from '../../model/duration.js';
import type { Task } from '../../model/types.js';

export class SchedulingDeadlines {
  private deadlines = new Map<string, number>();

  /**
   * Remember the deadline of every job that still has pending tasks (call after each pass). With
   * `arrived` (the tasks that joined the queue since the last call: controller/ordered-queue.ts),
   * only their jobs are added and the jobs tracked already are checked, not the whole queue.
   */
  track(store: ClusterStore, arrived?: Iterable<Task>): void {
    if (arrived === undefined) {
      this.deadlines.clear();
      this.add(store, store.queuedTasks());
      return;
    }
    const queued = store.queuedTasks();
    for (const name of [...this.deadlines.keys()])
      if (!store.liveTasksOf(name).some((t) => queued.has(t))) this.deadlines.delete(name);
    this.add(store, arrived);
  }

  private add(store: ClusterStore, tasks: Iterable<Task>): void {
    const queued = store.queuedTasks();
    for (const task of tasks) {
      if (this.deadlines.has(task.job) || !queued.has(task)) continue;
      const job = store.job(task.job);
      const timeout = job?.spec.schedulingTimeoutMs;
      if (job && timeout != null) this.deadlines.set(job.name, job.submittedAt + timeout);
    }
  }

  clear(): void {
    this.deadlines.clear();
  }

  /** The earliest deadline, or null when no job has one. */
  next(): number | null {
    let earliest: number | null = null;
    for (const deadline of this.deadlines.values()) if (earliest === null || deadline < earliest) earliest = deadline;
    return earliest;
  }

  /** Mark the jobs past their deadline UNSCHEDULABLE; returns the store's stop orders. */
  expire(store: ClusterStore, now: number): StopOrder[] {
    const expired = [...this.deadlines].filter(([, deadline]) => deadline <= now);
    if (expired.length === 0) return [];
    return store.transaction(() => {
      const out: StopOrder[] = [];
      for (const [name] of expired) {
        const job = store.job(name);
        if (job?.state !== 'PENDING') continue;
        const waited = job.spec.schedulingTimeoutMs ?? 0;
        const why = job.reason ? `: ${job.reason}` : '';
        out.push(
          ...store.markUnschedulable(name, `not scheduled within ${formatDuration(waited, { style: 'short' })}${why}`),
        );
      }
      return out;
    });
  }
}
