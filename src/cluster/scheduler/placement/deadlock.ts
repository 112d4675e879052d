/**
 * Deadlocks (docs/architecture.md, "Deadlocks"): a pending job that can only ever run on
 * resources held by its own waiting ancestors.
 *
 * Guarantees:
 * - A job is deadlocked exactly when (1) an idle cluster could run it (the never filters of the
 *   placement chain pass, so it is not a plain "never"), and (2) it still cannot be placed when
 *   every running attempt has ended except its *waiting ancestors*: attempts of tasks of a
 *   strict ancestor job that are blocked in a wait on jobs whose subtrees contain it. Such an
 *   attempt holds its memory and devices, and its CPU unless its wait released it.
 * - Both questions are asked of the one placement chain (filters.ts, explain.ts) with a
 *   `PlacementView` whose free capacity is capacity minus what those ancestors hold; a gang is
 *   asked for its whole group, as everywhere else.
 * - The reason names the resource and each ancestor holding it:
 *   `deadlock: needs 1 GPU H100; /train/task-0 holds it while waiting on /train/eval`.
 * Pure: the holds are plain data built by the controller (or admission) from its waits.
 */
import { isWithin, jobDepth, parentJob } from '../../../model/names.js';
import { explainJob } from './explain.js';
import { presentWorkers } from './feasibility.js';
import { checkWorker, FREE_CAPACITY, NEVER_FILTERS, type PlacementView } from './filters.js';
import { CAPACITY_ITEMS, needOf, needText, type CapacityItem, type Reason } from './reason.js';
import type { FreeCapacity, SchedulerJob, WorkerView } from '../types.js';

/** How long a job may stay deadlocked before the controller ends it (the config's `deadlock-grace`). */
export const DEFAULT_DEADLOCK_GRACE_MS = 30_000;

/** One running attempt blocked in a wait, and what it holds meanwhile. */
export interface WaitingHold {
  /** The attempt's task (`/train/task-0`) and that task's job (`/train`). */
  readonly task: string;
  readonly job: string;
  /** Jobs its waits in progress are on (their subtrees included). */
  readonly waitingOn: readonly string[];
  /** Worker id the attempt runs on. */
  readonly worker: string;
  /** CPU it holds: 0 while one of its waits releases it. */
  readonly cpuMillis: number;
  readonly memoryBytes: number;
  /** Device indices it holds on its worker. */
  readonly devices: readonly number[];
}

/** A waiting ancestor of a job: the hold and the waited job whose subtree contains the job. */
export interface WaitingAncestor {
  readonly hold: WaitingHold;
  readonly on: string;
}

/** Each waited name -> its first place in a hold's `waitingOn`, built once per list (a wait keeps its list). */
const placesOf = new WeakMap<readonly string[], Map<string, number>>();
function waitedPlaces(waitingOn: readonly string[]): Map<string, number> {
  let places = placesOf.get(waitingOn);
  if (places === undefined) {
    places = new Map();
    waitingOn.forEach((name, i) => {
      if (!places!.has(name)) places!.set(name, i);
    });
    placesOf.set(waitingOn, places);
  }
  return places;
}

/**
 * The holds of attempts of strict ancestors of `job` waiting on a subtree containing it; shallowest
 * first. Each hold is asked about `job` and its ancestors (at most 16 names), never walked through
 * its whole list: a pipeline root waits on every stage, and a pass asks this of a ready stage.
 */
export function waitingAncestors(job: string, holds: readonly WaitingHold[]): WaitingAncestor[] {
  const out: WaitingAncestor[] = [];
  for (const hold of holds) {
    if (hold.job === job || !isWithin(job, hold.job)) continue;
    // The first waited name (in the hold's order) whose subtree contains the job.
    const places = waitedPlaces(hold.waitingOn);
    let on: string | undefined;
    let first = Infinity;
    for (let name: string | null = job; name !== null; name = parentJob(name)) {
      const at = places.get(name);
      if (at !== undefined && at < first) [on, first] = [name, at];
    }
    if (on !== undefined) out.push({ hold, on });
  }
  return out.sort(
    (a, b) =>
      jobDepth(a.hold.job) - jobDepth(b.hold.job) ||
      (a.hold.task < b.hold.task ? -1 : a.hold.task > b.hold.task ? 1 : 0),
  );
}

/** Free capacity of each worker if everything but `ancestors` had ended. */
function freeBeside(workers: readonly WorkerView[], ancestors: readonly WaitingAncestor[]): FreeCapacity[] {
  return workers.map((worker) => {
    let cpuMillis = worker.capacity.cpuMillis;
    let memoryBytes = worker.capacity.memoryBytes;
    const held = new Set<number>();
    for (const { hold } of ancestors) {
      if (hold.worker !== worker.id) continue;
      cpuMillis -= hold.cpuMillis;
      memoryBytes -= hold.memoryBytes;
      for (const index of hold.devices) held.add(index);
    }
    const devices: number[] = [];
    for (let i = 0; i < worker.device.count; i++) if (!held.has(i)) devices.push(i);
    return { cpuMillis, memoryBytes, devices };
  });
}

function holdsItem(hold: WaitingHold, item: CapacityItem): boolean {
  return item === 'cpu' ? hold.cpuMillis > 0 : item === 'memory' ? hold.memoryBytes > 0 : hold.devices.length > 0;
}

/** The items short on the deadlock view: those short on every eligible worker, else each short on some. */
function shortItems(job: SchedulerJob, view: PlacementView, eligible: readonly number[]): CapacityItem[] {
  const failures = eligible.map((w) => {
    const verdict = FREE_CAPACITY.check(job, view, w, true);
    return verdict.kind === 'ok' ? [] : (verdict.reasons as readonly Reason[]).map((r) => r.item);
  });
  const everywhere = CAPACITY_ITEMS.filter(
    (item) => failures.length > 0 && failures.every((items) => items.includes(item)),
  );
  if (everywhere.length > 0) return everywhere;
  const some = CAPACITY_ITEMS.filter((item) => failures.some((items) => items.includes(item)));
  if (some.length > 0) return some;
  // A gang short of a group of workers that each fit alone: name what the job asks for.
  return CAPACITY_ITEMS.filter((item) => needOf(item, job.resources) > 0);
}

/**
 * The deadlock reason of `job` (needing `count` workers in one group when it is a gang), or
 * null when it is not deadlocked: it has no waiting ancestor, an idle cluster could not run it
 * either, or it fits beside its waiting ancestors.
 */
export function deadlockReason(
  job: SchedulerJob,
  count: number,
  workers: readonly WorkerView[],
  holds: readonly WaitingHold[],
): string | null {
  return deadlockReasonBeside(job, count, workers, waitingAncestors(job.name, holds));
}

/** deadlockReason for a job whose waiting ancestors (waitingAncestors) are known. */
export function deadlockReasonBeside(
  job: SchedulerJob,
  count: number,
  all: readonly WorkerView[],
  ancestors: readonly WaitingAncestor[],
): string | null {
  if (ancestors.length === 0) return null;
  const workers = presentWorkers(all); // a disabled worker may take the job later: no deadlock on its account
  const idle: PlacementView = { workers };
  if (explainJob(job, count, idle) !== null) return null;
  const free = freeBeside(workers, ancestors);
  const view: PlacementView = { workers, free: (w) => free[w]! };
  if (explainJob(job, count, view) === null) return null;

  const eligible: number[] = [];
  for (let w = 0; w < workers.length; w++)
    if (checkWorker(job, idle, w, false, NEVER_FILTERS).kind === 'ok') eligible.push(w);
  const items = shortItems(job, view, eligible);
  const eligibleIds = new Set(eligible.map((w) => workers[w]!.id));
  let named: readonly WaitingAncestor[] = ancestors.filter(
    ({ hold }) => eligibleIds.has(hold.worker) && items.some((item) => holdsItem(hold, item)),
  );
  if (named.length === 0) named = ancestors;
  const pronoun = items.length === 1 ? 'it' : 'them';
  const who = named.map(({ hold, on }) => `${hold.task} holds ${pronoun} while waiting on ${on}`).join('; ');
  return `deadlock: needs ${items.map((item) => needText(item, job.resources)).join(' and ')}; ${who}`;
}
