/**
 * A job waiting on its dependencies, looked at again when one of them has ended (step 3 of the
 * job-end cascade, cascade.ts), decided. Rules of dependencies: dependencies.ts.
 *
 * - Met: it is released (its PENDING tasks join the queue). A pipeline stage's `${stages…}`
 *   references are resolved first (model/stage-refs.ts) and its spec takes the values; a
 *   reference that can never resolve, or an image that resolves to no image reference, fails it
 *   for good (`stage_reference_failed: …`); one not there yet keeps it waiting (`stage_reference_pending: …`,
 *   not a retry).
 * - Never met: it must end FAILED with reason `dependency /prep failed`, its cause
 *   `dependency_failure` naming that job (a change here; the end goes on with the cascade).
 * - Otherwise (still waiting, already released or ended, gone) nothing changes.
 */
import { isImageReference } from '../../model/image.js';
import { isFinalJobState } from '../../model/states.js';
import { REF_FAILED_REASON, hasStageRefs, resolveStageRefs } from '../../model/stage-refs.js';
import type { JobEnd } from './cascade.js';
import type { Change, JobRecord, LifecycleView } from './changes.js';
import { dependenciesStatus, dependencyFailureReason } from './dependencies.js';
import { PARENT_ENDED } from './retries.js';

/** What looking at a waiting job again decides: changes to apply now, then the end it must take (or null). */
export interface Settled {
  changes: readonly Change[];
  end: JobEnd<JobRecord> | null;
}

const NOTHING: Settled = { changes: [], end: null };

/** Look again at the job `name` (see the header). */
export function settleDependent(view: LifecycleView, name: string): Settled {
  const entry = view.job(name);
  if (!entry?.waiting || isFinalJobState(entry.job.state)) return NOTHING;
  const status = dependenciesStatus(entry.job.spec.after, (job) => view.job(job)?.job.state);
  if (status.kind === 'met') return releaseStage(view, entry);
  if (status.kind === 'never') {
    const reason = dependencyFailureReason(status.on, status.state);
    return {
      changes: [
        { kind: 'job', job: entry.job, patch: { cause: { kind: 'dependency_failure', parent: status.on.job } } },
      ],
      end: failed(entry, reason),
    };
  }
  return NOTHING;
}

const failed = (entry: JobRecord, reason: string): JobEnd<JobRecord> => ({
  entry,
  state: 'FAILED',
  reason,
  taskReason: reason,
  childReason: PARENT_ENDED,
});

/** Release a job whose dependencies are met, resolving a stage's references first (see the header). */
function releaseStage(view: LifecycleView, entry: JobRecord): Settled {
  const { job } = entry;
  const parts = { command: job.spec.command, env: job.spec.env, image: job.spec.image };
  if (!job.spec.stage || job.parent === null || !hasStageRefs(parts))
    return { changes: [{ kind: 'release', job: entry }], end: null };
  const resolved = resolveStageRefs(parts, (stage) => {
    const referenced = view.job(`${job.parent}/${stage}`)?.job;
    return referenced && { state: referenced.state, tasks: view.resultsOf(referenced) };
  });
  if (resolved.kind === 'never') return { changes: [], end: failed(entry, resolved.reason) };
  if (resolved.kind === 'pending')
    return { changes: [{ kind: 'job', job, patch: { reason: resolved.reason } }], end: null };
  const image = resolved.parts.image;
  if (image !== null && image !== job.spec.image && !isImageReference(image)) {
    return {
      changes: [],
      end: failed(entry, `${REF_FAILED_REASON}: image resolved to ${JSON.stringify(image)}, not an image reference`),
    };
  }
  return {
    changes: [
      { kind: 'job', job, patch: { spec: { ...job.spec, ...resolved.parts } } },
      { kind: 'release', job: entry },
    ],
    end: null,
  };
}
