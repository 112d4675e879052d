/**
 * Which blocked jobs preempt whom after a pass (docs/priorities.md, "Preemption"). Pure: reads the
 * snapshot and the pass's plan, answers a list of preemptions; the controller stops the victims
 * and holds their capacity for the preemptor (claims.ts), the simulator does the same.
 *
 * Guarantees:
 * - Only a job that the pass looked at and left with pending tasks (one it gave a reason), in a
 *   band above the lowest running band and above `batch`, with no claim of its own already (it
 *   waits for victims stopped before), is a preemptor; preemptors are taken in queue order, at
 *   most MAX_PREEMPTORS per pass.
 * - Cost: one walk over the running tasks; when some job may preempt, one walk over the pending
 *   tasks and the placements, then each preemptor's victim search over the workers that run a
 *   task below its band (room.ts).
 * - Effective bands: a running task its user holds beyond a soft quota (queue/shares.ts
 *   borrowedTasks) counts as `batch`, whatever its job's band; a task being stopped is no victim.
 *   So does a preemptor whose start would take its user past a soft quota (shares.ts wouldBorrow):
 *   only work within its quota reclaims, and two borrowing users never take turns preempting.
 * - Each preemptor's victims come from chooseVictims (victims.ts: lower bands only, never its own
 *   tree above it, exempt time, gangs whole, shape-aware, minimal) over the workers that pass the
 *   static filters for it with what the pass left free (room.ts preemptorView).
 * - Two preemptors never share a victim nor the capacity it frees: after one is chosen, its
 *   victims leave the running list and what its tasks will take leaves the free capacity.
 * - nextExemptEnd names when a running task's exempt time next ends while a job above batch is
 *   blocked, so the driver runs a pass then (a task that leaves its exempt time is no event).
 */
import { DEFAULT_BAND, bandRank } from '../../../model/band.js';
import { comparePending } from '../queue/order.js';
import { wouldBorrow } from '../queue/shares.js';
import type { Plan, Preemption, RunningAllocation, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { Room, preemptorView, runningViews } from './room.js';
import { chooseVictims } from './victims.js';

/** Preemptors looked at per pass: the head of the blocked queue (each costs a victim search). */
export const MAX_PREEMPTORS = 8;

/** `preemption.grace` by default: between a victim's SIGTERM and its SIGKILL (the config's and the simulator's). */
export const DEFAULT_PREEMPTION_GRACE_MS = 30_000;
/** `preemption.exempt` by default: a task is not preempted within this long of its start. */
export const DEFAULT_PREEMPTION_EXEMPT_MS = 60_000;

export interface PreemptionOptions {
  /** A task is not preempted within this long of its start. */
  exemptMs: number;
  /** Jobs holding a claim (waiting for victims stopped earlier): they start no new preemption. */
  claimants?: ReadonlySet<string>;
}

export type { Preemption } from '../types.js';

interface Blocked {
  job: SchedulerJob;
  tasks: number;
  head: SchedulerTask;
}

/**
 * The first MAX_PREEMPTORS jobs in queue order that may preempt tasks ranked `lowest`, with their
 * tasks left. The pass gives its blocked jobs their reasons in the order it walked them (queue
 * order), so only the first few candidates there are read; they are still sorted by queue order.
 */
function blockedHead(snapshot: Snapshot, plan: Plan, lowest: number, claimants?: ReadonlySet<string>): Blocked[] {
  const candidates = new Map<string, { job: SchedulerJob; count: number; head: SchedulerTask | null }>();
  for (const name of plan.reasons.keys()) {
    const job = snapshot.jobs.get(name);
    if (!job || bandRank(job.band ?? DEFAULT_BAND) >= lowest || claimants?.has(name)) continue;
    // Past its user's soft quota the work would be borrowed (batch): it preempts no one.
    const starting = job.coschedule !== null ? job.replicas : 1;
    if (wouldBorrow(snapshot.usage.get(job.user), snapshot.quotas.get(job.user), job.resources, starting)) continue;
    candidates.set(name, { job, count: 0, head: null });
    if (candidates.size >= 2 * MAX_PREEMPTORS) break;
  }
  if (candidates.size === 0) return [];
  for (const task of snapshot.pending) {
    const c = candidates.get(task.job);
    if (!c) continue;
    c.count++;
    const head = c.head;
    if (!head || task.submittedAt < head.submittedAt || (task.submittedAt === head.submittedAt && task.seq < head.seq))
      c.head = task;
  }
  for (const p of plan.placements) {
    const c = candidates.get(p.job);
    if (c) c.count--;
  }
  const blocked: Blocked[] = [];
  for (const { job, count, head } of candidates.values())
    if (count > 0 && head !== null) blocked.push({ job, tasks: count, head });
  blocked.sort((a, b) => comparePending(a.head, b.head, snapshot.jobs));
  return blocked.slice(0, MAX_PREEMPTORS);
}

/** The preemptions after `plan` (see the header); empty when no blocked job may or can preempt. */
export function planPreemptions(snapshot: Snapshot, plan: Plan, options: PreemptionOptions): Preemption[] {
  if (plan.reasons.size === 0) return [];
  let running = runningViews(snapshot);
  let lowest = 0;
  for (const r of running) lowest = Math.max(lowest, bandRank(r.band));
  if (lowest === 0) return [];
  const blocked = blockedHead(snapshot, plan, lowest, options.claimants);
  if (blocked.length === 0) return [];
  const room = new Room(snapshot, plan, running);
  const out: Preemption[] = [];
  for (const { job, tasks } of blocked) {
    const p = preemptorView(snapshot, job, tasks, room);
    if (p.workers.length === 0) continue;
    const choice = chooseVictims(p, running, { now: snapshot.now, exemptMs: options.exemptMs });
    if (choice.kind !== 'preempt') continue;
    out.push({ job: job.name, band: p.band, victims: choice.victims, workers: choice.workers, need: p.need });
    // The victims' capacity is this preemptor's now: freed, then taken by its tasks.
    const victims = new Set(choice.victims);
    for (const r of running) if (victims.has(r.task)) room.move(r.workerId, r, 1);
    for (const id of choice.workers) room.move(id, p.need, -1);
    running = running.filter((r) => !victims.has(r.task));
  }
  return out;
}

/** Up to three task ids, then how many more. */
function someTasks(ids: readonly string[]): string {
  return ids.slice(0, 3).join(', ') + (ids.length > 3 ? `, … (${ids.length - 3} more)` : '');
}

/**
 * What `iris submit --dry-run` says of a job that would start by preempting:
 * `would start by preempting /sweep/task-1 (1 task of a lower band)`.
 */
export function wouldPreemptText(p: Preemption): string {
  const n = p.victims.length;
  const what = n === 1 ? '1 task of a lower band' : `${n} tasks of lower bands`;
  return `would start by preempting ${someTasks(p.victims)} (${what})`;
}

/** The pending reason of a job that preempts: `preempting 2 tasks of lower bands to start: /sweep/task-0, …`. */
export function preemptingText(p: Preemption): string {
  const n = p.victims.length;
  return `preempting ${n} task${n === 1 ? '' : 's'} of lower bands to start: ${someTasks(p.victims)}`;
}

/**
 * The pending reason of a job whose victims are still stopping (the passes after the one that
 * preempted): `waiting for the tasks it preempted to stop: /sweep/task-1 (capacity held on w0)`.
 */
export function waitingForVictimsText(victims: readonly string[], workers: readonly string[]): string {
  return `waiting for the tasks it preempted to stop: ${someTasks(victims)} (capacity held on ${workers.join(', ')})`;
}

/**
 * After a pass that left `reasons` (its blocked jobs): when the next running task that some blocked
 * job could preempt (below the highest blocked band; with quotas, any) leaves its exempt time
 * (`exemptMs` after its start); null when none, or no blocked job is above batch. A task may be
 * preempted from then on with nothing else happening, so the driver (the pass loop, the simulator)
 * runs a pass then.
 */
export function nextExemptEnd(
  reasons: ReadonlyMap<string, string>,
  jobs: ReadonlyMap<string, SchedulerJob>,
  running: Iterable<RunningAllocation>,
  now: number,
  exemptMs: number,
  anyQuota = false,
): number | null {
  if (exemptMs <= 0) return null;
  // The highest band a blocked job is in (batch preempts nothing).
  let top = Infinity;
  for (const job of reasons.keys()) top = Math.min(top, bandRank(jobs.get(job)?.band ?? DEFAULT_BAND));
  if (top >= bandRank('batch')) return null;
  let next = Infinity;
  for (const r of running) {
    // Below that band, or (with quotas) any band: a borrowed task counts as batch.
    if (r.stopping || (!anyQuota && bandRank(r.band ?? DEFAULT_BAND) <= top)) continue;
    const end = (r.startedAt ?? now) + exemptMs;
    if (end > now && end < next) next = end;
  }
  return next === Infinity ? null : next;
}
