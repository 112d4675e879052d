/**
 * Context-reuse cache hints (issue 15 §2, docs/architecture.md "Context reuse"): which workers
 * recently loaded a model or data set that jobs `use` (JobSpec.uses), so placement can prefer
 * them. Applied to the in-memory model inside the store's transactions; persisted in the
 * `cache_hints` table through the journal like every other row.
 *
 * Rules:
 * - A hint is written when an attempt of a job that uses keys ENDS on a worker after its task
 *   started there (the task was RUNNING: its process or container ran), whatever the end:
 *   succeeded, failed, killed, preempted. An attempt that ends while its task is still ASSIGNED
 *   (a launch failure, a cancel before the start) ran nothing and holds nothing. The hint for
 *   each key expires at end time + `placement.cache-ttl`; a later run there refreshes it.
 * - While an attempt of a job using KEY is live (task ASSIGNED or RUNNING) on a worker, that
 *   worker counts as `loading` KEY. This is derived from the active attempts, never stored.
 * - Expired hints are dropped lazily: readers ignore them; the worker's own expired hints go when
 *   a new hint is written there, and all of them on prune (retention). A worker no longer in the
 *   configuration loses its hints (syncWorkers).
 */
import type { Attempt } from '../../model/types.js';
import type { CacheHint } from '../scheduler/types.js';
import type { ClusterModel } from './model.js';

/** Within a transaction, before the task's state changes: record the hints of attempt `a` that is ending now. */
export function recordAttemptEnd(m: ClusterModel, a: Attempt): void {
  const task = m.tasks.get(a.task);
  if (task?.state !== 'RUNNING') return; // it never started: nothing was loaded
  const uses = m.jobs.get(task.job)?.job.spec.uses;
  if (!uses?.length || !m.workers.has(a.workerId)) return;
  const now = m.now();
  dropExpiredOf(m, a.workerId, now);
  for (const key of uses) m.putCacheHint(a.workerId, key, now + m.cacheTtlMs);
}

function dropExpiredOf(m: ClusterModel, worker: string, now: number): void {
  const keys = m.cacheHints.get(worker);
  if (!keys) return;
  for (const [key, expiresAt] of [...keys]) if (expiresAt <= now) m.putCacheHint(worker, key, null);
}

/** Within a transaction: drop every expired hint. */
export function dropExpiredHints(m: ClusterModel, now: number): void {
  for (const worker of [...m.cacheHints.keys()]) dropExpiredOf(m, worker, now);
}

/** Within a transaction: drop every hint of `worker` (it left the configuration). */
export function dropWorkerHints(m: ClusterModel, worker: string): void {
  for (const key of [...(m.cacheHints.get(worker)?.keys() ?? [])]) m.putCacheHint(worker, key, null);
}

/**
 * The hints in force at `now`: worker id -> key -> hint. Fresh stored hints (expiresAt > now),
 * plus `loading` for every key a live attempt on the worker uses; a loading key with no fresh
 * hint gets expiresAt now + TTL (the earliest it could lapse if the attempt ended now).
 * Workers without hints are absent. Costs one walk over the hints and the active attempts.
 */
export function hintsAt(m: ClusterModel, now: number): Map<string, Map<string, CacheHint>> {
  const out = new Map<string, Map<string, CacheHint>>();
  const entry = (worker: string): Map<string, CacheHint> => {
    let keys = out.get(worker);
    if (!keys) out.set(worker, (keys = new Map()));
    return keys;
  };
  for (const [worker, keys] of m.cacheHints) {
    for (const [key, expiresAt] of keys) if (expiresAt > now) entry(worker).set(key, { key, expiresAt, loading: false });
  }
  for (const a of m.active.values()) {
    const task = m.tasks.get(a.task);
    const uses = task && m.jobs.get(task.job)?.job.spec.uses;
    if (!uses?.length) continue;
    const keys = entry(a.workerId);
    for (const key of uses) {
      const hint = keys.get(key);
      keys.set(key, { key, expiresAt: Math.max(hint?.expiresAt ?? 0, now + m.cacheTtlMs), loading: true });
    }
  }
  return out;
}
