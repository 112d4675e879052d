/**
 * The simulator's pending tasks, kept in queue order (the scheduler's own comparator,
 * `comparePending`), so a snapshot can say `pendingOrdered` and a pass reads only as far as it
 * needs. Arrivals in FCFS order append in O(1); placed tasks leave in one compaction per pass.
 * Which tasks are still pending is their state (the lifecycle's, state.ts): a task placed since the
 * last compaction is ASSIGNED or RUNNING by then, and leaves the list.
 */
import { comparePending } from '../cluster/scheduler/queue/order.js';
import type { SchedulerJob } from '../cluster/scheduler/types.js';
import type { Task } from '../model/types.js';

export class PendingQueue {
  /** In queue order; may still hold tasks taken since the last `compact`. */
  private list: Task[] = [];
  private count = 0;
  /** Tasks taken since the last `compact`. */
  private taken = 0;

  constructor(private readonly jobs: ReadonlyMap<string, SchedulerJob>) {}

  get size(): number {
    return this.count;
  }

  /** The pending tasks in queue order (call `compact` after `take`s first). */
  tasks(): Task[] {
    return this.list;
  }

  /** Insert one job's tasks (PENDING, adjacent) at their place in queue order; its job must be in `jobs`. */
  add(tasks: Task[]): void {
    this.count += tasks.length;
    const list = this.list;
    const first = tasks[0]!;
    let lo = 0;
    let hi = list.length;
    if (hi > 0 && comparePending(list[hi - 1]!, first, this.jobs) < 0) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePending(list[mid]!, first, this.jobs) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === list.length) for (const task of tasks) list.push(task);
    else list.splice(lo, 0, ...tasks);
  }

  /** A pending task was placed (its state leaves PENDING before the next `compact`). */
  take(): void {
    this.count--;
    this.taken++;
  }

  /**
   * Removes taken tasks from the list in place (order kept; a new array per pass cost more).
   * Placed tasks sit mostly near the head (the pass reads from there): the list is searched
   * only until every task taken since the last compaction is found, and the rest moves down.
   */
  compact(): void {
    const list = this.list;
    const n = list.length;
    let left = this.taken;
    let kept = 0;
    let i = 0;
    for (; i < n && left > 0; i++) {
      const task = list[i]!;
      if (task.state === 'PENDING') list[kept++] = task;
      else left--;
    }
    if (kept < i) {
      for (; i < n; i++) list[kept++] = list[i]!;
      list.length = kept;
    }
    this.taken = 0;
  }
}
