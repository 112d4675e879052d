/**
 * Claims (docs/priorities.md, "Notice and grace"): what a preemptor holds of its victims'
 * capacity while they stop, so that no other job slips into it. Pure.
 *
 * - A claim names a job, a worker and the amount one of its tasks takes there; the driver
 *   (controller, simulator) records the claims of each preemption and drops them when the job has
 *   no pending task left or the claim expires.
 * - `withClaims(snapshot, placement)` runs first: each claimant job with pending tasks is placed,
 *   alone, on its claimed workers with what is free there (the victims' capacity once they are
 *   gone). The snapshot every other job is then planned on has the claims of jobs still waiting
 *   taken out of the free capacity (never below zero), and the placed tasks left out.
 * - Without claims the snapshot is passed on as it is (no cost).
 * - ClaimBook is the one bookkeeping of held claims for both drivers: a preemption's claims (one
 *   per worker of its tasks) are held until `until`, and `current` drops those past it or of a job
 *   with no pending task left. Times are the driver's clock (ms live, seconds in the simulator).
 */
import type { PlacementProfile } from '../placement/scoring.js';
import { schedule } from '../queue/first-fit.js';
import type { CapacityAmount as Amount, Claim, Placement, Preemption, Snapshot, WorkerView } from '../types.js';

export type { Claim } from '../types.js';

/**
 * How long past the grace a claim outlives its preemption (a victim outliving its SIGKILL must not
 * hold it forever).
 */
export const CLAIM_SLACK_MS = 30_000;

interface HeldClaim extends Claim {
  until: number;
  /** The tasks its preemption stopped (what `iris queue` names while they stop). */
  victims: readonly string[];
}

/** The claims a driver holds for its preemptors (see the header). */
export class ClaimBook {
  private claims: HeldClaim[] = [];

  /** The claims still held at `now` for jobs `pending` says have a pending task (a snapshot's `claims`). */
  current(now: number, pending: (job: string) => boolean): Claim[] {
    if (this.claims.length === 0) return this.claims;
    this.claims = this.claims.filter((c) => c.until > now && pending(c.job));
    return this.claims;
  }

  /** Jobs holding claims now, each with its claimed workers and its victims (distinct, in claim order). */
  claimed(): Map<string, { workers: string[]; victims: string[] }> {
    const out = new Map<string, { workers: string[]; victims: string[] }>();
    for (const c of this.claims) {
      let held = out.get(c.job);
      if (!held) out.set(c.job, (held = { workers: [], victims: [] }));
      if (!held.workers.includes(c.workerId)) held.workers.push(c.workerId);
      for (const v of c.victims) if (!held.victims.includes(v)) held.victims.push(v);
    }
    return out;
  }

  /** Hold `p`'s claims (one per worker of its tasks, each what one task takes) until `until`. */
  hold(p: Preemption, until: number): void {
    for (const workerId of p.workers)
      this.claims.push({ job: p.job, workerId, amount: p.need, until, victims: p.victims });
  }

  get size(): number {
    return this.claims.length;
  }
}

function less(free: WorkerView['free'], amount: Amount): WorkerView['free'] {
  const devices = Math.max(0, free.devices.length - amount.devices);
  return {
    cpuMillis: Math.max(0, free.cpuMillis - amount.cpuMillis),
    memoryBytes: Math.max(0, free.memoryBytes - amount.memoryBytes),
    devices: free.devices.slice(0, devices),
  };
}

/**
 * The claimants' placements, and the snapshot the rest of the pass plans on. `claims` of jobs with
 * no pending task are ignored.
 */
export function withClaims(
  snapshot: Snapshot,
  claims: readonly Claim[],
  placement: PlacementProfile,
): { placements: Placement[]; rest: Snapshot } {
  if (claims.length === 0) return { placements: [], rest: snapshot };
  const pendingJobs = new Set(snapshot.pending.map((t) => t.job));
  const live = claims.filter((c) => pendingJobs.has(c.job) && snapshot.jobs.has(c.job));
  if (live.length === 0) return { placements: [], rest: snapshot };
  let workers = snapshot.workers;
  const placements: Placement[] = [];
  const waiting = new Set<string>();
  for (const job of new Set(live.map((c) => c.job))) {
    const mine = new Set(live.filter((c) => c.job === job).map((c) => c.workerId));
    // Other claimants' holds stay out of this job's view.
    const others = live.filter((c) => c.job !== job && !waiting.has(c.job) && !placedJob(placements, c.job));
    const view = workers
      .filter((w) => mine.has(w.id))
      .map((w) => ({ ...w, free: others.reduce((f, c) => (c.workerId === w.id ? less(f, c.amount) : f), w.free) }));
    const plan = schedule(
      {
        ...snapshot,
        jobs: new Map([[job, snapshot.jobs.get(job)!]]),
        pending: snapshot.pending.filter((t) => t.job === job),
        workers: view,
        pendingOrdered: false,
      },
      placement,
      false,
    );
    if (plan.placements.length === 0) {
      waiting.add(job);
      continue;
    }
    placements.push(...plan.placements);
    const spec = snapshot.jobs.get(job)!.resources;
    workers = workers.map((w) => {
      const here = plan.placements.filter((p) => p.workerId === w.id);
      if (here.length === 0) return w;
      const used = new Set(here.flatMap((p) => p.deviceIndices));
      const free = {
        cpuMillis: Math.max(0, w.free.cpuMillis - here.length * spec.cpuMillis),
        memoryBytes: Math.max(0, w.free.memoryBytes - here.length * spec.memoryBytes),
        devices: w.free.devices.filter((d) => !used.has(d)),
      };
      return { ...w, free };
    });
  }
  const placedTasks = new Set(placements.map((p) => p.task));
  const held = live.filter((c) => waiting.has(c.job));
  const rest: Snapshot = {
    ...snapshot,
    workers: workers.map((w) => ({
      ...w,
      free: held.reduce((f, c) => (c.workerId === w.id ? less(f, c.amount) : f), w.free),
    })),
    pending: placedTasks.size === 0 ? snapshot.pending : snapshot.pending.filter((t) => !placedTasks.has(t.id)),
  };
  return { placements, rest };
}

function placedJob(placements: readonly Placement[], job: string): boolean {
  return placements.some((p) => p.job === job);
}
