/**
 * Pure rules that turn store change events into metric increments (docs/metrics.md). No metrics
 * library here: ClusterMetrics (cluster-metrics.ts) feeds these answers into prom-client, and the
 * density series (density.ts) uses the same submission rule.
 *
 * Guarantees:
 * - A job run is a new submission exactly once: the first time an event shows a run id above every
 *   run id seen before (run ids only grow, docs/architecture.md "Runs"). `retry` makes a new run
 *   and so counts as a submission too.
 * - A job run is counted as a failure at most once: when an event shows it in a final state other
 *   than SUCCEEDED while it was last seen unfinished, or when it is new and already ended (a job
 *   cascaded at submission). Memory is bounded by the unfinished jobs.
 * - An attempt is a dispatch once: the first event that shows it unfinished.
 *   Memory is bounded by the live attempts.
 */
import type { StoreEvent } from '../../cluster/state/events.js';
import { isFailureState, isFinalJobState } from '../../model/states.js';
import type { Attempt, Job, PlacementDecision } from '../../model/types.js';

/** Values of the `cause` label of iris_job_failures_total (docs/metrics.md). */
export const FAILURE_CAUSES = ['dependency_failure', 'task_failed', 'unschedulable', 'worker_failed'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];

/**
 * Why an ended job failed, or null when it did not fail: SUCCEEDED, and KILLED by a cancel (a
 * cancellation is not a failure). A cause recorded on the job (a dependency that can never be
 * met) wins over its state.
 */
export function failureCause(job: Pick<Job, 'state' | 'cause'>): FailureCause | null {
  if (job.cause?.kind === 'dependency_failure') return 'dependency_failure';
  if (isFailureState(job.state)) return 'task_failed';
  switch (job.state) {
    case 'UNSCHEDULABLE':
      return 'unschedulable';
    case 'WORKER_FAILED':
      return 'worker_failed';
    default:
      return null;
  }
}

/** What one store change event adds to the counters. */
export interface Increments {
  /** A new job run: its task count (replicas). */
  submittedTasks?: number;
  failure?: FailureCause;
  /** A new attempt, with its placement decision when placement recorded one. */
  dispatch?: { placement: PlacementDecision | null };
}

const attemptId = (a: Pick<Attempt, 'task' | 'attempt'>): string => `${a.task}#${a.attempt}`;

/** Remembers just enough of the store's history to count each submission, failure and dispatch once. */
export class EventDeriver {
  private highestRun: number;
  /** Unfinished jobs: name -> run. */
  private readonly unfinished = new Map<string, number>();
  /** Attempts seen unfinished. */
  private readonly live = new Set<string>();

  /** Starts from the store as it is: its jobs and live attempts are not new. */
  constructor(jobs: Iterable<Job>, liveAttempts: Iterable<Attempt>) {
    let highest = 0;
    for (const job of jobs) {
      highest = Math.max(highest, job.run);
      if (!isFinalJobState(job.state)) this.unfinished.set(job.name, job.run);
    }
    this.highestRun = highest;
    for (const attempt of liveAttempts) this.live.add(attemptId(attempt));
  }

  observe(event: StoreEvent): Increments {
    if (event.type === 'job') return this.job(event.job);
    if (event.type === 'attempt') return this.attempt(event.attempt);
    return {};
  }

  private job(job: Job): Increments {
    const out: Increments = {};
    const isNew = job.run > this.highestRun;
    if (isNew) {
      this.highestRun = job.run;
      out.submittedTasks = job.spec.replicas;
    }
    if (!isFinalJobState(job.state)) {
      this.unfinished.set(job.name, job.run);
      return out;
    }
    const wasUnfinished = this.unfinished.get(job.name) === job.run;
    if (wasUnfinished) this.unfinished.delete(job.name);
    if (wasUnfinished || isNew) {
      const cause = failureCause(job);
      if (cause) out.failure = cause;
    }
    return out;
  }

  private attempt(attempt: Attempt): Increments {
    const id = attemptId(attempt);
    if (attempt.finishedAt !== null) {
      // Ended: forget it. (Attempts are created in the pass's transaction and end in a later one.)
      this.live.delete(id);
      return {};
    }
    if (this.live.has(id)) return {};
    this.live.add(id);
    return { dispatch: { placement: attempt.placement ?? null } };
  }
}
