/**
 * The pending queue as jobs, in progress order (order.ts: band, then deepest first, then the user's share when
 * quotas are configured, then oldest root). A
 * snapshot marked `pendingOrdered` is read lazily, so a pass costs what it considers rather than
 * the whole queue; otherwise the pending tasks are grouped by job and the jobs sorted (a job's
 * tasks are sorted only when they come out of order).
 *
 * `leastAhead` bounds what the jobs not read yet ask: no task of theirs asks less cpu, memory or
 * devices than it says (pass.ts ends its walk when no worker has room for that much).
 */
import { devicesNeeded } from '../placement/fit.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import type { QueuedJob } from './allocate.js';
import { compareJobKeys, type Shares } from './order.js';
import { snapshotShares } from './shares.js';

function byIndex(a: SchedulerTask, b: SchedulerTask): number {
  return a.index - b.index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Queue order of two tasks of one job (order.ts, after the job's own keys). */
function compareTasks(a: SchedulerTask, b: SchedulerTask): number {
  if (a.submittedAt !== b.submittedAt) return a.submittedAt - b.submittedAt;
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function inOrder(tasks: readonly SchedulerTask[]): boolean {
  for (let i = 1; i < tasks.length; i++) {
    const a = tasks[i - 1]!,
      b = tasks[i]!;
    if (a.submittedAt > b.submittedAt || (a.submittedAt === b.submittedAt && a.seq >= b.seq)) return false;
  }
  return true;
}

/** Queue order of two jobs (order.ts): band, deeper first, share, older root, then by their first tasks. */
function compareJobs(a: QueuedJob, b: QueuedJob, shares: Shares): number {
  return compareJobKeys(a.job, b.job, shares) || compareTasks(a.tasks[0]!, b.tasks[0]!);
}

function finish(job: SchedulerJob, tasks: SchedulerTask[]): QueuedJob {
  if (job.coschedule !== null) tasks.sort(byIndex);
  return { job, tasks };
}

/** The least each resource is asked by one task of some job (LeastAhead). */
export interface Least {
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
}

/**
 * Per job not read when it was built (by position: a task index, or a list index), the least
 * asked by it and every job after it. Built once, in one pass over the rest of the queue.
 */
class LeastAhead {
  private readonly starts: number[] = [];
  private cpu: number[] = [];
  private mem: number[] = [];
  private dev: number[] = [];
  private at = 0;
  private readonly out: Least = { cpuMillis: Infinity, memoryBytes: Infinity, devices: Infinity };

  add(position: number, job: SchedulerJob): void {
    const r = job.resources;
    this.starts.push(position);
    this.cpu.push(r.cpuMillis);
    this.mem.push(r.memoryBytes);
    this.dev.push(devicesNeeded(r));
  }

  /** After the last `add`: each entry becomes the least over it and the entries after it. */
  close(): void {
    const { cpu, mem, dev } = this;
    for (let k = cpu.length - 2; k >= 0; k--) {
      if (cpu[k + 1]! < cpu[k]!) cpu[k] = cpu[k + 1]!;
      if (mem[k + 1]! < mem[k]!) mem[k] = mem[k + 1]!;
      if (dev[k + 1]! < dev[k]!) dev[k] = dev[k + 1]!;
    }
  }

  /** The least over the jobs starting at or after `position` (positions only grow between calls). */
  from(position: number): Least {
    const { starts, out } = this;
    while (this.at < starts.length && starts[this.at]! < position) this.at++;
    const k = this.at;
    out.cpuMillis = k < starts.length ? this.cpu[k]! : Infinity;
    out.memoryBytes = k < starts.length ? this.mem[k]! : Infinity;
    out.devices = k < starts.length ? this.dev[k]! : Infinity;
    return out;
  }
}

export class JobQueue {
  private readonly list: QueuedJob[] | null = null;
  private position = 0;
  private least: LeastAhead | null = null;
  /** Index in `snapshot.pending` of the first task of the job `next` returned last (ordered snapshots). */
  lastStart = -1;
  /** True when every pending job can be read (the snapshot was not pre-ordered). */
  readonly complete: boolean;

  constructor(private readonly snapshot: Snapshot) {
    this.complete = snapshot.pendingOrdered !== true;
    if (this.complete) {
      const jobs = snapshot.jobs;
      const pending = snapshot.pending;
      // Grouped by job first, then ordered: the tasks of one job share its keys (depth, root), so
      // the queue order (order.ts) is the jobs ordered by their first task, each job's tasks in
      // (submittedAt, seq, id) order. No sort of the whole queue: a job's tasks are checked in one
      // walk (they usually come in order) and only the jobs are sorted; sorting 100,000 tasks per
      // pass left several MB of keys, indices and copies as garbage (docs/benchmarks.md, "Memory").
      // Counted first, so each job's task list is allocated once at its size.
      // Indexed loops: an iterator allocates a result per step until the loop is optimized.
      const counts = new Map<string, number>();
      for (let i = 0; i < pending.length; i++) {
        const job = pending[i]!.job;
        counts.set(job, (counts.get(job) ?? 0) + 1);
      }
      const byJob = new Map<string, QueuedJob & { filled: number }>();
      for (let i = 0; i < pending.length; i++) {
        const task = pending[i]!;
        let entry = byJob.get(task.job);
        if (!entry) {
          const job = jobs.get(task.job);
          if (!job) continue; // unknown: never placed (order.ts sorts it last)
          byJob.set(task.job, (entry = { job, tasks: new Array<SchedulerTask>(counts.get(task.job)!), filled: 0 }));
        }
        entry.tasks[entry.filled++] = task;
      }
      const list: QueuedJob[] = [];
      for (const entry of byJob.values()) {
        if (!inOrder(entry.tasks)) entry.tasks.sort(compareTasks);
        list.push({ job: entry.job, tasks: entry.tasks });
      }
      const shares = snapshotShares(snapshot);
      list.sort((a, b) => compareJobs(a, b, shares));
      for (let i = 0; i < list.length; i++) list[i] = finish(list[i]!.job, list[i]!.tasks);
      this.list = list;
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
   * The least any job `next` has not returned yet asks of each resource, per task (Infinity: no
   * job left). Jobs `skip` would pass over count too (a bound, not an exact value). The first
   * call reads the rest of the queue once (no entries built); later calls cost O(1) amortized. An
   * ordered snapshot with `leastAsked` (a bound over its whole queue) gives that at once.
   * The object returned is reused by the next call.
   */
  leastAhead(): Least {
    // A bound the snapshot's holder keeps over the whole queue (ordered snapshots only).
    const bound = this.snapshot.leastAsked;
    if (bound !== undefined && !this.list) return bound;
    let least = this.least;
    if (least === null) {
      least = this.least = new LeastAhead();
      if (this.list) {
        for (let i = this.position; i < this.list.length; i++) least.add(i, this.list[i]!.job);
      } else {
        const pending = this.snapshot.pending;
        const jobs = this.snapshot.jobs;
        let last = '';
        for (let i = this.position; i < pending.length; i++) {
          const name = pending[i]!.job;
          if (name === last) continue;
          last = name;
          const job = jobs.get(name);
          if (job) least.add(i, job);
        }
      }
      least.close();
    }
    return least.from(this.position);
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
      while (this.position < pending.length && pending[this.position]!.job === first.job)
        tasks.push(pending[this.position++]!);
      if (job) return finish(job, tasks);
    }
    return null;
  }
}
