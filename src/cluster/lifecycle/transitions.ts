/**
 * The job and task state machines applied (the tables are model/states.ts): transition guards, the
 * job state derived from its tasks, and how an attempt's outcome is classified. Pure.
 *
 * - Every task/job state change goes through assertTaskTransition / assertJobTransition, which
 *   check TASK_TRANSITIONS / JOB_TRANSITIONS from model/states.ts. An illegal transition is a
 *   bug in iris, reported as an `internal` IrisError.
 * - A job's state is derived from the tally of its tasks by JOB_STATE_RULES, an ordered table:
 *   the first rule that holds wins. Final job states are sticky.
 * - A task that failed for good (FAILED, TIMEOUT or OUT_OF_MEMORY) counts against maxTaskFailures
 *   (per job). A job that fails takes the failure of its deciding task: the one whose failure was one
 *   too many, or the gang member whose failure failed the gang (JobTally.decidingFailure). An
 *   attempt's outcome gives its task's failure: a time limit TIMEOUT, a memory kill OUT_OF_MEMORY,
 *   any other failure FAILED (classifyOutcome). A task cancelled on its
 *   own (CANCELLED) is not a failure: the job ends by its other tasks (SUCCEEDED when they all
 *   succeed), KILLED only when every task was cancelled. (Budgets per task: retries.ts.)
 */
import { IrisError } from '../../model/errors.js';
import {
  canTransitionJob,
  canTransitionTask,
  FAILURE_STATES,
  isFinalJobState,
  type AttemptOutcome,
  type AttemptState,
  type FailureState,
  type JobState,
  type TaskState,
} from '../../model/states.js';

export function assertTaskTransition(id: string, from: TaskState, to: TaskState): void {
  if (!canTransitionTask(from, to))
    throw new IrisError('internal', `illegal task transition ${from} -> ${to} for ${id}`);
}

export function assertJobTransition(name: string, from: JobState, to: JobState): void {
  if (!canTransitionJob(from, to))
    throw new IrisError('internal', `illegal job transition ${from} -> ${to} for ${name}`);
}

export type TaskCounts = Record<TaskState, number>;

/** A tally of no task (a literal, one shape for every job; the type lists every state of TASK_STATES). */
export function emptyCounts(): TaskCounts {
  return {
    PENDING: 0,
    ASSIGNED: 0,
    RUNNING: 0,
    SUCCEEDED: 0,
    FAILED: 0,
    TIMEOUT: 0,
    OUT_OF_MEMORY: 0,
    KILLED: 0,
    UNSCHEDULABLE: 0,
    WORKER_FAILED: 0,
    PREEMPTED: 0,
    COSCHED_FAILED: 0,
    CANCELLED: 0,
  };
}

/** What the job-state rules look at. */
export interface JobTally {
  total: number;
  counts: Readonly<TaskCounts>;
  failedTasks: number;
  maxTaskFailures: number;
  /** How the task that decided a failure failed (the latest to fail for good); FAILED when unknown. */
  decidingFailure?: FailureState;
}

export interface JobStateRule {
  state: JobState;
  /** Short description, for tests and docs. */
  when: string;
  holds: (t: JobTally) => boolean;
}

/** Tasks that failed for good, in any of the failure states (model/states.ts FAILURE_STATES). */
const failedForGood = (counts: Readonly<TaskCounts>): number =>
  FAILURE_STATES.reduce((sum, state) => sum + counts[state], 0);

/** The job failed (too many tasks failed for good, or a gang member did). */
const jobFailed = (t: JobTally): boolean => t.failedTasks > t.maxTaskFailures || t.counts.COSCHED_FAILED > 0;
const decidedBy = (t: JobTally): FailureState => t.decidingFailure ?? 'FAILED';

/** Ordered: the first rule that holds gives the job's state. */
export const JOB_STATE_RULES: readonly JobStateRule[] = [
  {
    state: 'TIMEOUT',
    when: 'the job failed (as below) and the task that decided it was stopped by its time limit',
    holds: (t) => jobFailed(t) && decidedBy(t) === 'TIMEOUT',
  },
  {
    state: 'OUT_OF_MEMORY',
    when: 'the job failed (as below) and the task that decided it was killed for memory',
    holds: (t) => jobFailed(t) && decidedBy(t) === 'OUT_OF_MEMORY',
  },
  {
    state: 'FAILED',
    when: 'more tasks failed for good than maxTaskFailures',
    holds: (t) => t.failedTasks > t.maxTaskFailures,
  },
  {
    state: 'FAILED',
    when: 'a gang member failed, so its siblings are COSCHED_FAILED',
    holds: (t) => t.counts.COSCHED_FAILED > 0,
  },
  { state: 'WORKER_FAILED', when: 'a task spent its preemption budget', holds: (t) => t.counts.WORKER_FAILED > 0 },
  { state: 'UNSCHEDULABLE', when: 'a task is unschedulable', holds: (t) => t.counts.UNSCHEDULABLE > 0 },
  { state: 'KILLED', when: 'a task was killed', holds: (t) => t.counts.KILLED > 0 },
  {
    state: 'KILLED',
    when: 'every task was cancelled one by one',
    holds: (t) => t.total > 0 && t.counts.CANCELLED === t.total,
  },
  {
    state: 'SUCCEEDED',
    when: 'every task succeeded, failed within the maxTaskFailures tolerance, or was cancelled one by one',
    holds: (t) => t.total > 0 && t.counts.SUCCEEDED + failedForGood(t.counts) + t.counts.CANCELLED === t.total,
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
  /** For a failure: the state its task takes (TIMEOUT, OUT_OF_MEMORY or FAILED). */
  failure: FailureState | null;
  attemptState: AttemptState;
  exitCode: number | null;
  /** Reason stored on the attempt ("exit 3", "timeout", "launch failed: …", preemption reason). */
  reason: string | null;
}

export function classifyOutcome(outcome: AttemptOutcome): OutcomeVerdict {
  switch (outcome.kind) {
    case 'exited':
      // A success keeps a note iris added (e.g. an invalid result file), never a failure reason.
      if (outcome.exitCode === 0)
        return {
          kind: 'succeeded',
          failure: null,
          attemptState: 'SUCCEEDED',
          exitCode: 0,
          reason: outcome.reason ?? null,
        };
      return {
        kind: 'failed',
        failure: outcome.oom ? 'OUT_OF_MEMORY' : 'FAILED',
        attemptState: 'FAILED',
        exitCode: outcome.exitCode,
        reason: outcome.reason
          ? `${outcome.reason} (exit ${outcome.exitCode})`
          : outcome.signal
            ? `killed by ${outcome.signal}`
            : `exit ${outcome.exitCode}`,
      };
    case 'timeout':
      return { kind: 'failed', failure: 'TIMEOUT', attemptState: 'FAILED', exitCode: null, reason: 'time-limit' };
    case 'launch_failed':
      return {
        kind: 'failed',
        failure: 'FAILED',
        attemptState: 'FAILED',
        exitCode: null,
        reason: `launch failed: ${outcome.reason}`,
      };
    case 'failed':
      return {
        kind: 'failed',
        failure: 'FAILED',
        attemptState: 'FAILED',
        exitCode: outcome.exitCode,
        reason: outcome.reason,
      };
    case 'preempted':
      return { kind: 'preempted', failure: null, attemptState: 'PREEMPTED', exitCode: null, reason: outcome.reason };
    case 'killed':
      // A live attempt stopped without an order of the lifecycle's: a failure (attempts.ts).
      return { kind: 'killed', failure: 'FAILED', attemptState: 'KILLED', exitCode: null, reason: outcome.reason };
  }
}
