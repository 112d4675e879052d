/**
 * Context-reuse cache hints in the store: the rules (lifecycle/cache-hints.ts) applied to the
 * in-memory model inside the store's transactions, and persisted in the `cache_hints` table
 * through the journal like every other row. Times are epoch ms; the TTL is `model.cacheTtlMs`.
 * (What an ended attempt leaves comes with the lifecycle's changes, lifecycle.ts.)
 */
import {
  expiredHints,
  hintsInForce,
  workerHintsDropped,
  type HintChange,
  type HintsInForce,
} from '../lifecycle/cache-hints.js';
import type { ClusterModel } from './model.js';

function apply(m: ClusterModel, changes: readonly HintChange[]): void {
  for (const c of changes) m.putCacheHint(c.worker, c.key, c.expiresAt);
}

/** Within a transaction: drop every expired hint. */
export function dropExpiredHints(m: ClusterModel, now: number): void {
  for (const worker of [...m.cacheHints.keys()]) apply(m, expiredHints(worker, m.cacheHints.get(worker), now));
}

/** Within a transaction: drop every hint of `worker` (it left the configuration). */
export function dropWorkerHints(m: ClusterModel, worker: string): void {
  apply(m, workerHintsDropped(worker, m.cacheHints.get(worker)));
}

/** The keys the live attempts use, by worker (one entry per attempt of a job that uses keys). */
function* loadingKeys(m: ClusterModel): Generator<readonly [string, readonly string[]]> {
  for (const a of m.active.values()) {
    const task = m.tasks.get(a.task);
    const uses = task && m.jobs.get(task.job)?.job.spec.uses;
    if (uses?.length) yield [a.workerId, uses];
  }
}

/** The hints in force at `now` (lifecycle/cache-hints.ts hintsInForce): worker id -> key -> hint. */
export function hintsAt(m: ClusterModel, now: number): HintsInForce {
  return hintsInForce(m.cacheHints, loadingKeys(m), now, m.cacheTtlMs);
}
