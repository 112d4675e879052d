/**
 * The scheduler's "why still pending" texts, as the store keeps them: the last pass's reason per
 * job with pending tasks (memory only: every pass gives it again), the PENDING job's `reason`
 * (changed only when it differs, with no history row), and the `sticky_worker_busy` requeue
 * events of sticky waits that start (sticky-waits.ts).
 *
 * Guarantees: a job that ended or is gone loses its reason at the next pass; a reason that does
 * not change emits no change event.
 */
import { isFinalJobState } from '../../model/states.js';
import type { ClusterModel } from './model.js';
import { StickyWaits } from './sticky-waits.js';

export class PendingReasons {
  private readonly last = new Map<string, string>();
  private readonly stickyWaits: StickyWaits;

  constructor(private readonly model: ClusterModel) {
    this.stickyWaits = new StickyWaits(model);
  }

  /** The last pass's reason for the job's pending tasks (PENDING or partly running), or null. */
  of(job: string): string | null {
    return this.last.get(job) ?? null;
  }

  /** Memory bookkeeping of one pass's reasons; call before `apply`, outside the transaction. */
  remember(reasons: ReadonlyMap<string, string>): void {
    for (const [name, reason] of reasons) this.last.set(name, reason);
    for (const name of this.last.keys()) {
      const job = this.model.jobs.get(name)?.job;
      if (!job || isFinalJobState(job.state)) this.last.delete(name);
    }
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
