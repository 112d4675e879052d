/**
 * The scheduler's "why still pending" texts, as the store keeps them: the last pass's reason per
 * job with pending tasks (memory only: every pass gives it again), the PENDING job's `reason`
 * (changed only when it differs, with no history row), and the `sticky_worker_busy` requeue
 * events of sticky waits that start (sticky-waits.ts).
 *
 * Guarantees: a job that ended or is gone has no reason (`of`); a reason that does not change
 * emits no change event. A pass that reads only part of the queue (pass-loop.ts) gives reasons only
 * to the jobs it looked at: the others keep the last one given.
 */
import { isFinalJobState } from '../../model/states.js';
import type { ClusterModel } from './model.js';
import { StickyWaits } from './sticky-waits.js';

/** The fewest reasons held before the ended jobs' are dropped. */
const MIN_LOOK = 1024;

export class PendingReasons {
  private readonly last = new Map<string, string>();
  /** Look for ended jobs' reasons once the map holds this many. */
  private lookAt = MIN_LOOK;
  private readonly stickyWaits: StickyWaits;

  constructor(private readonly model: ClusterModel) {
    this.stickyWaits = new StickyWaits(model);
  }

  /** The last reason a pass gave the job's pending tasks (PENDING or partly running), or null. */
  of(job: string): string | null {
    const reason = this.last.get(job);
    if (reason === undefined) return null;
    const entry = this.model.jobs.get(job)?.job;
    return entry && !isFinalJobState(entry.state) ? reason : null;
  }

  /**
   * Memory bookkeeping of one pass's reasons; call before `apply`, outside the transaction. The
   * reasons of jobs that ended or left are dropped once the map has doubled since the last look
   * (`of` hides them before): each reason given costs O(1) amortized, however long the queue.
   */
  remember(reasons: ReadonlyMap<string, string>): void {
    for (const [name, reason] of reasons) this.last.set(name, reason);
    if (this.last.size < this.lookAt) return;
    for (const name of this.last.keys()) {
      const job = this.model.jobs.get(name)?.job;
      if (!job || isFinalJobState(job.state)) this.last.delete(name);
    }
    this.lookAt = Math.max(MIN_LOOK, 2 * this.last.size);
  }

  /** Within a store transaction: PENDING jobs take their new reason; sticky waits that start are recorded. */
  apply(reasons: ReadonlyMap<string, string>): void {
    for (const [name, reason] of reasons) {
      const job = this.model.jobs.get(name)?.job;
      if (job && job.state === 'PENDING' && job.reason !== reason) this.model.patchJob(job, { reason }, false);
    }
    this.stickyWaits.observe(reasons);
  }
}
