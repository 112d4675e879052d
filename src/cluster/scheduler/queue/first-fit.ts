/**
 * One scheduling pass: `schedule(snapshot) -> Plan`. Pure and deterministic: reads only the
 * snapshot, never mutates it, and the same snapshot always yields the same plan.
 *
 * 1. Order pending tasks (order.ts); tasks of unknown jobs are ignored.
 * 2. Gangs first, in queue order of their first task: all-or-nothing (gang.ts).
 * 3. Independent tasks: in queue order with no head-of-line blocking — a task that does not
 *    fit is skipped and smaller ones behind it still run. Each goes to the best feasible worker
 *    by the placement's scorers (placement/scoring.ts); with first-fit (worker order only), done
 *    through the FreePool of the job's candidates. Free capacity only shrinks within a pass, so
 *    per task shape we keep a cursor (workers before it never fit that shape again; first-fit
 *    only) and a failed flag (every later task of a shape that failed fails in O(1)). Under a
 *    baseline mode that binds work to a worker (placement/baselines.ts) a failure is the job's,
 *    not the shape's, and the mode's reason and next memory go into the plan.
 * Within both phases a user at/over a soft running quota (at the start or after this pass's own
 * placements) has their remaining work deferred behind everyone else's, keeping its order. A user
 * with a hard quota places no task (no gang, checked whole) that would take their running usage
 * past it: the job waits with the reason naming the quota (shares.ts hardQuotaReason).
 * 4. Every job with tasks still pending gets one human reason (explain.ts); with `explain` false
 *    the same jobs get an empty text (the simulator's fast path, as the queue policies' option).
 */
import { CandidateIndex } from '../placement/candidates.js';
import { devicesNeeded, shapeKey, staticKey } from '../placement/fit.js';
import { explainJob } from '../placement/explain.js';
import { GangPlacer } from '../placement/gang.js';
import { orderPending } from './order.js';
import type { FreePool } from '../placement/pool.js';
import { QuotaTracker } from './quota.js';
import { hardQuotaReason } from './shares.js';
import { FIRST_FIT_PLACEMENT, keepsAccelerators, passSelector } from '../placement/registry.js';
import type { PassSelector, PlacementProfile } from '../placement/scoring.js';
import { ScratchCapacity } from '../placement/scratch.js';
import type { Placement, Plan, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';

/** Per task shape (static key + amounts): where first-fit resumes, and whether it already failed. */
interface Shape {
  key: string;
  staticKey: string;
  devices: number;
  pool: FreePool | null;
  /** A selector's candidates (the static key's workers in snapshot order); no FreePool is kept for it. */
  members: readonly number[] | null;
  /** A selector's fit test for the shape (the free-capacity test of its amounts, one closure per shape). */
  fits: ((w: number) => boolean) | null;
  cursor: number;
  failed: boolean;
}

interface JobState {
  job: SchedulerJob;
  shape: Shape;
  hasQuota: boolean;
  tasks: SchedulerTask[];
  placed: number;
  quotaDeferred: boolean;
  /** Why the user's hard quota holds the job's next task (or gang); null: not held. */
  hold: string | null;
  /** A baseline mode could not place a task of this job (PassSelector.perJob): later ones wait too. */
  failed?: boolean;
}

export function schedule(snapshot: Snapshot, placement: PlacementProfile = FIRST_FIT_PLACEMENT, explain = true): Plan {
  const scratch = new ScratchCapacity(snapshot.workers);
  const view = {
    workers: snapshot.workers,
    free: (w: number) => scratch.free(w),
    gangTaken: scratch.gangTaken,
    capacity: scratch, // `fits` below is the free-capacity test on these (PassSelector.select with a shape)
  };
  const selector = passSelector(placement, snapshot, view);
  const candidates = new CandidateIndex(scratch, !selector && keepsAccelerators(placement));
  const gangs = new GangPlacer(scratch, candidates);
  const quota = new QuotaTracker(snapshot.usage, snapshot.quotas);
  const placements: Placement[] = [];

  // Group the queue by job, keeping queue order (of first task) for jobs and tasks.
  const shapes = new Map<string, Shape>();
  const states = new Map<string, JobState>();
  const gangJobs: JobState[] = [];
  const independent: JobState[] = [];
  const independentTasks: SchedulerTask[] = [];
  let last: JobState | undefined;
  // A snapshot that says its pending list is in queue order (the simulator's) is read as it is.
  for (const task of snapshot.pendingOrdered === true ? snapshot.pending : orderPending(snapshot)) {
    if (!last || last.job.name !== task.job) {
      last = states.get(task.job);
      if (!last) {
        const job = snapshot.jobs.get(task.job);
        if (!job) continue;
        const key = shapeKey(job);
        let shape = shapes.get(key);
        if (!shape) {
          shape = {
            key,
            staticKey: staticKey(job),
            devices: devicesNeeded(job.resources),
            pool: null,
            members: null,
            fits: null,
            cursor: 0,
            failed: false,
          };
          shapes.set(key, shape);
        }
        last = {
          job,
          shape,
          hasQuota: snapshot.quotas.has(job.user),
          tasks: [],
          placed: 0,
          quotaDeferred: false,
          hold: null,
        };
        states.set(task.job, last);
        if (job.coschedule !== null) gangJobs.push(last);
      }
    }
    last.tasks.push(task);
    if (last.job.coschedule === null) {
      independent.push(last);
      independentTasks.push(task);
    }
  }
  const overQuota = (state: JobState): boolean => state.hasQuota && quota.overReason(state.job.user) !== null;
  /** The hard quota's reason to hold `count` more tasks of the job now, or null. */
  const held = (state: JobState, count: number): string | null => {
    if (!state.hasQuota) return null;
    const user = state.job.user;
    return hardQuotaReason(user, quota.usageOf(user), snapshot.quotas.get(user), state.job.resources, count);
  };

  // Gangs: all-or-nothing; a failed (shape, attribute, size) is not retried this pass.
  const failedGangs = new Set<string>();
  const placeGang = (state: JobState): void => {
    const job = state.job;
    const attribute = job.coschedule!;
    const members = [...state.tasks].sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1));
    const key = `${state.shape.key}@${attribute}@${members.length}`;
    if (failedGangs.has(key)) return;
    if ((state.hold = held(state, members.length)) !== null) return;
    const chosen = gangs.choose(job, attribute, members.length);
    if (!chosen) {
      failedGangs.add(key);
      return;
    }
    const devices = gangs.commit(job, chosen);
    members.forEach((task, k) => {
      placements.push({
        task: task.id,
        job: job.name,
        workerId: scratch.workers[chosen[k]!]!.id,
        deviceIndices: devices[k]!,
      });
      quota.add(job.user, job.resources);
    });
    state.placed = members.length;
  };
  const deferredGangs: JobState[] = [];
  for (const state of gangJobs) {
    if (overQuota(state)) {
      state.quotaDeferred = true;
      deferredGangs.push(state);
    } else {
      placeGang(state);
    }
  }
  for (const state of deferredGangs) placeGang(state);

  // Independent tasks: first-fit through the FreePool of the job's static key.
  const placeTask = (task: SchedulerTask, state: JobState): void => {
    const shape = state.shape;
    if (shape.failed || state.failed || state.hold !== null) return;
    if ((state.hold = held(state, 1)) !== null) return;
    const job = state.job;
    const res = job.resources;
    let w: number;
    if (!selector) {
      shape.pool ??= candidates.poolOf(job, shape.staticKey);
      const position = shape.pool.findFirst(res.cpuMillis, res.memoryBytes, shape.devices, shape.cursor);
      shape.cursor = position;
      w = position < 0 ? -1 : shape.pool.members[position]!;
    } else {
      // A selector reads the candidate list only: no FreePool, whose upkeep on every consume would
      // be first-fit's index kept for nothing (and cache misses where placements spread out).
      shape.members ??= candidates.of(job, shape.staticKey).members;
      shape.fits ??= (m) => scratch.fits(m, res); // the shape key holds cpu, memory and devices
      w = selector.select(job, task, shape.members, shape.fits, shape.key);
    }
    if (w < 0) {
      if (selector?.perJob) state.failed = true;
      else shape.failed = true;
      return;
    }
    const deviceIndices = scratch.consume(w, res);
    const decision = selector?.decision;
    placements.push(
      decision
        ? { task: task.id, job: job.name, workerId: scratch.workers[w]!.id, deviceIndices, decision }
        : { task: task.id, job: job.name, workerId: scratch.workers[w]!.id, deviceIndices },
    );
    selector?.placed(job, w);
    state.placed++;
    if (state.hasQuota) quota.add(job.user, res);
  };
  const deferred: number[] = [];
  for (let i = 0; i < independent.length; i++) {
    const state = independent[i]!;
    if (overQuota(state)) {
      state.quotaDeferred = true;
      deferred.push(i);
    } else {
      placeTask(independentTasks[i]!, state);
    }
  }
  for (const i of deferred) placeTask(independentTasks[i]!, independent[i]!);

  const plan: Plan = {
    placements,
    reasons: explain ? reasonsFor(snapshot, scratch, quota, states, selector) : emptyReasons(states),
  };
  const memory = selector?.memory?.();
  if (memory) plan.placementMemory = memory;
  return plan;
}

/** Without reason text (explain false): an empty text for each job with tasks left, in queue order. */
function emptyReasons(states: ReadonlyMap<string, JobState>): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const state of states.values()) if (state.placed < state.tasks.length) reasons.set(state.job.name, '');
  return reasons;
}

/** One reason per job with tasks left, memoized per (shape, gang attribute, gang size). */
function reasonsFor(
  snapshot: Snapshot,
  scratch: ScratchCapacity,
  quota: QuotaTracker,
  states: ReadonlyMap<string, JobState>,
  selector: PassSelector | null,
): Map<string, string> {
  const waiting = [...states.values()].filter((s) => s.placed < s.tasks.length);
  waiting.sort((a, b) => (a.job.name < b.job.name ? -1 : a.job.name > b.job.name ? 1 : 0));
  const memo = new Map<string, string>();
  const view = { workers: snapshot.workers, free: (w: number) => scratch.free(w), gangTaken: scratch.gangTaken };
  const reasons = new Map<string, string>();
  for (const state of waiting) {
    const job = state.job;
    const count = job.coschedule !== null ? state.tasks.length : 1;
    const key = `${state.shape.key}@${job.coschedule ?? ''}@${count}`;
    let reason = selector?.reasonFor?.(job.name) ?? memo.get(key);
    if (reason === undefined) {
      reason = explainJob(job, count, view) ?? 'waiting for capacity';
      memo.set(key, reason);
    }
    if (state.hold !== null) {
      // Held at a hard quota: the capacity is named only when it, too, is short.
      reasons.set(job.name, reason === 'waiting for capacity' ? state.hold : `${state.hold}; ${reason}`);
      continue;
    }
    const quotaReason = state.quotaDeferred ? quota.overReason(job.user) : null;
    reasons.set(job.name, quotaReason ? `${quotaReason}; ${reason}` : reason);
  }
  return reasons;
}
