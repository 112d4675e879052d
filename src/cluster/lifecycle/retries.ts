/**
 * Retry and preemption budgets, the retry backoff, and the words of requeues and of the ends they
 * cause. Pure.
 *
 * - Failed attempts count against maxRetries (per task), whichever way they failed (FAILED,
 *   TIMEOUT, OUT_OF_MEMORY); preemptions count only against maxPreemptions, never as failures.
 *   A task past its retry budget has failed for good (its job counts it against
 *   maxTaskFailures, transitions.ts); past its preemption budget it is WORKER_FAILED.
 * - A retry waits `retryBackoffMs(failures, base, max)`: base * 2^(failures-1), capped.
 */
import { formatDuration } from '../../model/duration.js';
import { type FailureState, isFinalJobState, type JobState } from '../../model/states.js';

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
export function retryDetail(
  attemptReason: string | null,
  failures: number,
  maxRetries: number,
  backoffMs: number,
): string {
  const after = backoffMs > 0 ? `, after ${formatDuration(backoffMs)}` : '';
  return `${attemptReason ?? 'failed'}; retry ${failures} of ${maxRetries}${after}`;
}

/** `max-preemptions` by default: preemptions of a task before it gives up (the config's and the simulator's). */
export const DEFAULT_MAX_PREEMPTIONS = 100;

/** After a preemption (task.preemptions already incremented): another attempt, or WORKER_FAILED. */
export function retryAfterPreemption(preemptions: number, maxPreemptions: number): boolean {
  return preemptions <= maxPreemptions;
}

/** Reason a task's failure gives its job: `task /j/task-2 failed (exit 3)`, `… timed out (time-limit: …)`. */
export function taskFailureReason(
  taskId: string,
  attemptReason: string | null,
  failure: FailureState = 'FAILED',
): string {
  return `task ${taskId} ${FAILURE_VERB[failure]}${attemptReason ? ` (${attemptReason})` : ''}`;
}

/** How a job's reason says its deciding task ended, in the words of the task's state. */
const FAILURE_VERB: Record<FailureState, string> = {
  FAILED: 'failed',
  TIMEOUT: 'timed out',
  OUT_OF_MEMORY: 'ran out of memory',
};

/**
 * Reason a pipeline root (a job with `spec.pipeline`) that failed gives: the first of its stages,
 * in stage order, that ended without success, with that stage's own reason (`stage prep FAILED:
 * task /demo/prep/task-0 failed (exit 3)`); null when none did (the root's own task failed: its
 * reason stands). `stageOf(name)` is the stage's job (state and reason), undefined when unknown.
 */
export function pipelineRootReason(
  root: { name: string; spec: { pipeline?: { stages: ReadonlyArray<{ name: string }> } } },
  stageOf: (job: string) => { state: JobState; reason: string | null } | undefined,
): string | null {
  for (const stage of root.spec.pipeline?.stages ?? []) {
    const job = stageOf(`${root.name}/${stage.name}`);
    if (job && isFinalJobState(job.state) && job.state !== 'SUCCEEDED')
      return `stage ${stage.name} ${job.state}${job.reason ? `: ${job.reason}` : ''}`;
  }
  return null;
}

/** Reason the remaining tasks of a job that ended get. */
export function endedJobTaskReason(state: JobState): string {
  switch (state) {
    case 'FAILED':
      return 'job failed';
    case 'TIMEOUT':
      return 'job failed (time limit)';
    case 'OUT_OF_MEMORY':
      return 'job failed (out of memory)';
    case 'WORKER_FAILED':
      return 'job failed (worker failures)';
    case 'UNSCHEDULABLE':
      return 'job unschedulable';
    case 'SUCCEEDED':
      return 'job succeeded';
    default:
      return 'job killed';
  }
}

export const PARENT_ENDED = 'parent job ended';

/** Reason a job gets when the task attempt that submitted it ended and its task runs again. */
export function parentRerunReason(taskId: string, attempt: number): string {
  return `parent task ${taskId} is running again (attempt ${attempt})`;
}
export const GANG_RESTARTED = 'gang restarted';
