/**
 * StartCache: within one queue-policy pass, which pending jobs provably cannot start a task now,
 * answered in O(1) per job once its task shape has been looked at (pass.ts skips such jobs when
 * the policy cannot reserve them either; docs/architecture.md, "Queue policies").
 *
 * `cannotStart(q)` is true only when no task of `q` can start now on the pass's capacity:
 * - no candidate worker of the job's static key (device, constraints, stickiness) has the free
 *   capacity for one task (the FreePool's descent; remembered per task shape), or
 * - a job of the same task shape (for a gang: the same gang attribute and size) failed to start
 *   a task earlier in this pass, planned for no longer than `q`, and no capacity was released
 *   since (`freed`).
 * Both stay true for the rest of the pass: free capacity only shrinks within a pass (placements
 * consume it), and the planner's spans only grow, except where the pass takes spans out
 * (allocate.ts releaseSpans, replanHeld), which call `freed`. A longer duration never fits where
 * a shorter one did not. Under a placement that binds work per job (PassSelector.perJob, the
 * baseline modes) a failed start says nothing about another job of the shape, so only the
 * capacity test applies there.
 *
 * Cost per job: the job's shape key (memoized per job object, fit.ts), one Map lookup and a
 * comparison; the first job of a shape that is not yet known to fail also pays one FreePool
 * descent (O(1) when no candidate has room, about O(log n) otherwise).
 */
import { devicesNeeded, shapeKey, staticKey } from '../placement/fit.js';
import type { CandidateIndex } from '../placement/candidates.js';
import type { PassSelector } from '../placement/scoring.js';
import type { SchedulerJob } from '../types.js';

/** What the cache reads of its pass (PassContext). */
export interface StartCachePass {
  readonly candidates: CandidateIndex;
  readonly selector: PassSelector | null;
  duration(job: SchedulerJob): number;
}

interface ShapeState {
  /** No candidate worker has room for one task (final for the pass). */
  noRoom: boolean;
  /** Shortest planned duration for which a start of this shape failed since the last `freed`. */
  failedFor: number;
}

export class StartCache {
  private readonly shapes = new Map<string, ShapeState>();

  constructor(private readonly ctx: StartCachePass) {}

  private key(job: SchedulerJob, tasks: number): string {
    const shape = shapeKey(job);
    return job.coschedule === null ? shape : `${shape}@${job.coschedule}@${tasks}`;
  }

  private state(key: string): ShapeState {
    let s = this.shapes.get(key);
    if (s === undefined) this.shapes.set(key, (s = { noRoom: false, failedFor: Infinity }));
    return s;
  }

  /** True only when none of the `tasks` pending tasks of `job` can start now (see the header). */
  cannotStart(job: SchedulerJob, tasks: number): boolean {
    const s = this.state(this.key(job, tasks));
    if (s.noRoom || this.ctx.duration(job) >= s.failedFor) return true;
    const res = job.resources;
    const pool = this.ctx.candidates.poolOf(job, staticKey(job));
    if (pool.findFirst(res.cpuMillis, res.memoryBytes, devicesNeeded(res)) >= 0) return false;
    s.noRoom = true;
    return true;
  }

  /** `job` was given its chance to start `tasks` tasks and started `placed` of them. */
  tried(job: SchedulerJob, tasks: number, placed: number): void {
    if (placed >= tasks) return;
    // A gang that started nothing, or an independent job left with tasks that found no worker.
    if (job.coschedule === null && this.ctx.selector?.perJob === true) return;
    if (job.coschedule !== null && placed > 0) return;
    const s = this.state(this.key(job, tasks));
    const duration = this.ctx.duration(job);
    if (duration < s.failedFor) s.failedFor = duration;
  }

  /** Capacity was released in the planner: failed starts may succeed again. */
  freed(): void {
    for (const s of this.shapes.values()) s.failedFor = Infinity;
  }
}
