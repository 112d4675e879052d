/**
 * Tasks by id, found through their job's entry: no map entry per task (docs/benchmarks.md,
 * "Memory").
 *
 * Guarantees: `get(id)` returns the live task whose id is exactly `id` (`<job>/task-<index>`,
 * model/names.ts taskName), or undefined — never a task of another id (a non-canonical index
 * such as `task-01` finds nothing). `values()` yields every live task, job by job, by index.
 */
import type { Task } from '../../model/types.js';

export class TaskLookup {
  constructor(private readonly jobs: ReadonlyMap<string, { readonly tasks: readonly Task[] }>) {}

  get(id: string): Task | undefined {
    const cut = id.lastIndexOf('/task-');
    if (cut <= 0) return undefined;
    // The index read digit by digit (no substring); only its canonical spelling is accepted (no
    // leading zero, at most 15 digits), so the job and the index name exactly one id.
    const first = cut + 6;
    const digits = id.length - first;
    if (digits === 0 || digits > 15 || (digits > 1 && id.charCodeAt(first) === 48)) return undefined;
    let index = 0;
    for (let i = first; i < id.length; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return undefined;
      index = index * 10 + digit;
    }
    // Checked on the task found (its id is derived, comparing job and index builds no string).
    const job = id.slice(0, cut);
    const task = this.jobs.get(job)?.tasks[index];
    return task !== undefined && task.index === index && task.job === job ? task : undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  *values(): IterableIterator<Task> {
    for (const entry of this.jobs.values()) for (const task of entry.tasks) if (task !== undefined) yield task;
  }
}
