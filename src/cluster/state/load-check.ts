/**
 * What the store accepts from its own database when it loads it (persist.ts), and what becomes
 * of a row it cannot make sense of (a damaged or hand-edited state.db): the one home of these
 * rules. Loading never fails because of one job's rows: the job is quarantined instead.
 *
 * - A job row is readable when its spec is JSON of the shape the cluster relies on
 *   (`specProblem`), its state is a job state and its cause, when there is one, is JSON.
 * - A task row is readable when its id is its job's name and index, the index an integer in
 *   [0, replicas), the attempt a non-negative integer and the state a task state other than
 *   PREEMPTED (a state that never outlives the transaction that set it).
 * - An attempt row is readable when its state is an attempt state and its placement, when there
 *   is one, is JSON.
 * - A job with a row that is not readable is loaded readable and quarantined (store.ts,
 *   lifecycle/jobs.ts quarantine): an unreadable spec reads as a placeholder (`placeholderSpec`: no
 *   command, no user, one task per stored task row); an unknown job or task state reads as
 *   PENDING; a missing task is added PENDING; an unreadable attempt reads as KILLED; a task row
 *   that cannot be one of its job's tasks is deleted. The job then ends FAILED with the reason
 *   `quarantined at start-up: <problem>` (with its subtree, and the jobs waiting on it, as any
 *   job's end), and is written back, so the next start reads it cleanly.
 * - A worker row that cannot be read is skipped: the configuration's workers are written again
 *   at every start.
 */
import { describeValue } from '../../model/errors.js';
import { JOB_STATES, TASK_STATES, type AttemptState, type JobState, type TaskState } from '../../model/states.js';
import type { JobSpec } from '../../model/types.js';
import { DEPENDENCY_CONDITIONS } from '../lifecycle/dependencies.js';

/** A row the load could not make sense of: the job it belongs to (null: not a job's) and what is wrong. */
export interface LoadProblem {
  job: string | null;
  problem: string;
}

export const QUARANTINE_PREFIX = 'quarantined at start-up';

/** The reason a quarantined job ends with. */
export function quarantineReason(problem: string): string {
  return `${QUARANTINE_PREFIX}: ${problem}`;
}

const JOB_STATE_SET: ReadonlySet<string> = new Set(JOB_STATES);
const TASK_STATE_SET: ReadonlySet<string> = new Set(TASK_STATES.filter((s) => s !== 'PREEMPTED'));
const ATTEMPT_STATE_SET: ReadonlySet<string> = new Set<AttemptState>([
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'KILLED',
  'PREEMPTED',
]);

export const isStoredJobState = (v: unknown): v is JobState => typeof v === 'string' && JOB_STATE_SET.has(v);
export const isStoredTaskState = (v: unknown): v is TaskState => typeof v === 'string' && TASK_STATE_SET.has(v);
export const isStoredAttemptState = (v: unknown): v is AttemptState =>
  typeof v === 'string' && ATTEMPT_STATE_SET.has(v);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown, min: number): boolean => Number.isSafeInteger(v) && (v as number) >= min;
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

/** What is wrong with a stored spec (parsed JSON) of the job `name`, or null when nothing is. */
export function specProblem(spec: unknown, name: string): string | null {
  if (!isObject(spec)) return `spec ${describeValue(spec)} is not an object`;
  if (spec.name !== name) return `spec names ${describeValue(spec.name)}, not the job`;
  if (typeof spec.user !== 'string') return 'spec.user is not a string';
  if (!Array.isArray(spec.command) || !spec.command.every((c) => typeof c === 'string'))
    return 'spec.command is not a list of strings';
  if (!isObject(spec.env)) return 'spec.env is not an object';
  if (!isCount(spec.replicas, 1)) return `spec.replicas ${describeValue(spec.replicas)} is not a positive integer`;
  for (const key of ['maxRetries', 'maxTaskFailures', 'maxPreemptions'] as const) {
    if (!isCount(spec[key], 0)) return `spec.${key} ${describeValue(spec[key])} is not an integer >= 0`;
  }
  const resources = spec.resources;
  if (!isObject(resources) || !isNumber(resources.cpuMillis) || !isNumber(resources.memoryBytes))
    return 'spec.resources is not cpu and memory';
  if (!Array.isArray(spec.constraints)) return 'spec.constraints is not a list';
  if (spec.after !== undefined) {
    if (!Array.isArray(spec.after)) return 'spec.after is not a list';
    for (const dep of spec.after as unknown[]) {
      if (
        !isObject(dep) ||
        typeof dep.job !== 'string' ||
        !(DEPENDENCY_CONDITIONS as readonly unknown[]).includes(dep.condition)
      ) {
        return `spec.after holds ${describeValue(dep)}, not a dependency`;
      }
    }
  }
  return null;
}

/**
 * The spec a job whose stored spec cannot be read is loaded with: its name, `replicas` tasks,
 * nothing to run, no user. It is never scheduled: the job is quarantined (ends FAILED) at once.
 */
export function placeholderSpec(name: string, replicas: number): JobSpec {
  return {
    name,
    user: '',
    command: [],
    env: {},
    cwd: null,
    image: null,
    replicas,
    resources: { cpuMillis: 0, memoryBytes: 0, device: null },
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 0,
    timeoutMs: null,
    schedulingTimeoutMs: null,
  };
}

/** The message of anything thrown, for a problem's text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
