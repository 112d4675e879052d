/**
 * Carrying out a plan's preemptions (docs/priorities.md, "Preemption"), and the claims that hold
 * the victims' capacity for their preemptor meanwhile (scheduler/preemption/claims.ts ClaimBook,
 * the bookkeeping the simulator shares).
 *
 * - Decide, check, act: a preemption is carried out only if its job still has a pending task and
 *   every victim still runs (lifecycle/preemptions.ts liveVictims); otherwise nothing of it is.
 * - Each victim attempt ends PREEMPTED with `preempted by /JOB (BAND)` through the lifecycle
 *   (store.preemptAttempt): it counts against `--max-preemptions`, never `--max-retries`, and its
 *   task goes back to its old place in the queue at once (no backoff); a gang victim's other
 *   members stop with it (gang_restart). The stop orders carry `preemption.grace` and the reason
 *   as the notice the supervisor writes to each attempt's `$IRIS_NOTICE_FILE` before its SIGTERM.
 * - The preemptor's claims last until it has no pending task, or `grace + CLAIM_SLACK_MS` after
 *   they were made (a victim that outlives its SIGKILL must not hold the claim forever).
 */
import { liveVictims, preemptedBy } from '../lifecycle/preemptions.js';
import { CLAIM_SLACK_MS, ClaimBook, type Claim } from '../scheduler/preemption/claims.js';
import type { Preemption } from '../scheduler/preemption/plan.js';
import type { ClusterStore, StopOrder } from '../state/store.js';

export { CLAIM_SLACK_MS } from '../scheduler/preemption/claims.js';

export class Preemptions {
  private readonly book = new ClaimBook();
  private readonly pending = (job: string): boolean => this.store.tasksOf(job).some((t) => t.state === 'PENDING');

  constructor(
    private readonly store: ClusterStore,
    private readonly graceMs: number,
  ) {}

  /** The claims still held at `now` for jobs with a pending task (the snapshot's `claims`). */
  current(now: number): Claim[] {
    return this.book.current(now, this.pending);
  }

  /** Jobs holding claims now, each with its claimed workers and its victims (distinct, in claim order). */
  claimed(): Map<string, { workers: string[]; victims: string[] }> {
    return this.book.claimed();
  }

  /** Carry out `preemptions` (see the header); the stop orders to hand the supervisor. */
  apply(preemptions: readonly Preemption[], now: number): StopOrder[] {
    const orders: StopOrder[] = [];
    for (const p of preemptions) {
      if (!this.pending(p.job)) continue;
      const attempts = liveVictims(this.store, p.victims);
      if (attempts === null) continue;
      const reason = preemptedBy(p.job, p.band);
      for (const a of attempts)
        for (const order of this.store.preemptAttempt(a.task, a.attempt, reason))
          orders.push({ ...order, graceMs: this.graceMs, notice: reason });
      this.book.hold(p, now + this.graceMs + CLAIM_SLACK_MS);
    }
    return orders;
  }
}
