/**
 * The pending queue as jobs, in progress order (order.ts: deepest first, then oldest root). A
 * snapshot marked `pendingOrdered` is read lazily, so a pass costs what it considers rather than
 * the whole queue; otherwise the pending tasks are sorted once and grouped by job.
 */
import { orderTasks } from './order.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import type { QueuedJob } from './allocate.js';

function byIndex(a: SchedulerTask, b: SchedulerTask): number {
  return a.index - b.index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function finish(job: SchedulerJob, tasks: SchedulerTask[]): QueuedJob {
  if (job.coschedule !== null) tasks.sort(byIndex);
  return { job, tasks };
}

export class JobQueue {
  private readonly list: QueuedJob[] | null = null;
  private position = 0;
  /** Index in `snapshot.pending` of the first task of the job `next` returned last (ordered snapshots). */
  lastStart = -1;
  /** True when every pending job can be read (the snapshot was not pre-ordered). */
  readonly complete: boolean;

  constructor(private readonly snapshot: Snapshot) {
    this.complete = snapshot.pendingOrdered !== true;
    if (this.complete) {
      const jobs = snapshot.jobs;
      const ordered = orderTasks(snapshot.pending, jobs);
      // Counted first, so each job's task list is allocated once at its size: with 100,000
      // pending tasks, growing the lists by push left several times their size as garbage per
      // pass (docs/benchmarks.md, "Memory").
      // Indexed loops: an iterator allocates a result per step until the loop is optimized.
      const counts = new Map<string, number>();
      for (let i = 0; i < ordered.length; i++) {
        const job = ordered[i]!.job;
        counts.set(job, (counts.get(job) ?? 0) + 1);
      }
      const byJob = new Map<string, { job: SchedulerJob; tasks: SchedulerTask[]; filled: number }>();
      for (let i = 0; i < ordered.length; i++) {
        const task = ordered[i]!;
        let entry = byJob.get(task.job);
        if (!entry) {
          const job = jobs.get(task.job);
          if (!job) continue;
          byJob.set(task.job, (entry = { job, tasks: new Array<SchedulerTask>(counts.get(task.job)!), filled: 0 }));
        }
        entry.tasks[entry.filled++] = task;
      }
      this.list = [];
      for (const entry of byJob.values()) this.list.push(finish(entry.job, entry.tasks));
    }
  }

  /**
   * Ordered snapshots, before the first `next`: steps over the pending tasks at the head of the
   * queue that are, one by one, the very objects of `head` (a caller that knows those jobs would
   * be skipped anyway: pass.ts, standingHead).
   */
  skipHead(head: readonly SchedulerTask[]): void {
    if (this.list || this.position !== 0) return;
    const pending = this.snapshot.pending;
    const n = Math.min(head.length, pending.length);
    let i = 0;
    while (i < n && pending[i] === head[i]) i++;
    this.position = i;
  }

  /**
   * The next job in queue order, or null at the end. Jobs for which `skip` says true are passed
   * over without building their entry (a pass skips the many jobs it left blocked before).
   */
  next(skip?: (job: string) => boolean): QueuedJob | null {
    if (this.list) {
      while (this.position < this.list.length) {
        const entry = this.list[this.position++]!;
        if (!skip?.(entry.job.name)) return entry;
      }
      return null;
    }
    const pending = this.snapshot.pending;
    const jobs = this.snapshot.jobs;
    while (this.position < pending.length) {
      const first = pending[this.position++]!;
      if (skip?.(first.job)) {
        while (this.position < pending.length && pending[this.position]!.job === first.job) this.position++;
        continue;
      }
      const job = jobs.get(first.job);
      this.lastStart = this.position - 1;
      const tasks = [first];
      while (this.position < pending.length && pending[this.position]!.job === first.job) tasks.push(pending[this.position++]!);
      if (job) return finish(job, tasks);
    }
    return null;
  }
}
