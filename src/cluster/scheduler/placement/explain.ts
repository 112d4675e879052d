/**
 * One human reason for why a job's tasks cannot be placed, found by walking the placement chain
 * (filters.ts) in order, narrowing the workers filter by filter. When the filter that leaves no
 * worker is the only one that turned any down, its summary is the reason (reason.ts `summarize`:
 * `need 2 CPU, largest free worker has 1`); when several did, the reason names every one of them
 * with the number of workers it excluded (`no worker fits: 1 excluded by constraint zone=b, 2 too
 * little free CPU (need 2, largest free 1)`), so a worker excluded by a constraint is never hidden
 * behind a capacity shortfall. The walk checks without reasons; only the workers turned down are
 * checked again with reasons, once the job is known to be blocked. A gang (needing `count` workers
 * in one group of its coschedule attribute) is also checked for group size after the never
 * filters (`largest group has`). In a pass, a gang that no group can take now gets ONE reason
 * (`gangNow`), a partial gang or a whole slice alike: for TPU slices (task i runs on host i,
 * gang.ts) it names, per slice, the needed hosts that cannot take their task and why, in the
 * single-worker words for a worker's state (reason.ts `offText`): `slice-a host 0 (slice-a-0) is
 * busy, host 2 (slice-a-2) is disabled (by user)`; otherwise `largest free group has`. A slice
 * short only of hosts that are disabled or draining is named so rather than counted out as
 * never; a group of workers that are all removed from the config is never named. With
 * `view.free` absent only the never filters run and null means some idle worker (or gang group)
 * could run the job: that is the
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
  type BlockedGroup,
  type HostBlock,
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
        // A gang that runs out of workers now is short of free hosts or a free group, whichever filter did it.
        if (gang !== null && filter.kind === 'not_now') return gangNow(job, count, view, usable, []);
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
    if (gang !== null && i === LAST_NEVER) {
      usable = list;
      const largest = largestGroup(workers, list, gang);
      // In a pass, a group short only of hosts that are disabled or draining is named by gangNow instead.
      if (largest < count && !(view.free && largestGroup(workers, usableIfUp(job, workers), gang) >= count)) {
        return groupText(job, count, largest, false);
      }
    }
    if (gang !== null && view.free && i === chain.length - 1) return gangNow(job, count, view, usable, list);
  }
  return null;
}

/** The workers that would pass the never filters if every one not removed from the config were up again. */
function usableIfUp(job: SchedulerJob, all: readonly WorkerView[]): number[] {
  const workers = all.map((w) => (w.schedulable || w.removed ? w : { ...w, schedulable: true }));
  const view: PlacementView = { workers };
  const out: number[] = [];
  for (let w = 0; w < workers.length; w++) {
    if (NEVER_FILTERS.every((f) => !f.appliesTo(job) || f.check(job, view, w, false).kind === 'ok')) out.push(w);
  }
  return out;
}

/** Hosts named per group, and groups named, at most. */
const NAMED_HOSTS = 3;
const NAMED_GROUPS = 3;

/**
 * Why a gang of `count` gets no group now, or null when some group can take it (gang.ts
 * pickMembers: a TPU slice's hosts 0..count-1, else any `count` members). `usable`: the workers
 * the never filters kept; `now`: those of them that can take a task now. For each TPU slice with
 * enough hosts (not all removed), its needed hosts not free now: busy (usable), off (disabled,
 * draining, removed: up again they could run it) or not for this job at all.
 */
function gangNow(
  job: SchedulerJob,
  count: number,
  view: PlacementView,
  usable: readonly number[],
  now: readonly number[],
): string | null {
  const { workers } = view;
  const free = new Set(now);
  const allowed = new Set(usable);
  let up: Set<number> | null = null;
  const why = (w: number): HostBlock => {
    if (allowed.has(w)) return 'busy';
    const worker = workers[w]!;
    if (worker.schedulable) return 'cannot';
    if (worker.removed) return 'off';
    up ??= new Set(usableIfUp(job, workers));
    return up.has(w) ? 'off' : 'cannot';
  };
  const blocked: BlockedGroup[] = [];
  let more = 0;
  for (const group of groupWorkers(workers, job.coschedule!)) {
    const { members } = group;
    if (members.length < count || members.every((w) => workers[w]!.removed)) continue;
    if (!group.hostOrdered) {
      if (members.filter((w) => free.has(w)).length >= count) return null;
      continue;
    }
    const hosts: Array<{ host: number; worker: WorkerView; why: HostBlock }> = [];
    let extra = 0;
    for (let k = 0; k < count; k++) {
      const w = members[k]!;
      if (free.has(w)) continue;
      if (hosts.length < NAMED_HOSTS) hosts.push({ host: k, worker: workers[w]!, why: why(w) });
      else extra++;
    }
    if (hosts.length === 0) return null;
    if (blocked.length < NAMED_GROUPS) blocked.push({ group: group.value, hosts, more: extra });
    else more++;
  }
  if (blocked.length > 0) return hostOrderText(job, count, blocked, more);
  return groupText(job, count, largestGroup(workers, now, job.coschedule!), true);
}
