/**
 * Task-level operations (`iris status JOB/task-N`, `iris cancel JOB/task-N`): finding one task
 * by name, with a not_found that says how many tasks the job has, and splitting a cancel's names
 * into jobs and tasks. What cancelling a task does is the lifecycle's rule (cluster/lifecycle/jobs.ts cancelTask).
 */
import { notFound } from '../model/errors.js';
import { parseJobName, parseTaskName } from '../model/names.js';
import type { ClusterStore } from '../cluster/state/store.js';
import type { Job, Task } from '../model/types.js';

/** `/j/task-3` -> its job and task; IrisError('not_found') for an unknown job or index. */
export function findTask(store: ClusterStore, name: string): { job: Job; task: Task } {
  const parsed = parseTaskName(name);
  if (!parsed)
    throw notFound(`${name.trim()} is not a task name`, 'a task is named JOB/task-N, for example train/task-0');
  const job = store.job(parsed.job);
  if (!job) throw notFound(`unknown job ${parsed.job}`, 'list jobs with `iris jobs`');
  const task = store.task(`${parsed.job}/task-${parsed.index}`);
  if (!task) {
    const n = job.spec.replicas;
    throw notFound(
      `job ${job.name} has no task-${parsed.index}`,
      `it has ${n} ${n === 1 ? 'task: task-0' : `tasks: task-0 … task-${n - 1}`}; see \`iris status ${job.name}\``,
    );
  }
  return { job, task };
}

/** A cancel's names, canonical and without repeats, split into job names and task names. */
export function splitNames(names: readonly string[]): { jobs: string[]; tasks: string[] } {
  const jobs = new Set<string>();
  const tasks = new Set<string>();
  for (const name of names) {
    const task = parseTaskName(name);
    if (task) tasks.add(`${task.job}/task-${task.index}`);
    else jobs.add(parseJobName(name));
  }
  return { jobs: [...jobs], tasks: [...tasks] };
}
