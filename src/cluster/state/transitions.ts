/**
 * Pure rules of the job and task lifecycles; the store applies them, these functions decide.
 *
 * - Every task/job state change goes through assertTaskTransition / assertJobTransition, which
 *   check TASK_TRANSITIONS / JOB_TRANSITIONS from model/states.ts. An illegal transition is a
 *   bug in iris, reported as an `internal` IrisError.
 * - A job's state is derived from the tally of its tasks by JOB_STATE_RULES, an ordered table:
 *   the first rule that holds wins. Final job states are sticky.
 * - Failed attempts count against maxRetries (per task); once a task has failed for good it
 *   counts against maxTaskFailures (per job). A task cancelled on its own (CANCELLED) is not a
 *   failure: the job ends by its other tasks (SUCCEEDED when they all succeed), KILLED only
 *   when every task was cancelled. Preemptions count only against maxPreemptions
 *   and never as failures.
 */
import { formatDuration } from '../../model/duration.js';
import { IrisError } from '../../model/errors.js';
import {
  TASK_STATES, canTransitionJob, canTransitionTask, isFinalJobState,
  type AttemptOutcome, type AttemptState, type JobState, type TaskState,
} from '../../model/states.js';

export function assertTaskTransition(id: string, from: TaskState, to: TaskState): void {
  if (!canTransitionTask(from, to)) throw new IrisError('internal', `illegal task transition ${from} -> ${to} for ${id}`);
}

export function assertJobTransition(name: string, from: JobState, to: JobState): void {
  if (!canTransitionJob(from, to)) throw new IrisError('internal', `illegal job transition ${from} -> ${to} for ${name}`);
}

export type TaskCounts = Record<TaskState, number>;

export function emptyCounts(): TaskCounts {
  const counts = {} as TaskCounts;
  for (const s of TASK_STATES) counts[s] = 0;
  return counts;
}

/** What the job-state rules look at. */
export interface JobTally {
  total: number;
  counts: Readonly<TaskCounts>;
  failedTasks: number;
  maxTaskFailures: number;
}

export interface JobStateRule {
  state: JobState;
  /** Short description, for tests and docs. */
  when: string;
  holds: (t: JobTally) => boolean;
}

/** Ordered: the first rule that holds gives the job's state. */
export const JOB_STATE_RULES: readonly JobStateRule[] = [
  { state: 'FAILED', when: 'more tasks failed for good than maxTaskFailures', holds: (t) => t.failedTasks > t.maxTaskFailures },
  { state: 'FAILED', when: 'a gang member failed, so its siblings are COSCHED_FAILED', holds: (t) => t.counts.COSCHED_FAILED > 0 },
  { state: 'WORKER_FAILED', when: 'a task spent its preemption budget', holds: (t) => t.counts.WORKER_FAILED > 0 },
  { state: 'UNSCHEDULABLE', when: 'a task is unschedulable', holds: (t) => t.counts.UNSCHEDULABLE > 0 },
  { state: 'KILLED', when: 'a task was killed', holds: (t) => t.counts.KILLED > 0 },
  { state: 'KILLED', when: 'every task was cancelled one by one', holds: (t) => t.total > 0 && t.counts.CANCELLED === t.total },
  {
    state: 'SUCCEEDED',
    when: 'every task succeeded, failed within the maxTaskFailures tolerance, or was cancelled one by one',
    holds: (t) => t.total > 0 && t.counts.SUCCEEDED + t.counts.FAILED + t.counts.CANCELLED === t.total,
  },
  { state: 'RUNNING', when: 'a task is ASSIGNED or RUNNING', holds: (t) => t.counts.ASSIGNED + t.counts.RUNNING > 0 },
  { state: 'PENDING', when: 'otherwise', holds: () => true },
];

/** The job's next state: sticky when already final, else the first matching rule. */
export function deriveJobState(current: JobState, tally: JobTally): JobState {
  if (isFinalJobState(current)) return current;
  for (const rule of JOB_STATE_RULES) if (rule.holds(tally)) return rule.state;
  return current;
}

/** How the store treats an attempt outcome. */
export type OutcomeClass = 'succeeded' | 'failed' | 'preempted' | 'killed';

export interface OutcomeVerdict {
  kind: OutcomeClass;
  attemptState: AttemptState;
  exitCode: number | null;
  /** Reason stored on the attempt ("exit 3", "timeout", "launch failed: …", preemption reason). */
  reason: string | null;
}

export function classifyOutcome(outcome: AttemptOutcome): OutcomeVerdict {
  switch (outcome.kind) {
    case 'exited':
      // A success keeps a note iris added (e.g. an invalid result file), never a failure reason.
      if (outcome.exitCode === 0) return { kind: 'succeeded', attemptState: 'SUCCEEDED', exitCode: 0, reason: outcome.reason ?? null };
      return {
        kind: 'failed', attemptState: 'FAILED', exitCode: outcome.exitCode,
        reason: outcome.reason
          ? `${outcome.reason} (exit ${outcome.exitCode})`
          : outcome.signal ? `killed by ${outcome.signal}` : `exit ${outcome.exitCode}`,
      };
    case 'timeout':
      return { kind: 'failed', attemptState: 'FAILED', exitCode: null, reason: 'time-limit' };
    case 'launch_failed':
      return { kind: 'failed', attemptState: 'FAILED', exitCode: null, reason: `launch failed: ${outcome.reason}` };
    case 'failed':
      return { kind: 'failed', attemptState: 'FAILED', exitCode: outcome.exitCode, reason: outcome.reason };
    case 'preempted':
      return { kind: 'preempted', attemptState: 'PREEMPTED', exitCode: null, reason: outcome.reason };
    case 'killed':
      return { kind: 'killed', attemptState: 'KILLED', exitCode: null, reason: outcome.reason };
  }
}

/** After a failed attempt (task.failures already incremented): another attempt, or failed for good. */
export function retryAfterFailure(failures: number, maxRetries: number): boolean {
  return failures <= maxRetries;
}

/** Without `--retry-backoff-max`, the longest backoff is this many times `--retry-backoff`. */
export const RETRY_BACKOFF_CAP_FACTOR = 10;

/**
 * How long a task waits before its retry after its `failures`-th failure (failures >= 1):
 * base * 2^(failures-1), at most `maxMs` (default RETRY_BACKOFF_CAP_FACTOR * base); 0 without a base.
 */
export function retryBackoffMs(failures: number, baseMs: number | null | undefined, maxMs?: number | null): number {
  if (!baseMs || baseMs <= 0) return 0;
  return Math.min(retryBackoffCapMs(baseMs, maxMs), baseMs * 2 ** Math.max(0, failures - 1));
}

/** The longest retry wait of a job with backoff `baseMs`: `maxMs` when given, else RETRY_BACKOFF_CAP_FACTOR * base. */
export function retryBackoffCapMs(baseMs: number, maxMs?: number | null): number {
  return maxMs ?? baseMs * RETRY_BACKOFF_CAP_FACTOR;
}

/**
 * What a `retry` requeue event says: `exit 3; retry 1 of 2, after 5s`. `failures` counts
 * the one that caused the retry; `backoffMs` 0: retried at once.
 */
export function retryDetail(attemptReason: string | null, failures: number, maxRetries: number, backoffMs: number): string {
  const after = backoffMs > 0 ? `, after ${formatDuration(backoffMs)}` : '';
  return `${attemptReason ?? 'failed'}; retry ${failures} of ${maxRetries}${after}`;
}

/** After a preemption (task.preemptions already incremented): another attempt, or WORKER_FAILED. */
export function retryAfterPreemption(preemptions: number, maxPreemptions: number): boolean {
  return preemptions <= maxPreemptions;
}

/** Reason a task's failure gives its job: `task /j/task-2 failed (exit 3)`. */
export function taskFailureReason(taskId: string, attemptReason: string | null): string {
  return `task ${taskId} failed${attemptReason ? ` (${attemptReason})` : ''}`;
}

/** Reason the remaining tasks of a job that ended get. */
export function endedJobTaskReason(state: JobState): string {
  switch (state) {
    case 'FAILED': return 'job failed';
    case 'WORKER_FAILED': return 'job failed (worker failures)';
    case 'UNSCHEDULABLE': return 'job unschedulable';
    case 'SUCCEEDED': return 'job succeeded';
    default: return 'job killed';
  }
}

export const PARENT_ENDED = 'parent job ended';

/** Reason a job gets when the task attempt that submitted it ended and its task runs again. */
export function parentRerunReason(taskId: string, attempt: number): string {
  return `parent task ${taskId} is running again (attempt ${attempt})`;
}
export const GANG_RESTARTED = 'gang restarted';
