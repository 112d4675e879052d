/**
 * The one conversion from a job (stored, about to be stored, or the simulator's) to what the
 * scheduler reads: the controller's snapshot, the dry-run estimate, admission's never-fit check
 * and every job the simulator submits use it. Times are opaque: the job's time limit is passed on
 * in its own unit (ms in the cluster, seconds in the simulator).
 */
import { DEFAULT_BAND } from '../../model/band.js';
import type { Job, JobSpec } from '../../model/types.js';
import type { RuntimeEstimate, SchedulerJob } from '../scheduler/types.js';
import { mergeGroup } from '../../model/workload.js';

/** What the conversion reads of a job. */
export type SchedulableJob = Pick<Job, 'name' | 'depth' | 'rootSubmittedAt' | 'seq'> & {
  spec: Pick<
    JobSpec,
    | 'user'
    | 'resources'
    | 'constraints'
    | 'coschedule'
    | 'replicas'
    | 'timeoutMs'
    | 'category'
    | 'uses'
    | 'band'
    | 'queue'
  > &
    Partial<Pick<JobSpec, 'mergeKey' | 'image' | 'command'>>;
};

/**
 * The scheduler's view of a job (also of one not stored yet: a dry-run estimate). `estimate`: its
 * planned duration (planner/prediction.ts runtimeEstimate); a predicted one is what the planner plans with.
 */
export function schedulerJob(job: SchedulableJob, estimate?: RuntimeEstimate | null): SchedulerJob {
  return {
    name: job.name,
    depth: job.depth,
    rootSubmittedAt: job.rootSubmittedAt,
    seq: job.seq,
    user: job.spec.user,
    resources: job.spec.resources,
    constraints: job.spec.constraints,
    coschedule: job.spec.coschedule,
    replicas: job.spec.replicas,
    timeLimitMs: job.spec.timeoutMs,
    ...(estimate?.source === 'predicted' ? { predictedMs: estimate.duration } : {}),
    ...(job.spec.category ? { category: job.spec.category } : {}),
    ...(job.spec.uses?.length ? { uses: job.spec.uses } : {}),
    ...(job.spec.band && job.spec.band !== DEFAULT_BAND ? { band: job.spec.band } : {}),
    ...(job.spec.mergeKey ? { merge: mergeGroup(job.spec) } : {}),
    ...(job.spec.queue !== undefined ? { queue: job.spec.queue } : {}),
  };
}
