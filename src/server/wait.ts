/**
 * Waiting for jobs to end: the server side of `POST /v1/wait` (docs/api.md; docs/architecture.md,
 * "Waiting").
 *
 * Guarantees:
 * - A job has ended when it and every job of its subtree are in a final state. The answer comes
 *   when all the waited jobs have ended (`any`: one of them), or with `done: false` when the
 *   timeout passes or the signal aborts (the client went away, the cluster is stopping).
 * - Woken by the store's job events under the waited names, never by polling.
 * - `block` is held from the moment it starts waiting until it answers, times out or is
 *   abandoned, and never longer: with a task token the service registers the wait there
 *   (ControllerService.blockedOn), and the registry decides whether the task's CPU is released.
 */
import type { ClusterStore, StoreEvent } from '../cluster/state/store.js';
import { isWithin } from '../model/names.js';
import { notFound } from '../model/errors.js';
import { chainedTimeout } from '../cluster/controller/timers.js';

export interface WaitQuery {
  /** Canonical job names. */
  jobs: string[];
  any: boolean;
  /** null: no limit. */
  timeoutMs: number | null;
}

/**
 * Resolves true once the jobs have ended, false on timeout or abort. Throws not_found for an
 * unknown job. `block` is called when the request starts waiting (not when it can answer at
 * once) and the function it returns when the wait is over: the caller registers the wait there.
 */
export async function waitForJobs(
  store: ClusterStore,
  query: WaitQuery,
  signal: AbortSignal,
  block: () => () => void,
): Promise<boolean> {
  // A job that ended and left memory (state/finished-trees.ts) is known by its archived run: ended.
  for (const name of query.jobs)
    if (store.jobState(name) === undefined) throw notFound(`unknown job ${name}`, 'list jobs with `iris jobs`');
  const done = () =>
    query.any
      ? query.jobs.some((name) => store.subtreeEnded(name))
      : query.jobs.every((name) => store.subtreeEnded(name));
  if (done()) return true;
  if (signal.aborted || query.timeoutMs === 0) return false;
  const unblock = block();
  try {
    return await new Promise<boolean>((resolve) => {
      const finish = (ended: boolean) => {
        store.events.off('change', onChange);
        signal.removeEventListener('abort', onAbort);
        cancelTimer?.();
        resolve(ended);
      };
      const onChange = (event: StoreEvent) => {
        if (event.type !== 'job' || !query.jobs.some((name) => isWithin(event.job.name, name))) return;
        if (done()) finish(true);
      };
      const onAbort = () => finish(false);
      const cancelTimer = query.timeoutMs === null ? null : chainedTimeout(query.timeoutMs, () => finish(false));
      store.events.on('change', onChange);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    unblock();
  }
}
