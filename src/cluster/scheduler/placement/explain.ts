/**
 * One human reason for why a job's tasks cannot be placed, found by walking the placement chain
 * (filters.ts) in order, narrowing the workers filter by filter. When the filter that leaves no
 * worker is the only one that turned any down, its summary is the reason (reason.ts `summarize`:
 * `need 2 CPU, largest free worker has 1`); when several did, the reason names every one of them
 * with the number of workers it excluded (`no worker fits: 1 excluded by constraint zone=b, 2 too
 * little free CPU (need 2, largest free 1)`), so a worker excluded by a constraint is never hidden
 * behind a capacity shortfall. The walk checks without reasons; only the workers turned down are
 * checked again with reasons, once the job is known to be blocked. A gang (needing `count` workers in one group of its
 * coschedule
 * attribute) is also checked for group size after the never filters (`largest group has`) and
 * after the whole chain (`largest free group has`); when free groups are large enough but no TPU
 * slice has its hosts 0..count-1 free (task i runs on host i, gang.ts), the reason names the busy
 * host of each slice (`slice-a host 0 (tpu-a-0) is busy`). With `view.free` absent only the never
 * filters run and null means some idle worker (or gang group) could run the job: that is the
 * submit-time never check (feasibility.ts). A sticky stage (filters.ts STICKY) that runs out of
 * workers after the sticky filter turned the others down waits for its worker:
 * `sticky_worker_busy: waiting for worker w1 (where /p/train ran)`.
 */
import { FILTERS, NEVER_FILTERS, type PlacementView, type WorkerFilter } from './filters.js';
import { groupWorkers } from './gang.js';
import {
  compositeText,
  exclusionParts,
  groupText,
  hostOrderText,
  stickyText,
  summarize,
  type BlockedHost,
  type Reason,
} from './reason.js';
import type { SchedulerJob, Verdict, WorkerView } from '../types.js';

function largestGroup(workers: readonly WorkerView[], list: readonly number[], attribute: string): number {
  const sizes = new Map<string, number>();
  let best = 0;
  for (const w of list) {
    const value = workers[w]!.attributes[attribute]!;
    const size = (sizes.get(value) ?? 0) + 1;
    sizes.set(value, size);
    if (size > best) best = size;
  }
  return best;
}

/** A failed verdict's reasons (the chain's filters only make `Reason`s). */
function reasonsOf(verdict: Verdict): readonly Reason[] {
  return verdict.kind === 'ok' ? [] : (verdict.reasons as readonly Reason[]);
}

/**
 * Filters whose exclusions a composite reason leaves unnamed: the device type (the reason already
 * says `gpu worker`), and draining workers at submit time (they count as absent there).
 */
function silent(filter: WorkerFilter, view: PlacementView): boolean {
  return filter.name === 'device-type' || (filter.name === 'schedulable' && !view.free);
}

/** Index of the last filter of `kind` in `chain`, or -1. */
function lastOfKind(chain: readonly WorkerFilter[], kind: 'never' | 'not_now'): number {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i]!.kind === kind) return i;
  return -1;
}

const LAST_NEVER = lastOfKind(FILTERS, 'never');

/**
 * Why `job` (needing `count` workers in one group when it is a gang) cannot be placed on
 * `view`, or null when nothing in the view stops it.
 */
export function explainJob(job: SchedulerJob, count: number, view: PlacementView): string | null {
  const { workers } = view;
  const gang = job.coschedule;
  const chain = view.free ? FILTERS : NEVER_FILTERS;
  let list: number[] = [];
  for (let w = 0; w < workers.length; w++) list.push(w);
  /** The workers each filter turned down so far, in chain order. */
  const excluded: Array<{ filter: WorkerFilter; workers: number[] }> = [];
  /** The workers the never filters kept (a gang's, to tell a busy host from one it may not use). */
  let usable: readonly number[] = list;
  for (let i = 0; i < chain.length; i++) {
    const filter = chain[i]!;
    if (filter.appliesTo(job)) {
      const kept: number[] = [];
      let rejected: number[] | null = null;
      for (const w of list) {
        if (filter.check(job, view, w, false).kind === 'ok') kept.push(w);
        else (rejected ??= []).push(w);
      }
      if (rejected && !silent(filter, view)) excluded.push({ filter, workers: rejected });
      if (kept.length === 0) {
        // A gang that runs out of workers now is short of a free group, whichever filter did it.
        if (gang !== null && filter.kind === 'not_now') return groupText(job, count, 0, true);
        // A sticky stage whose worker has no room waits for it, whatever the other workers have.
        if (job.sticky != null && excluded.some((e) => e.filter.name === 'sticky')) return stickyText(job);
        const explained = (ws: readonly number[], f: WorkerFilter) =>
          ws.map((w) => reasonsOf(f.check(job, view, w, true)));
        if (excluded.length <= 1 || excluded[excluded.length - 1]!.filter !== filter) {
          return summarize(filter.name, job, workers.length, explained(list, filter), count);
        }
        return compositeText(
          job,
          excluded.flatMap((e) => exclusionParts(e.filter.name, job, explained(e.workers, e.filter))),
        );
      }
      list = kept;
    }
    if (gang !== null && (i === LAST_NEVER || i === chain.length - 1)) {
      const free = filter.kind === 'not_now';
      const largest = largestGroup(workers, list, gang);
      if (largest < count) return groupText(job, count, largest, free);
      if (!free) usable = list;
      else if (i === chain.length - 1) return blockedHosts(job, count, workers, usable, list);
    }
  }
  return null;
}

/**
 * For a gang with `count` free workers in some group: null when some group can take it now
 * (gang.ts pickMembers: a TPU slice's hosts 0..count-1, else any `count` members), else the
 * reason naming each slice's first needed host that is not free (`now`), or that the job may not
 * use at all (not in `usable`).
 */
function blockedHosts(
  job: SchedulerJob,
  count: number,
  workers: readonly WorkerView[],
  usable: readonly number[],
  now: readonly number[],
): string | null {
  const free = new Set(now);
  const allowed = new Set(usable);
  const blocked: BlockedHost[] = [];
  let more = 0;
  for (const group of groupWorkers(workers, job.coschedule!)) {
    const { members } = group;
    if (members.length < count) continue;
    if (!group.hostOrdered) {
      if (members.filter((w) => free.has(w)).length >= count) return null;
      continue;
    }
    const host = members.findIndex((w, k) => k < count && !free.has(w));
    if (host < 0 || host >= count) return null;
    const w = members[host]!;
    if (blocked.length < 3) blocked.push({ group: group.value, host, worker: workers[w]!, busy: allowed.has(w) });
    else more++;
  }
  return blocked.length > 0 ? hostOrderText(job, count, blocked, more) : null;
}
