/**
 * Submission rules: which names may be (re)used, how a job and its tasks are built.
 *
 * - A name held by a non-final job, or by a final job with a non-final job below it, is refused
 *   (conflict; replacedBySubmit). A final job of the same name is replaced together with its
 *   subtree: each job of it leaves the live model and is archived as a run (archive.ts), with its
 *   tasks and attempts; nothing of it is lost.
 * - Every job gets a new run id from the persisted counter `meta.run` (the last id handed out):
 *   1, 2, 3, … over the cluster's life, children included; ids are never reused.
 * - A known parent in a final state refuses new children, also one archived when it finished
 *   (finished-trees.ts); an unknown parent is allowed (orphan, its own tree root for ordering).
 * - `seq` values come from the persisted counter `meta.seq` (the last value handed out): the
 *   job takes the next one, its tasks the following ones, in index order.
 * - The tasks are `TaskRecord`s of one `TaskGroup` (task-record.ts): pending, never started.
 */
import { conflict, invalid } from '../../model/errors.js';
import { jobDepth, parentJob, parseJobName } from '../../model/names.js';
import { isFinalJobState, type JobState } from '../../model/states.js';
import type { Job, JobSpec, Task } from '../../model/types.js';
import type { ClusterModel } from './model.js';
import type { ArchivedRun } from './archive.js';
import { TaskGroup, TaskRecord } from './task-record.js';

export interface PreparedSubmit {
  job: Job;
  tasks: Task[];
  /** Existing jobs (a finished job of the same name and its subtree) to archive and remove first. */
  replaces: string[];
  /** The archived runs of `replaces`, in the same order. */
  archive: ArchivedRun[];
  /** New value of the `run` counter. */
  nextRun: number;
  /** New value of the `seq` counter. */
  nextSeq: number;
}

/** `name` followed by all jobs below it, parents before children. */
export function subtreeOf(model: ClusterModel, name: string): string[] {
  const out = [name];
  for (let i = 0; i < out.length; i++) {
    for (const child of model.children.get(out[i]!) ?? []) out.push(child);
  }
  return out;
}

/**
 * The jobs a submission of `name` replaces (the ended job of the name and its subtree; [] for a new
 * name), or the conflict it meets: a job of the name that has not ended, or a job below it that
 * has not (a SUCCEEDED parent leaves its descendants running). Pure and immediate, so a caller
 * may refuse before it waits for anything (ControllerService.submit).
 */
export function replacedBySubmit(model: ClusterModel, name: string): string[] {
  const existing = model.jobs.get(name)?.job;
  if (!existing) return [];
  if (!isFinalJobState(existing.state)) {
    throw conflict(
      `job ${name} is still ${existing.state}`,
      `cancel it first (iris cancel ${name}) or choose another name`,
    );
  }
  const replaces = subtreeOf(model, name);
  for (const n of replaces) {
    const j = model.jobs.get(n)!.job;
    if (!isFinalJobState(j.state))
      throw conflict(`job ${n} under ${name} is still ${j.state}`, `cancel it first (iris cancel ${n})`);
  }
  return replaces;
}

function checkCount(what: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw invalid(`${what} must be an integer >= ${min} (got ${value})`);
}

/**
 * `archivedState` gives the state of a job that ended and left the live model (its newest archived
 * run: finished-trees.ts): such a parent has ended too, and refuses new children.
 */
export function prepareSubmit(
  model: ClusterModel,
  given: JobSpec,
  now: number,
  archivedState: (name: string) => JobState | undefined = () => undefined,
): PreparedSubmit {
  const spec = structuredClone(given); // the store owns its copy
  const name = spec.name;
  if (parseJobName(name) !== name)
    throw invalid(`job name "${name}" is not canonical (expected ${parseJobName(name)})`);
  checkCount('replicas', spec.replicas, 1);
  checkCount('maxRetries', spec.maxRetries, 0);
  checkCount('maxTaskFailures', spec.maxTaskFailures, 0);
  checkCount('maxPreemptions', spec.maxPreemptions, 0);

  const replaces = replacedBySubmit(model, name);

  const parentName = parentJob(name);
  const parent = parentName === null ? undefined : model.jobs.get(parentName)?.job;
  if (parent && isFinalJobState(parent.state)) throw conflict(`parent job ${parent.name} has ended (${parent.state})`);
  const archivedParent = parentName !== null && !parent ? archivedState(parentName) : undefined;
  if (archivedParent !== undefined) throw conflict(`parent job ${parentName} has ended (${archivedParent})`);

  const base = Number(model.meta.get('seq') ?? '0');
  const run = Number(model.meta.get('run') ?? '0') + 1;
  const job: Job = {
    name,
    run,
    spec,
    depth: jobDepth(name),
    parent: parentName,
    submittedAt: now,
    rootSubmittedAt: parent ? parent.rootSubmittedAt : now,
    seq: base + 1,
    state: 'PENDING',
    reason: null,
    startedAt: null,
    finishedAt: null,
    failedTasks: 0,
  };
  // One compact record per task, all sharing the job's group (task-record.ts).
  const group = new TaskGroup(name, now, base + 2);
  const tasks = new Array<Task>(spec.replicas);
  for (let i = 0; i < spec.replicas; i++) tasks[i] = new TaskRecord(group, i);
  return {
    job,
    tasks,
    replaces,
    archive: replaces.map((n) => archivedRun(model, n)),
    nextSeq: base + 1 + spec.replicas,
    nextRun: run,
  };
}

/** The archive record of a live job: the job, its tasks, their attempts and its children's runs. */
export function archivedRun(model: ClusterModel, name: string): ArchivedRun {
  const entry = model.jobs.get(name)!;
  return {
    job: entry.job,
    tasks: [...entry.tasks],
    attempts: entry.tasks.map((t) => (model.attempts.get(t.id) ?? []).filter((a) => a !== undefined)),
    children: [...(model.children.get(name) ?? [])].map((child) => model.jobs.get(child)!.job.run),
  };
}
