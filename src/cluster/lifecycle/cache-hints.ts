/**
 * Context-reuse cache hints (issue 15 §2, docs/architecture.md "Context reuse"): the rules of which
 * workers hold which keys (models or data sets that jobs `use`, JobSpec.uses), for the live store
 * and the simulator alike. Pure: each keeps its own table of stored hints (worker -> key ->
 * expiresAt) and applies the changes decided here. Times are opaque numbers (ms in the cluster,
 * seconds in the simulator); `ttl` is in the same unit (config `placement.cache-ttl`).
 *
 * Rules:
 * - A hint is written when an attempt of a job that uses keys ENDS on a worker after its task
 *   started there (the task was RUNNING: its process or container ran), whatever the end:
 *   succeeded, failed, killed, preempted. An attempt that ends while its task is still ASSIGNED
 *   (a launch failure, a cancel before the start) ran nothing and holds nothing. The hint for
 *   each key expires at end time + ttl; a later run there refreshes it.
 * - A stored hint is fresh while its expiry is later than now. While an attempt of a job using
 *   KEY is live (task ASSIGNED or RUNNING) on a worker, that worker counts as `loading` KEY: this is
 *   derived from the live attempts, never stored. A key is warm on a worker when it is loading
 *   there or its hint there is fresh.
 * - Expired hints are dropped lazily: readers ignore them; the worker's own expired hints go when
 *   a new hint is written there, and all of them on prune (retention). A worker no longer in the
 *   configuration loses its hints.
 */
import type { CacheHint } from '../scheduler/types.js';

/** Set (expiresAt a time) or drop (null) one stored hint. */
export interface HintChange {
  readonly kind: 'hint';
  readonly worker: string;
  readonly key: string;
  readonly expiresAt: number | null;
}

/** A worker's stored hints: key -> expiresAt. */
export type StoredHints = ReadonlyMap<string, number>;

/** The hints in force: worker id -> key -> hint (Snapshot.cacheHints). */
export type HintsInForce = Map<string, Map<string, CacheHint>>;

/** A stored hint counts at `now` while it has not expired. */
export function isFresh(expiresAt: number, now: number): boolean {
  return expiresAt > now;
}

/** A key is warm on a worker when a live attempt there uses it (`loading`) or its stored hint there is fresh. */
export function isWarm(expiresAt: number | undefined, loading: boolean, now: number): boolean {
  return loading || (expiresAt !== undefined && isFresh(expiresAt, now));
}

/** The stored hints of `worker` that have expired at `now`, dropped. */
export function expiredHints(worker: string, stored: StoredHints | undefined, now: number): HintChange[] {
  const out: HintChange[] = [];
  if (stored)
    for (const [key, expiresAt] of stored)
      if (!isFresh(expiresAt, now)) out.push({ kind: 'hint', worker, key, expiresAt: null });
  return out;
}

/** Every stored hint of `worker`, dropped (it left the configuration). */
export function workerHintsDropped(worker: string, stored: StoredHints | undefined): HintChange[] {
  return stored ? [...stored.keys()].map((key) => ({ kind: 'hint', worker, key, expiresAt: null })) : [];
}

/**
 * What an attempt that ends at `now` on `worker` leaves (see the header), added to `out`: the
 * worker's expired hints dropped, then each key it used held until now + ttl. Nothing when it
 * never ran (`ran`: its task was RUNNING), used nothing, or the worker is not one the cluster knows.
 */
export function hintsOfEndedAttempt(
  out: { push(change: HintChange): unknown },
  worker: string,
  ran: boolean,
  uses: readonly string[] | undefined,
  known: boolean,
  stored: StoredHints | undefined,
  now: number,
  ttl: number,
): void {
  if (!ran || !uses?.length || !known) return;
  for (const change of expiredHints(worker, stored, now)) out.push(change);
  for (const key of uses) out.push({ kind: 'hint', worker, key, expiresAt: now + ttl });
}

/**
 * The hints in force at `now`: the fresh stored hints, plus `loading` for every key a live attempt
 * uses on its worker (`loading`: worker -> keys, once per live attempt or once per worker); a
 * loading key gets expiresAt max(its fresh hint, now + ttl), the earliest it could lapse if the
 * attempt ended now. Workers with nothing in force are absent. One walk over both.
 */
export function hintsInForce(
  stored: Iterable<readonly [string, StoredHints]>,
  loading: Iterable<readonly [string, Iterable<string>]>,
  now: number,
  ttl: number,
): HintsInForce {
  const out: HintsInForce = new Map();
  const entry = (worker: string): Map<string, CacheHint> => {
    let keys = out.get(worker);
    if (!keys) out.set(worker, (keys = new Map()));
    return keys;
  };
  for (const [worker, keys] of stored) {
    for (const [key, expiresAt] of keys)
      if (isFresh(expiresAt, now)) entry(worker).set(key, { key, expiresAt, loading: false });
  }
  for (const [worker, uses] of loading) {
    for (const key of uses) {
      const keys = entry(worker);
      const hint = keys.get(key);
      keys.set(key, { key, expiresAt: Math.max(hint?.expiresAt ?? 0, now + ttl), loading: true });
    }
  }
  return out;
}
