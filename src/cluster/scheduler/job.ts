/**
 * The one conversion from a stored (or about to be stored) job to what the scheduler reads:
 * the controller's snapshot, the dry-run estimate and admission's never-fit check all use it.
 */
import type { Job } from '../../model/types.js';
import type { SchedulerJob } from './types.js';

/** The scheduler's view of a job (also of one not stored yet: a dry-run estimate). */
export function schedulerJob(job: Pick<Job, 'name' | 'depth' | 'rootSubmittedAt' | 'seq' | 'spec'>): SchedulerJob {
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
    ...(job.spec.category ? { category: job.spec.category } : {}),
    ...(job.spec.uses?.length ? { uses: job.spec.uses } : {}),
  };
}
