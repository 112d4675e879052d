/**
 * Which blocked jobs preempt whom after a pass (docs/priorities.md, "Preemption"). Pure: reads the
 * snapshot and the pass's plan, answers a list of preemptions; the controller stops the victims
 * and holds their capacity for the preemptor (claims.ts), the simulator does the same.
 *
 * Guarantees:
 * - Only a job that the pass left with pending tasks, in a band above `batch`, with no claim of its
 *   own already (it waits for victims stopped before), is a preemptor; preemptors are taken in
 *   queue order, at most MAX_PREEMPTORS per pass.
 * - Effective bands: a running task its user holds beyond a soft quota (queue/shares.ts
 *   borrowedTasks) counts as `batch`, whatever its job's band; a task being stopped is no victim.
 * - Each preemptor's victims come from chooseVictims (victims.ts: lower bands only, never its own
 *   tree above it, exempt time, gangs whole, shape-aware, minimal) over the workers that pass the
 *   static filters for it (placement/filters.ts NEVER_FILTERS) with what the pass left free.
 * - Two preemptors never share a victim nor the capacity it frees: after one is chosen, its
 *   victims leave the running list and what its tasks will take leaves the free capacity.
 * - nextExemptEnd names when a running task's exempt time next ends while a job above batch is
 *   blocked, so the driver runs a pass then (a task that leaves its exempt time is no event).
 */
import { bandAbove, bandOf, type Band } from '../../../model/band.js';
import { checkWorker, NEVER_FILTERS } from '../placement/filters.js';
import { devicesNeeded } from '../placement/fit.js';
import { orderPending } from '../queue/order.js';
import { borrowedTasks, type RunningUse } from '../queue/shares.js';
import type { Plan, Preemption, SchedulerJob, Snapshot } from '../types.js';
import { chooseVictims, type Amount, type PreemptorView, type RunningTaskView } from './victims.js';

/** Preemptors looked at per pass: the head of the blocked queue (each costs a victim search). */
export const MAX_PREEMPTORS = 8;

export interface PreemptionOptions {
  /** A task is not preempted within this long of its start. */
  exemptMs: number;
  /** Jobs holding a claim (waiting for victims stopped earlier): they start no new preemption. */
  claimants?: ReadonlySet<string>;
}

export type { Preemption } from '../types.js';

const need = (job: SchedulerJob): Amount => ({
  cpuMillis: job.resources.cpuMillis,
  memoryBytes: job.resources.memoryBytes,
  devices: devicesNeeded(job.resources),
});

/** Running tasks as victim selection sees them: effective bands, stopping ones left out. */
function runningViews(snapshot: Snapshot): RunningTaskView[] {
  const running = snapshot.running ?? [];
  const uses: RunningUse[] = [];
  for (const r of running) {
    if (r.stopping || r.user === undefined) continue;
    uses.push({
      task: r.task,
      user: r.user,
      startedAt: r.startedAt ?? 0,
      cpuMillis: r.cpuMillis,
      memoryBytes: r.memoryBytes,
      accelerators: r.devices,
    });
  }
  const borrowed = snapshot.quotas.size > 0 ? borrowedTasks(uses, snapshot.quotas) : new Map<string, string>();
  const out: RunningTaskView[] = [];
  for (const r of running) {
    if (r.stopping) continue;
    out.push({
      task: r.task,
      job: r.job,
      workerId: r.workerId,
      cpuMillis: r.cpuMillis,
      memoryBytes: r.memoryBytes,
      devices: r.devices,
      band: borrowed.has(r.task) ? 'batch' : bandOf(r),
      startedAt: r.startedAt ?? 0,
      gang: r.gang ? r.job : null,
    });
  }
  return out;
}

/** Free capacity per worker after the plan's placements. */
function freeAfter(snapshot: Snapshot, plan: Plan): Map<string, Amount> {
  const free = new Map<string, Amount>();
  for (const w of snapshot.workers)
    free.set(w.id, { cpuMillis: w.free.cpuMillis, memoryBytes: w.free.memoryBytes, devices: w.free.devices.length });
  for (const p of plan.placements) {
    const job = snapshot.jobs.get(p.job);
    const left = free.get(p.workerId);
    if (!job || !left) continue;
    free.set(p.workerId, minus(left, need(job)));
  }
  return free;
}

const minus = (a: Amount, b: Amount): Amount => ({
  cpuMillis: a.cpuMillis - b.cpuMillis,
  memoryBytes: a.memoryBytes - b.memoryBytes,
  devices: a.devices - b.devices,
});

/** The preemptor as victim selection sees it: its statically feasible workers, grouped for a gang. */
function preemptorView(snapshot: Snapshot, job: SchedulerJob, tasks: number, free: Map<string, Amount>) {
  const view = { workers: snapshot.workers };
  const workers: Array<{ id: string; free: Amount }> = [];
  const groups = new Map<string, string[]>();
  snapshot.workers.forEach((worker, w) => {
    if (checkWorker(job, view, w, false, NEVER_FILTERS).kind !== 'ok') return;
    workers.push({ id: worker.id, free: free.get(worker.id)! });
    if (job.coschedule === null) return;
    const value = worker.attributes[job.coschedule]!;
    const group = groups.get(value);
    if (group) group.push(worker.id);
    else groups.set(value, [worker.id]);
  });
  const p: PreemptorView = {
    job: job.name,
    band: job.band ?? 'interactive',
    need: need(job),
    tasks,
    gang: job.coschedule !== null,
    workers,
    ...(job.coschedule !== null ? { groups: [...groups.values()], onePerWorker: true } : {}),
  };
  return p;
}

/** The preemptions after `plan` (see the header); empty when no blocked job may or can preempt. */
export function planPreemptions(snapshot: Snapshot, plan: Plan, options: PreemptionOptions): Preemption[] {
  const placed = new Map<string, number>();
  for (const p of plan.placements) placed.set(p.job, (placed.get(p.job) ?? 0) + 1);
  // Blocked jobs above batch, in queue order, with the tasks each has left.
  const blocked: Array<{ job: SchedulerJob; tasks: number }> = [];
  const left = new Map<string, number>();
  for (const task of snapshot.pending) left.set(task.job, (left.get(task.job) ?? 0) + 1);
  const seen = new Set<string>();
  for (const task of orderPending(snapshot)) {
    if (seen.has(task.job)) continue;
    seen.add(task.job);
    const job = snapshot.jobs.get(task.job);
    if (!job || (job.band ?? 'interactive') === 'batch' || options.claimants?.has(job.name)) continue;
    const tasks = (left.get(job.name) ?? 0) - (placed.get(job.name) ?? 0);
    // A gang places whole: it needs all its pending tasks at once.
    if (tasks > 0) blocked.push({ job, tasks });
    if (blocked.length >= MAX_PREEMPTORS) break;
  }
  if (blocked.length === 0) return [];
  let running = runningViews(snapshot);
  if (!running.some((r) => r.band !== 'production')) return [];
  const free = freeAfter(snapshot, plan);
  const out: Preemption[] = [];
  for (const { job, tasks } of blocked) {
    const p = preemptorView(snapshot, job, tasks, free);
    const choice = chooseVictims(p, running, { now: snapshot.now, exemptMs: options.exemptMs });
    if (choice.kind !== 'preempt') continue;
    out.push({ job: job.name, band: p.band, victims: choice.victims, workers: choice.workers, need: p.need });
    // The victims' capacity is this preemptor's now: freed, then taken by its tasks.
    const victims = new Set(choice.victims);
    for (const r of running) {
      if (!victims.has(r.task)) continue;
      const at = free.get(r.workerId);
      if (at)
        free.set(r.workerId, {
          cpuMillis: at.cpuMillis + r.cpuMillis,
          memoryBytes: at.memoryBytes + r.memoryBytes,
          devices: at.devices + r.devices,
        });
    }
    for (const id of choice.workers) free.set(id, minus(free.get(id)!, p.need));
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
 * The earliest time after `snapshot.now` a running task's exempt time ends that a job the pass
 * left blocked could then preempt (its own band below the highest blocked band; with quotas any
 * band, a borrowed task counting as batch); null when none or no blocked job is above batch.
 */
export function nextExemptEnd(snapshot: Snapshot, plan: Plan, exemptMs: number): number | null {
  const placed = new Map<string, number>();
  for (const p of plan.placements) placed.set(p.job, (placed.get(p.job) ?? 0) + 1);
  const left = new Map<string, number>();
  for (const t of snapshot.pending) left.set(t.job, (left.get(t.job) ?? 0) + 1);
  let top: Band | null = null;
  for (const [name, n] of left) {
    const job = snapshot.jobs.get(name);
    if (!job || n <= (placed.get(name) ?? 0)) continue;
    const band = job.band ?? 'interactive';
    if (band !== 'batch' && (top === null || bandAbove(band, top))) top = band;
  }
  if (top === null) return null;
  let next: number | null = null;
  for (const r of snapshot.running ?? []) {
    if (r.stopping || r.startedAt === undefined) continue;
    if (snapshot.quotas.size === 0 && !bandAbove(top, bandOf(r))) continue;
    const end = r.startedAt + exemptMs;
    if (end > snapshot.now && (next === null || end < next)) next = end;
  }
  return next;
}

/**
 * The pending reason of a job whose victims are still stopping (the passes after the one that
 * preempted): `waiting for the tasks it preempted to stop: /sweep/task-1 (capacity held on w0)`.
 */
export function waitingForVictimsText(victims: readonly string[], workers: readonly string[]): string {
  return `waiting for the tasks it preempted to stop: ${someTasks(victims)} (capacity held on ${workers.join(', ')})`;
}
