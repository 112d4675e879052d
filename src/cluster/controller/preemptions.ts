/**
 * Carrying out a plan's preemptions (docs/priorities.md, "Preemption"), and the claims that hold
 * the victims' capacity for their preemptor meanwhile (scheduler/preemption/claims.ts).
 *
 * - Decide, check, act: a preemption is carried out only if its job still has a pending task and
 *   every victim still runs (RUNNING, not being stopped); otherwise nothing of it is.
 * - Each victim attempt ends PREEMPTED with `preempted by /JOB (BAND)` through the lifecycle
 *   (store.preemptAttempt): it counts against `--max-preemptions`, never `--max-retries`, and its
 *   task goes back to its old place in the queue at once (no backoff); a gang victim's other
 *   members stop with it (gang_restart). The stop orders carry `preemption.grace` and the reason
 *   as the notice the supervisor writes to each attempt's `$IRIS_NOTICE_FILE` before its SIGTERM.
 * - The preemptor's claims last until it has no pending task, or `grace + CLAIM_SLACK_MS` after
 *   they were made (a victim that outlives its SIGKILL must not hold the claim forever).
 */
import type { Claim } from '../scheduler/preemption/claims.js';
import type { Preemption } from '../scheduler/preemption/plan.js';
import type { ClusterStore, StopOrder } from '../state/store.js';

/** How long past the grace a claim outlives its preemption. */
export const CLAIM_SLACK_MS = 30_000;

interface HeldClaim extends Claim {
  until: number;
  /** The tasks its preemption stopped (what `iris queue` names while they stop). */
  victims: readonly string[];
}

export class Preemptions {
  private claims: HeldClaim[] = [];

  constructor(
    private readonly store: ClusterStore,
    private readonly graceMs: number,
  ) {}

  /** The claims still held at `now` for jobs with a pending task (the snapshot's `claims`). */
  current(now: number): Claim[] {
    if (this.claims.length === 0) return this.claims;
    this.claims = this.claims.filter((c) => c.until > now && this.pending(c.job));
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

  /** Carry out `preemptions` (see the header); the stop orders to hand the supervisor. */
  apply(preemptions: readonly Preemption[], now: number): StopOrder[] {
    const orders: StopOrder[] = [];
    for (const p of preemptions) {
      if (!this.pending(p.job)) continue;
      const attempts = p.victims.map((id) => {
        const task = this.store.task(id);
        return task && task.state === 'RUNNING' ? this.store.attempt(id, task.attempt) : undefined;
      });
      if (attempts.some((a) => a?.state !== 'RUNNING')) continue;
      const reason = `preempted by ${p.job} (${p.band})`;
      for (const a of attempts)
        for (const order of this.store.preemptAttempt(a!.task, a!.attempt, reason))
          orders.push({ ...order, graceMs: this.graceMs, notice: reason });
      const until = now + this.graceMs + CLAIM_SLACK_MS;
      for (const workerId of p.workers)
        this.claims.push({ job: p.job, workerId, amount: p.need, until, victims: p.victims });
    }
    return orders;
  }

  private pending(job: string): boolean {
    return this.store.tasksOf(job).some((t) => t.state === 'PENDING');
  }
}
