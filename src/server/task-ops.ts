/**
 * Task-level operations (`iris status JOB/task-N`, `iris cancel JOB/task-N`, `iris logs JOB/task-N`): finding one task
 * by name, with a not_found that says how many tasks the job has, and splitting a cancel's names
 * into jobs and tasks. What cancelling a task does is the lifecycle's rule (cluster/lifecycle/jobs.ts cancelTask).
 */
import { notFound, type IrisError } from '../model/errors.js';
import { parseJobName, parseTaskName } from '../model/names.js';
import type { ClusterStore } from '../cluster/state/store.js';
import type { Job, Task } from '../model/types.js';
import type { TaskDetail } from '../api/types.js';
import { archivedTaskInfo } from './views.js';

/**
 * `iris status JOB/task-N` of a job that ended and left memory (state/finished-trees.ts): the task
 * as its newest archived run holds it, as `iris status JOB` reads that run. Null when a live job
 * holds the name, or none was archived (findTask then answers).
 */
export function archivedTaskDetail(store: ClusterStore, name: string): TaskDetail | null {
  const parsed = parseTaskName(name);
  if (!parsed || store.job(parsed.job)) return null;
  const record = store.archive.latest(parsed.job);
  if (!record) return null;
  const info = archivedTaskInfo(record, parsed.index);
  if (!info) throw noSuchTask(record.job.name, parsed.index, record.job.spec.replicas);
  return { job: record.job.name, jobState: record.job.state, replicas: record.job.spec.replicas, ...info };
}

/** `/j/task-3` -> its job and task; IrisError('not_found') for an unknown job or index. */
export function findTask(store: ClusterStore, name: string): { job: Job; task: Task } {
  const parsed = parseTaskName(name);
  if (!parsed)
    throw notFound(`${name.trim()} is not a task name`, 'a task is named JOB/task-N, for example train/task-0');
  const job = store.job(parsed.job);
  if (!job) throw notFound(`unknown job ${parsed.job}`, 'list jobs with `iris jobs`');
  const task = store.task(`${parsed.job}/task-${parsed.index}`);
  if (!task) throw noSuchTask(job.name, parsed.index, job.spec.replicas);
  return { job, task };
}

/**
 * The not_found of a task index a job (`/j`, or a run `/j@2`) does not have, saying how many it has: the one
 * wording of `iris status`, `cancel` and `logs`.
 */
export function noSuchTask(job: string, index: number, tasks: number): IrisError {
  return notFound(
    `job ${job} has no task-${index}`,
    `it has ${tasks} ${tasks === 1 ? 'task: task-0' : `tasks: task-0 … task-${tasks - 1}`}; see \`iris status ${job}\``,
  );
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
