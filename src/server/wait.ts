/**
 * Waiting for jobs to end: the server side of `POST /v1/wait` (docs/api.md; docs/architecture.md,
 * "Waiting").
 *
 * Guarantees:
 * - A job has ended when it and every job of its subtree are in a final state. The answer comes
 *   when all the waited jobs have ended (`any`: one of them), or with `done: false` when the
 *   timeout passes or the signal aborts (the client went away, the cluster is stopping).
 * - Woken by the store's job events under the waited names, never by polling. An event looks
 *   only at the waited names its job lies under (its own name and its ancestors', at most 16),
 *   and the answer is kept as the set of waited names not yet ended: a wait on every stage of a
 *   10,000-stage pipeline (its root's) costs each event a bounded amount, not a pass over the
 *   10,000 names (which made running a long pipeline quadratic).
 * - `block` is held from the moment it starts waiting until it answers, times out or is
 *   abandoned, and never longer: with a task token the service registers the wait there
 *   (ControllerService.blockedOn), and the registry decides whether the task's CPU is released.
 */
import type { ClusterStore, StoreEvent } from '../cluster/state/store.js';
import { parentJob } from '../model/names.js';
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
  const waited = new Set(query.jobs);
  // The waited names whose subtree has not ended; each is looked at again only on an event under it.
  const open = new Set<string>();
  for (const name of waited) if (!store.subtreeEnded(name)) open.add(name);
  const done = () => (query.any ? open.size < waited.size : open.size === 0);
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
        if (event.type !== 'job') return;
        let touched = false;
        for (let name: string | null = event.job.name; name !== null; name = parentJob(name)) {
          if (!waited.has(name)) continue;
          touched = true;
          if (store.subtreeEnded(name)) open.delete(name);
          else open.add(name);
        }
        if (touched && done()) finish(true);
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
