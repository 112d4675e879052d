/**
 * Runtime prediction for the planner, after EASY++ (Tsafrir, Etsion and Feitelson, "Backfilling
 * using system-generated predictions rather than user runtime estimates", IEEE TPDS 18(6), 2007).
 * The one home of the rule; the live cluster (controller snapshot, queue view, dry run) and the
 * simulator both use it. Times are opaque units (ms live, seconds in the simulator).
 *
 * Guarantees:
 * - A job whose time limit was given explicitly is planned with that limit. A job that runs under
 *   the default limit is planned with the mean of the last two runs of the same job (live: same
 *   name and user; the simulator says what identifies a job in a trace), or the one run there is,
 *   else with the limit. Only runs that succeeded are kept (RuntimeHistory).
 * - A run's runtime is per task (`runRuntime`): the mean, over its tasks whose final attempt
 *   succeeded, of that attempt's start (assignment) to its end. It is what every task of the next
 *   run is planned with, and it is measured from where the planner measures a running task's end
 *   (its attempt's start). An array's span (first start to last end) is not a task's runtime.
 * - A prediction is never above the limit and never below one unit. The limit still stops the task:
 *   the prediction only moves plans (reservations, backfill), never the kill.
 * - Correction: a running task that outlives its predicted end is planned to end at
 *   start + p·2^k, for the smallest k that puts it after now, and never after start + limit. The
 *   planned end, and the reservations behind it, move at the first pass past each step (EASY++
 *   moves reservations when a prediction proves too short; the doubling is this project's choice).
 * - Pure: no clock, no I/O. RuntimeHistory keeps two numbers per job at most.
 */

import type { JobSpec } from '../../../model/types.js';
import type { RuntimeEstimate } from '../types.js';

export type { EstimateSource, RuntimeEstimate } from '../types.js';

/** How many past runs a prediction reads. */
export const PREDICTION_RUNS = 2;

/**
 * The planned duration of a task. `limit`: the job's time limit (null/undefined or <= 0: none);
 * `predicted`: false when the limit was given explicitly (it is planned with as it is); `runs`:
 * the runtimes of the job's last successful runs, oldest first (only the last two are read).
 */
export function predictRuntime(
  limit: number | null | undefined,
  predicted: boolean,
  runs: readonly number[] | undefined,
): RuntimeEstimate {
  const cap = typeof limit === 'number' && limit > 0 ? limit : Infinity;
  if (!predicted || !runs || runs.length === 0) return { duration: cap, source: 'limit', runs: 0 };
  const last = runs.slice(-PREDICTION_RUNS);
  const mean = last.reduce((sum, r) => sum + r, 0) / last.length;
  const duration = Math.min(cap, Math.max(1, Math.round(mean)));
  // A prediction as long as the limit says nothing more than the limit does.
  return duration >= cap
    ? { duration: cap, source: 'limit', runs: 0 }
    : { duration, source: 'predicted', runs: last.length };
}

/**
 * When a task started at `start` is planned to end, seen at `now`: start + the estimate while
 * that is after now; past it, a predicted estimate doubles until it is (never past start + limit),
 * and a limit that has run out is planned as ending now (the task is being stopped).
 */
export function plannedEnd(
  start: number,
  estimate: RuntimeEstimate,
  limit: number | null | undefined,
  now: number,
): number {
  const cap = typeof limit === 'number' && limit > 0 ? start + limit : Infinity;
  let end = start + estimate.duration;
  if (estimate.source === 'predicted' && end <= now) {
    let span = estimate.duration;
    while (start + span <= now && start + span < cap) span *= 2;
    end = start + span;
  }
  return Math.max(now, Math.min(end, cap));
}

/** What `runRuntime` reads of an attempt. */
export interface TimedAttempt {
  state: string;
  startedAt: number;
  finishedAt: number | null;
}

/**
 * A finished run's runtime per task: the mean of `finishedAt - startedAt` over the final attempts
 * (one per task) that succeeded; null when none did. (The archive computes the same in SQL at load,
 * archive.ts `succeededRuntimes`, so a large array's record is not parsed there.)
 */
export function runRuntime(finalAttempts: Iterable<TimedAttempt | undefined>): number | null {
  let sum = 0;
  let count = 0;
  for (const a of finalAttempts) {
    if (a === undefined || a.state !== 'SUCCEEDED' || a.finishedAt === null) continue;
    sum += a.finishedAt - a.startedAt;
    count++;
  }
  return count === 0 ? null : sum / count;
}

/**
 * The last successful runtimes of each job, by a key the caller chooses (live: user and name).
 * `record` returns what it replaced so a transaction can put it back (`restore`).
 */
export class RuntimeHistory {
  private readonly byKey = new Map<string, readonly number[]>();

  /** The runtimes of `key`, oldest first (at most two); undefined: none. */
  runsOf(key: string): readonly number[] | undefined {
    return this.byKey.get(key);
  }

  /** Adds a finished run's runtime; returns the runs it had before (for `restore`). */
  record(key: string, runtime: number): readonly number[] | undefined {
    const before = this.byKey.get(key);
    if (!(runtime >= 0) || !Number.isFinite(runtime)) return before;
    const runs = before ? [...before.slice(1 - PREDICTION_RUNS), runtime] : [runtime];
    this.byKey.set(key, runs);
    return before;
  }

  /** Puts back what `record` returned (an undone transaction). */
  restore(key: string, runs: readonly number[] | undefined): void {
    if (runs === undefined) this.byKey.delete(key);
    else this.byKey.set(key, runs);
  }

  clear(): void {
    this.byKey.clear();
  }

  get size(): number {
    return this.byKey.size;
  }
}

/** The live cluster's key: runs of the same job are runs of the same name by the same user. */
export function runtimeKey(user: string, name: string): string {
  return `${user}\u0000${name}`;
}

/**
 * A live job's planned duration: predicted from the last runs of its name by its user when it
 * runs under the default time limit (`defaultTimeLimit`), else its limit.
 */
export function runtimeEstimate(
  spec: Pick<JobSpec, 'name' | 'user' | 'timeoutMs' | 'defaultTimeLimit'>,
  history: RuntimeHistory | null,
): RuntimeEstimate {
  const predicted = spec.defaultTimeLimit === true && history !== null;
  const runs = predicted ? history.runsOf(keyOf(spec)) : undefined;
  return predictRuntime(spec.timeoutMs, predicted, runs);
}

/**
 * A stored spec's key, made once: each pass asks for the estimate of every pending and running
 * job, and a key built anew is hashed anew (issue 36: under 30,000 one-task jobs the lookup's
 * share of the controller rose from 1.7% to 5.3% as the history grew).
 */
function keyOf(spec: Pick<JobSpec, 'name' | 'user'>): string {
  let key = specKeys.get(spec);
  if (key === undefined) {
    key = runtimeKey(spec.user, spec.name);
    specKeys.set(spec, key);
  }
  return key;
}

/** Specs are not changed once stored (a new submission is a new spec). */
const specKeys = new WeakMap<object, string>();
