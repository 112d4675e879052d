/**
 * A job waiting on its dependencies, looked at again when one of them has ended (a step of the
 * job-end cascade, lifecycle.ts and cascade.ts). Rules of dependencies: dependencies.ts.
 *
 * - Met: it is released (its PENDING tasks join the queue). A pipeline stage's `${stages…}`
 *   references are resolved first (model/stage-refs.ts) and its spec takes the values; a
 *   reference that can never resolve, or an image that resolves to no image reference, fails it
 *   (`stage_reference_pending: …`); one not there yet keeps it waiting with that reason (not a retry).
 * - Never met: it must end FAILED with reason `dependency /prep failed`, its cause
 *   `dependency_failure` naming that job (recorded here; the end is returned for the cascade).
 * - Otherwise (still waiting, already released or ended, gone) nothing changes.
 */
import { isImageReference } from '../../model/image.js';
import { isFinalJobState, type JobState } from '../../model/states.js';
import { REF_REASON, hasStageRefs, resolveStageRefs } from '../../model/stage-refs.js';
import type { Job } from '../../model/types.js';
import type { JobEnd } from './cascade.js';
import { dependenciesStatus, dependencyFailureReason } from '../lifecycle/dependencies.js';
import type { ClusterModel, JobEntry } from './model.js';
import { PARENT_ENDED } from '../lifecycle/retries.js';

/** The results of a job's tasks (their latest attempts): task index -> key -> value. */
export type ResultsOf = (job: Job) => ReadonlyMap<number, Readonly<Record<string, string>>>;

/** Look again at the job `name` (see the header): the end it must take now, or null. */
export function settleDependent(m: ClusterModel, name: string, resultsOf: ResultsOf): JobEnd<JobEntry> | null {
  const entry = m.jobs.get(name);
  if (!entry?.waiting || isFinalJobState(entry.job.state)) return null;
  const stateOf = (job: string): JobState | undefined => m.jobs.get(job)?.job.state;
  const status = dependenciesStatus(entry.job.spec.after, stateOf);
  if (status.kind === 'met') return releaseStage(m, entry, resultsOf);
  if (status.kind === 'never') {
    const reason = dependencyFailureReason(status.on, status.state);
    m.patchJob(entry.job, { cause: { kind: 'dependency_failure', parent: status.on.job } });
    return failed(entry, reason);
  }
  return null;
}

const failed = (entry: JobEntry, reason: string): JobEnd<JobEntry> => ({ entry, state: 'FAILED', reason, taskReason: reason, childReason: PARENT_ENDED });

/** Release a job whose dependencies are met, resolving a stage's references first (see the header). */
function releaseStage(m: ClusterModel, entry: JobEntry, resultsOf: ResultsOf): JobEnd<JobEntry> | null {
  const { job } = entry;
  const parts = { command: job.spec.command, env: job.spec.env, image: job.spec.image };
  if (!job.spec.stage || job.parent === null || !hasStageRefs(parts)) {
    m.releaseJob(entry);
    return null;
  }
  const resolved = resolveStageRefs(parts, (stage) => {
    const referenced = m.jobs.get(`${job.parent}/${stage}`)?.job;
    return referenced && { state: referenced.state, tasks: resultsOf(referenced) };
  });
  if (resolved.kind === 'never') return failed(entry, resolved.reason);
  if (resolved.kind === 'pending') {
    m.patchJob(job, { reason: resolved.reason });
    return null;
  }
  const image = resolved.parts.image;
  if (image !== null && image !== job.spec.image && !isImageReference(image)) {
    return failed(entry, `${REF_REASON}: image resolved to ${JSON.stringify(image)}, not an image reference`);
  }
  m.patchJob(job, { spec: { ...job.spec, ...resolved.parts } });
  m.releaseJob(entry);
  return null;
}
