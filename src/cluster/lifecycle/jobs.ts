/**
 * The job lifecycle, decided (changes.ts): a job's state derived from its tasks, its end, and the
 * ends users and the controller ask for (cancel a job or one task, unschedulable, quarantine).
 * Pure; reconcile.ts applies what these functions return and walks the cascade (cascade.ts).
 *
 * Invariants:
 * - A job's state follows its tasks (transitions.ts deriveJobState); a final state is sticky.
 * - When a job ends (any final state) its non-final tasks end (KILLED; UNSCHEDULABLE for the
 *   PENDING ones of an unschedulable job); when it ends otherwise than SUCCEEDED (failed, killed,
 *   unschedulable, worker failures, quarantined) its whole subtree is killed ("parent job ended");
 *   then the jobs waiting on it (its dependents) are looked at again (release.ts): the job-end
 *   cascade. A job that SUCCEEDED leaves its running and pending descendants running: they are
 *   jobs of their own, as an `sbatch` from inside a Slurm job (seed 000: descendants are cancelled
 *   only when a parent ends non-successfully). Cancelling a job that already ended (`iris cancel`)
 *   still kills what is left of its subtree.
 * - Cancelling one task is no failure: the job goes on with its other tasks and ends by them
 *   (KILLED only when every task was cancelled); the jobs that task submitted are killed. A gang
 *   cannot run without a member: cancelling one ends its job KILLED.
 * - A new job waits on its dependencies while one is not met; one that can never be met any more
 *   refuses the submission.
 */
import { conflict, notFound } from '../../model/errors.js';
import { isFinalJobState, isFinalTaskState, type JobState } from '../../model/states.js';
import type { Job } from '../../model/types.js';
import { endAttempt, taskOrThrow } from './attempts.js';
import type { JobEnd } from './cascade.js';
import { NO_ITEMS } from './changes.js';
import type { Decision, Item, JobRecord, LifecycleView, Step, StepDecider } from './changes.js';
import { dependenciesStatus, dependencyFailureReason } from './dependencies.js';
import { PARENT_ENDED, endedJobTaskReason } from './retries.js';
import { deriveJobState } from './transitions.js';

const jobOrThrow = (view: LifecycleView, name: string): JobRecord => {
  const entry = view.job(name);
  if (!entry) throw notFound(`job ${name} not found`);
  return entry;
};

const endJob = (
  entry: JobRecord,
  state: JobState,
  reason: string | null,
  taskReason: string,
  childReason: string,
): Step => ({ kind: 'end-job', end: { entry, state, reason, taskReason, childReason } });

/** A `settle` step, when its turn comes: the job's next state from its tasks, or its end. */
export function settle(step: Extract<Item, { kind: 'settle' }>, now: number): Decision {
  const { job } = step.job;
  const entry = step.job;
  const next = deriveJobState(job.state, {
    total: entry.tasks.length,
    counts: entry.counts,
    failedTasks: job.failedTasks,
    maxTaskFailures: job.spec.maxTaskFailures,
    ...(step.failure !== undefined ? { decidingFailure: step.failure } : {}),
  });
  if (next === job.state) return NO_ITEMS;
  if (isFinalJobState(next)) {
    const everyCancelled = step.allCancelled !== undefined && entry.tasks.every((t) => t.state === 'CANCELLED');
    return [
      endJob(
        entry,
        next,
        everyCancelled ? step.allCancelled! : step.finalReason,
        endedJobTaskReason(next),
        PARENT_ENDED,
      ),
    ];
  }
  if (next === 'RUNNING')
    return [{ kind: 'job', job, patch: { state: next, reason: null, startedAt: job.startedAt ?? now } }];
  return [{ kind: 'job', job, patch: { state: next, reason: null } }];
}

/** Step 1 of a job's end (cascade.ts): its final state and its remaining tasks; nothing for a job already final. */
export function endOfJob(end: JobEnd<JobRecord>, now: number): Decision {
  const { job } = end.entry;
  if (isFinalJobState(job.state)) return NO_ITEMS;
  const out: Item[] = [{ kind: 'job', job, patch: { state: end.state, reason: end.reason, finishedAt: now } }];
  for (const t of end.entry.tasks) {
    // A task already final stays so until its turn (its kill-task would be nothing): none is made.
    if (isFinalTaskState(t.state)) continue;
    const state = end.state === 'UNSCHEDULABLE' && t.state === 'PENDING' ? 'UNSCHEDULABLE' : 'KILLED';
    out.push({ kind: 'kill-task', task: t, state, reason: end.taskReason });
  }
  return out;
}

/** Whether a job's end kills its subtree: every end but a success (see the header). */
export function endKillsChildren(state: JobState): boolean {
  return state !== 'SUCCEEDED';
}

/** Step 2 of a job's end: the ends of its children, KILLED with the job's `childReason` (none after a success). */
export function* childEnds(view: LifecycleView, end: JobEnd<JobRecord>): Generator<JobEnd<JobRecord>> {
  if (!endKillsChildren(end.state)) return;
  const why = end.childReason;
  for (const child of view.children(end.entry.job.name)) {
    yield { entry: view.job(child)!, state: 'KILLED', reason: why, taskReason: why, childReason: why };
  }
}

/** A `kill-task` step, when its turn comes: the task ends for good, its live attempt stopped. */
export const killTask: StepDecider<'kill-task'> = (view, step, now) => {
  const { task, state, reason } = step;
  if (isFinalTaskState(task.state)) return NO_ITEMS;
  const a = view.liveAttempt(task.id);
  const out: Item[] = [];
  if (a) {
    out.push({ kind: 'stop', order: { task: task.id, attempt: a.attempt, workerId: a.workerId, reason } });
    for (const item of endAttempt(view, a, task, 'KILLED', reason, null, now)) out.push(item);
  }
  out.push({ kind: 'task', task, patch: { state, reason, finishedAt: now } });
  return out;
};

/** Cancel a job (`iris cancel`): KILLED with its subtree. */
export function cancelJob(view: LifecycleView, name: string, reason: string): Item[] {
  return [endJob(jobOrThrow(view, name), 'KILLED', reason, reason, reason)];
}

/** Cancel one task (docs/cli.md, "Cancelling one task"; see the header). A task that already ended is left as it is. */
export function cancelTask(view: LifecycleView, taskId: string, reason: string): Decision {
  const task = taskOrThrow(view, taskId);
  const entry = view.job(task.job)!;
  if (isFinalTaskState(task.state) || isFinalJobState(entry.job.state)) return NO_ITEMS;
  const out: Item[] = [{ kind: 'kill-task', task, state: 'CANCELLED', reason }];
  const why = `parent task ${task.id} cancelled`;
  for (const child of view.children(task.job)) {
    const childEntry = view.job(child)!;
    if (childEntry.job.spec.submittedBy?.task === task.id)
      out.push(endJob(childEntry, 'KILLED', why, why, PARENT_ENDED));
  }
  if (entry.job.spec.coschedule !== null) {
    const gang = `gang member ${task.id} cancelled (a gang cannot run without it)`;
    out.push(endJob(entry, 'KILLED', gang, gang, PARENT_ENDED));
    return out;
  }
  out.push({ kind: 'settle', job: entry, finalReason: null, allCancelled: 'every task was cancelled' });
  return out;
}

/** The job can never be placed: UNSCHEDULABLE (nothing for a job that already ended). */
export function markUnschedulable(view: LifecycleView, name: string, reason: string): Decision {
  const entry = jobOrThrow(view, name);
  return isFinalJobState(entry.job.state) ? NO_ITEMS : [endJob(entry, 'UNSCHEDULABLE', reason, reason, PARENT_ENDED)];
}

/**
 * Quarantine a job whose rows or recovery failed at start-up: it ends FAILED with `reason`, as any
 * job's end. One that had already ended keeps its state and takes the reason, and what is left of
 * its tasks ends (KILLED). Nothing for a job that is not there.
 */
export function quarantine(view: LifecycleView, name: string, reason: string): Decision {
  const entry = view.job(name);
  if (!entry) return NO_ITEMS;
  const out: Item[] = [];
  if (isFinalJobState(entry.job.state)) {
    out.push({ kind: 'job', job: entry.job, patch: { reason } });
    for (const task of entry.tasks) out.push({ kind: 'kill-task', task, state: 'KILLED', reason });
  }
  out.push(endJob(entry, 'FAILED', reason, reason, PARENT_ENDED));
  return out;
}

/**
 * Whether a new job must wait on its dependencies; a dependency that can never be met any more
 * (its job already ended otherwise) refuses the submission (conflict). `archivedState` gives the
 * state of a dependency that has ended and left the live view (its newest archived run).
 */
export function waitsOnDependencies(
  view: LifecycleView,
  job: Pick<Job, 'name' | 'spec'>,
  archivedState: (name: string) => JobState | undefined = () => undefined,
): boolean {
  const status = dependenciesStatus(job.spec.after, (name) => view.job(name)?.job.state ?? archivedState(name));
  if (status.kind === 'never') {
    const { on } = status;
    throw conflict(
      `${job.name} can never start: ${dependencyFailureReason(on, status.state)}`,
      `--after ${on.job}${on.condition === 'ok' ? '' : `:${on.condition}`} waits for it to end ` +
        `${on.condition === 'failed' ? 'without success' : 'successfully'}; re-run it first (iris retry ${on.job}` +
        `), or choose another condition (:any)`,
    );
  }
  return status.kind === 'waiting';
}
