/**
 * The one line `iris run` prints inside a task when its child job ends (docs/cli.md, "iris run"):
 * `iris: /demo/eval SUCCEEDED`, `iris: /demo/eval FAILED (exit 3)`,
 * `iris: /demo/eval UNSCHEDULABLE: <reason>`. It names the job and its final state, then the
 * exit code of the first task that failed with one, else the job's reason (its instants in the
 * time style as of `now`, control characters escaped: format.ts formatReason, escapeControl).
 * After a job that SUCCEEDED while a job below it did not (a succeeded parent leaves its children
 * running, and one failed later), `iris run` adds one line naming the first such job:
 * `iris: /pe/bg FAILED (exit 5); /pe itself SUCCEEDED` (formatBelowOutcome).
 */
import type { JobDetail, JobSummary } from '../api/types.js';
import { isFailureState } from '../model/states.js';
import { escapeControl, formatReason } from './format.js';

export function formatJobOutcome(job: JobDetail, now = Date.now()): string {
  const head = `iris: ${job.name} ${job.state}`;
  if (job.state === 'SUCCEEDED') return head;
  const failed = job.taskList.find(
    (task) => isFailureState(task.state) && task.exitCode !== null && task.exitCode !== 0,
  );
  if (failed) {
    const who = job.taskList.length > 1 ? `task-${failed.index} ` : '';
    return `${head} (${who}exit ${failed.exitCode})`;
  }
  return job.reason ? `${head}: ${escapeControl(formatReason(job.reason, now))}` : head;
}

/**
 * `iris: /pe/bg FAILED (exit 5); /pe itself SUCCEEDED`: `first` is the first job below `root` that ended
 * otherwise than SUCCEEDED, `others` how many more did.
 */
export function formatBelowOutcome(root: JobSummary, first: JobDetail, others: number, now = Date.now()): string {
  const more =
    others > 0 ? `, and ${others} more job${others === 1 ? '' : 's'} below ${root.name} did not succeed` : '';
  return `${formatJobOutcome(first, now)}${more}; ${root.name} itself ${root.state}`;
}
