/**
 * One scheduling pass: `schedule(snapshot) -> Plan`. Pure and deterministic: reads only the
 * snapshot, never mutates it, and the same snapshot always yields the same plan.
 *
 * 1. Order pending tasks (order.ts); tasks of unknown jobs are ignored.
 * 2. Gangs first, in queue order of their first task: all-or-nothing (gang.ts).
 * 3. Independent tasks: first-fit in queue order with no head-of-line blocking — a task that
 *    does not fit is skipped and smaller ones behind it still run. Once a task shape fails, every
 *    later task of the same shape fails in O(1) (free capacity only shrinks within a pass).
 * Within both phases a user at/over a running quota (at the start or after this pass's own
 * placements) has their remaining work deferred behind everyone else's, keeping its order.
 * 4. Every job with tasks still pending gets one human reason (explain.ts).
 */
import { CandidateIndex } from './candidates.js';
import { devicesNeeded, shapeKey, staticKey } from './fit.js';
import { explainJob } from './explain.js';
import { GangPlacer } from './gang.js';
import { orderPending } from './order.js';
import { QuotaTracker } from './quota.js';
import { ScratchCapacity } from './scratch.js';
import type { Placement, Plan, SchedulerJob, SchedulerTask, Snapshot } from './types.js';

interface JobInfo {
  job: SchedulerJob;
  staticKey: string;
  shapeKey: string;
  devices: number;
}

export function schedule(snapshot: Snapshot): Plan {
  const scratch = new ScratchCapacity(snapshot.workers);
  const candidates = new CandidateIndex(scratch);
  const gangs = new GangPlacer(scratch, candidates);
  const quota = new QuotaTracker(snapshot.usage, snapshot.quotas);
  const placements: Placement[] = [];
  const placed = new Set<string>();
  const quotaDeferredJobs = new Set<string>();
  const infos = new Map<string, JobInfo>();
  const infoOf = (job: SchedulerJob): JobInfo => {
    let info = infos.get(job.name);
    if (!info) {
      info = { job, staticKey: staticKey(job), shapeKey: shapeKey(job), devices: devicesNeeded(job.resources) };
      infos.set(job.name, info);
    }
    return info;
  };

  // Split the queue into gangs (by job, in order of their first task) and independent tasks.
  const gangTasks = new Map<string, SchedulerTask[]>();
  const independent: SchedulerTask[] = [];
  const independentJob: SchedulerJob[] = [];
  let lastName: string | null = null;
  let lastJob: SchedulerJob | undefined;
  for (const task of orderPending(snapshot)) {
    if (task.job !== lastName) {
      lastName = task.job;
      lastJob = snapshot.jobs.get(task.job);
    }
    if (!lastJob) continue;
    if (lastJob.coschedule !== null) {
      let list = gangTasks.get(lastJob.name);
      if (!list) gangTasks.set(lastJob.name, (list = []));
      list.push(task);
    } else {
      independent.push(task);
      independentJob.push(lastJob);
    }
  }

  // Gangs.
  const failedGangs = new Set<string>();
  const placeGang = (job: SchedulerJob, tasks: SchedulerTask[]): void => {
    const attribute = job.coschedule!;
    const members = [...tasks].sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1));
    const key = `${infoOf(job).shapeKey}@${attribute}@${members.length}`;
    if (failedGangs.has(key)) return;
    const chosen = gangs.choose(job, attribute, members.length);
    if (!chosen) {
      failedGangs.add(key);
      return;
    }
    const devices = gangs.commit(job, chosen);
    members.forEach((task, k) => {
      placements.push({ task: task.id, job: job.name, workerId: scratch.workers[chosen[k]!]!.id, deviceIndices: devices[k]! });
      placed.add(task.id);
      quota.add(job.user, job.resources);
    });
  };
  const deferredGangs: Array<[SchedulerJob, SchedulerTask[]]> = [];
  for (const [name, tasks] of gangTasks) {
    const job = snapshot.jobs.get(name)!;
    if (quota.overReason(job.user) !== null) {
      deferredGangs.push([job, tasks]);
      quotaDeferredJobs.add(name);
    } else {
      placeGang(job, tasks);
    }
  }
  for (const [job, tasks] of deferredGangs) placeGang(job, tasks);

  // Independent tasks: first-fit through the FreePool of the job's static key.
  const failedShapes = new Set<string>();
  const placeTask = (task: SchedulerTask, job: SchedulerJob): void => {
    const info = infoOf(job);
    if (failedShapes.has(info.shapeKey)) return;
    const res = job.resources;
    const pool = candidates.poolOf(job, info.staticKey);
    const position = pool.findFirst(res.cpuMillis, res.memoryBytes, info.devices);
    if (position < 0) {
      failedShapes.add(info.shapeKey);
      return;
    }
    const w = pool.members[position]!;
    const deviceIndices = scratch.consume(w, res);
    placements.push({ task: task.id, job: job.name, workerId: scratch.workers[w]!.id, deviceIndices });
    placed.add(task.id);
    quota.add(job.user, res);
  };
  const deferred: number[] = [];
  for (let i = 0; i < independent.length; i++) {
    const job = independentJob[i]!;
    if (quota.overReason(job.user) !== null) {
      deferred.push(i);
      quotaDeferredJobs.add(job.name);
    } else {
      placeTask(independent[i]!, job);
    }
  }
  for (const i of deferred) placeTask(independent[i]!, independentJob[i]!);

  return { placements, reasons: reasonsFor(snapshot, scratch, quota, placed, gangTasks, quotaDeferredJobs, infoOf) };
}

function reasonsFor(
  snapshot: Snapshot,
  scratch: ScratchCapacity,
  quota: QuotaTracker,
  placed: ReadonlySet<string>,
  gangTasks: ReadonlyMap<string, SchedulerTask[]>,
  quotaDeferredJobs: ReadonlySet<string>,
  infoOf: (job: SchedulerJob) => JobInfo,
): Map<string, string> {
  const waiting = new Set<string>();
  for (const task of snapshot.pending) {
    if (!placed.has(task.id) && snapshot.jobs.has(task.job)) waiting.add(task.job);
  }
  const memo = new Map<string, string>();
  const view = { workers: snapshot.workers, free: (w: number) => scratch.free(w), gangTaken: scratch.gangTaken };
  const reasons = new Map<string, string>();
  for (const name of [...waiting].sort()) {
    const job = snapshot.jobs.get(name)!;
    const count = job.coschedule !== null ? gangTasks.get(name)?.length ?? job.replicas : 1;
    const key = `${infoOf(job).shapeKey}@${job.coschedule ?? ''}@${count}`;
    let reason = memo.get(key);
    if (reason === undefined) {
      reason = explainJob(job, count, view) ?? 'waiting for capacity';
      memo.set(key, reason);
    }
    const quotaReason = quotaDeferredJobs.has(name) ? quota.overReason(job.user) : null;
    reasons.set(name, quotaReason ? `${quotaReason}; ${reason}` : reason);
  }
  return reasons;
}
