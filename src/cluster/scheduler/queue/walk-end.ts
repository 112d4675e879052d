/**
 * When a queue-policy pass (pass.ts) may stop looking: two proofs that nothing more can start.
 *
 * RoomLeft.noneFor, the early end of the walk: past the point where the pass can give no more
 * reservations, the jobs it has not reached could only start now; none can when no schedulable
 * worker has the free capacity for the least cpu, memory and devices any of them asks per task
 * (JobQueue.leastAhead). Free capacity only shrinks within a pass (placements consume it), so
 * the answer stays true for the rest of the pass. Cost: one read of the rest of the queue the
 * first time it is asked, then O(1) amortized plus one FreePool descent per question.
 *
 * settledAfter, `Plan.settled`: a next pass at the same instant, on the same snapshot less the
 * tasks this one started (running until their planned end), with no resource change and no new
 * job, would start nothing. That pass retries only jobs that do not stand, each of which this
 * pass failed to start (or skipped as unable to, or did not reach after the proof above) on free
 * capacity and calendars that, by the next pass, only lose room: its placements run, and every
 * reservation it made stands there again, held where it was. Not set when that could fail: a
 * reservation it ended with starts now (the next pass drops it and frees its room), the
 * placement may refuse a feasible worker (PassSelector.takesAnyFeasible not given: the baseline
 * modes bind jobs to workers with memory kept across passes), or jobs were deferred for a quota
 * (usage moves with the placements).
 */
import { devicesNeeded } from '../placement/fit.js';
import type { FreePool } from '../placement/pool.js';
import type { QueuedJob } from './allocate.js';
import type { PassContext } from './context.js';
import type { JobQueue } from './job-queue.js';

export class RoomLeft {
  /** Free capacity over the schedulable workers, kept in sync by the pass's scratch (built when first asked). */
  private pool: FreePool | null = null;

  constructor(private readonly ctx: PassContext) {}

  /** True when no schedulable worker has the free room for one task of `q`, nor of any job `queue` has not returned. */
  noneFor(q: QueuedJob, queue: JobQueue): boolean {
    const least = queue.leastAhead();
    const res = q.job.resources;
    const cpu = Math.min(least.cpuMillis, res.cpuMillis);
    const memory = Math.min(least.memoryBytes, res.memoryBytes);
    const devices = Math.min(least.devices, devicesNeeded(res));
    if (this.pool === null) {
      const workers = this.ctx.snapshot.workers;
      const schedulable: number[] = [];
      for (let w = 0; w < workers.length; w++) if (workers[w]!.schedulable) schedulable.push(w);
      this.pool = this.ctx.scratch.pool(schedulable);
    }
    return this.pool.findFirst(cpu, memory, devices) < 0;
  }
}

/** Plan.settled for a pass that ended with `reservations` (job -> start) and `deferred` jobs deferred for a quota. */
export function settledAfter(ctx: PassContext, reservations: ReadonlyMap<string, number>, deferred: number): boolean {
  if (deferred > 0) return false;
  if (ctx.selector !== null && ctx.selector.takesAnyFeasible !== true) return false;
  for (const start of reservations.values()) if (start <= ctx.now) return false;
  return true;
}
