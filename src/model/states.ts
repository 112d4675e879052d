/**
 * Job and task state machines, written as tables: the one home of which transitions are legal and
 * which states are final (cluster/lifecycle applies them; the store refuses any transition not
 * listed here: a bug, not a user error). A job's state is derived from its tasks
 * (cluster/lifecycle/transitions.ts deriveJobState); a job state with no way out is final.
 *
 * Task:  PENDING -> ASSIGNED -> RUNNING -> SUCCEEDED | FAILED | TIMEOUT | OUT_OF_MEMORY | KILLED | PREEMPTED
 *        | COSCHED_FAILED. FAILED, TIMEOUT (stopped by its time limit) and OUT_OF_MEMORY (killed by the
 *        kernel or the engine for memory) are the failures (FAILURE_STATES): each counts against the
 *        retry budget, and goes back to PENDING when the budget allows a new attempt; so does
 *        PREEMPTED while the preemption budget allows.
 *        PREEMPTED -> WORKER_FAILED when the preemption budget is spent.
 *        PENDING / ASSIGNED / RUNNING -> CANCELLED: that one task cancelled (`iris cancel JOB/task-N`).
 */

import { describeValue, invalid } from './errors.js';

/**
 * The ways a task fails (sacct's words): its command failed (FAILED), its time limit stopped it
 * (TIMEOUT), the kernel or the container engine killed it for memory (OUT_OF_MEMORY). Each is a
 * failure wherever one counts (retries, `--after JOB:failed`, cascades, `iris retry`, exit codes);
 * a job that fails takes the failure of the task that decided it.
 */
export const FAILURE_STATES = ['FAILED', 'TIMEOUT', 'OUT_OF_MEMORY'] as const;
export type FailureState = (typeof FAILURE_STATES)[number];

/** The outcomes a job and a task both name, in the order both lists give them. */
const SHARED_OUTCOMES = ['SUCCEEDED', ...FAILURE_STATES, 'KILLED', 'UNSCHEDULABLE', 'WORKER_FAILED'] as const;

export const JOB_STATES = ['PENDING', 'RUNNING', ...SHARED_OUTCOMES] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TASK_STATES = [
  'PENDING',
  'ASSIGNED',
  'RUNNING',
  ...SHARED_OUTCOMES,
  'PREEMPTED',
  'COSCHED_FAILED',
  'CANCELLED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const JOB_TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  PENDING: ['RUNNING', 'SUCCEEDED', ...FAILURE_STATES, 'KILLED', 'UNSCHEDULABLE', 'WORKER_FAILED'],
  RUNNING: ['PENDING', 'SUCCEEDED', ...FAILURE_STATES, 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE'],
  SUCCEEDED: [],
  FAILED: [],
  TIMEOUT: [],
  OUT_OF_MEMORY: [],
  KILLED: [],
  UNSCHEDULABLE: [],
  WORKER_FAILED: [],
};

export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  PENDING: ['ASSIGNED', 'KILLED', 'UNSCHEDULABLE', 'COSCHED_FAILED', 'CANCELLED'],
  ASSIGNED: ['RUNNING', 'SUCCEEDED', ...FAILURE_STATES, 'KILLED', 'PREEMPTED', 'COSCHED_FAILED', 'CANCELLED'],
  RUNNING: ['SUCCEEDED', ...FAILURE_STATES, 'KILLED', 'PREEMPTED', 'COSCHED_FAILED', 'CANCELLED'],
  SUCCEEDED: [],
  FAILED: ['PENDING'],
  TIMEOUT: ['PENDING'],
  OUT_OF_MEMORY: ['PENDING'],
  KILLED: [],
  UNSCHEDULABLE: [],
  WORKER_FAILED: [],
  PREEMPTED: ['PENDING', 'WORKER_FAILED'],
  COSCHED_FAILED: [],
  CANCELLED: [],
};

/** A job state with no way out: the job has ended. */
const FINAL_JOB = new Set<JobState>(JOB_STATES.filter((s) => JOB_TRANSITIONS[s].length === 0));
/**
 * The states of a task that will never run again: those with no way out, and the failures, whose
 * way back to PENDING is taken only in the transaction that failed it, while its retry budget allows.
 * (PREEMPTED is never final: in that same transaction it goes back to PENDING or on to WORKER_FAILED.)
 */
const FINAL_TASK = new Set<TaskState>([
  ...TASK_STATES.filter((s) => TASK_TRANSITIONS[s].length === 0),
  ...FAILURE_STATES,
]);
const FAILURES = new Set<string>(FAILURE_STATES);

export const isFinalJobState = (state: JobState): boolean => FINAL_JOB.has(state);
/** A task in this state will never run again (see FINAL_TASK above). */
export const isFinalTaskState = (state: TaskState): boolean => FINAL_TASK.has(state);
/** The state (a job's or a task's) is a failure: FAILED, TIMEOUT or OUT_OF_MEMORY (FAILURE_STATES). */
export const isFailureState = (state: JobState | TaskState): state is FailureState => FAILURES.has(state);
/** A task holds a worker's resources while ASSIGNED or RUNNING. */
export const isActiveTaskState = (state: TaskState): boolean => state === 'ASSIGNED' || state === 'RUNNING';

export function canTransitionJob(from: JobState, to: JobState): boolean {
  return from === to || JOB_TRANSITIONS[from].includes(to);
}

export function canTransitionTask(from: TaskState, to: TaskState): boolean {
  return from === to || TASK_TRANSITIONS[from].includes(to);
}

/** How an attempt ended, as reported by the controller to the store. */
export type AttemptOutcome =
  | {
      kind: 'exited';
      exitCode: number;
      signal?: string | null /** Runtime's explanation, e.g. "OOM killed". */;
      reason?: string;
      /** The kernel or the container engine killed it for memory (its task ends OUT_OF_MEMORY). */
      oom?: boolean;
    }
  | { kind: 'timeout' }
  | { kind: 'preempted'; reason: string }
  | { kind: 'killed'; reason: string }
  | { kind: 'launch_failed'; reason: string }
  /** Failed for a reason of iris's own (e.g. its log could not be written: "no space left on …"). */
  | { kind: 'failed'; reason: string; exitCode: number | null };

export type AttemptState = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'KILLED' | 'PREEMPTED';

/**
 * `running,pending` / `FAILED` / `worker-failed` (several values, each comma-separated, any
 * case, `-` for `_`) -> job states, without repeats. The CLI's `--state` and the API's `state`
 * parameter read states this one way.
 */
export function parseJobStates(values: readonly string[]): JobState[] {
  const states = new Set<JobState>();
  for (const value of values.flatMap((v) => v.split(','))) {
    const state = value.trim().toUpperCase().replace(/-/g, '_');
    if (state === '') continue;
    if (!(JOB_STATES as readonly string[]).includes(state)) {
      throw invalid(
        `unknown job state ${describeValue(value.trim())}`,
        `states: ${JOB_STATES.join(', ')} (any case, comma-separated)`,
      );
    }
    states.add(state as JobState);
  }
  return [...states];
}
