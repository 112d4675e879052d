/**
 * Preemption in the simulator (docs/simulate.md, "Preemption"): a plan's preemptions carried out
 * with the live controller's rules (cluster/controller/preemptions.ts), on the virtual clock.
 *
 * - Decide, check, act: a preemption is carried out only if its job still has a pending task and
 *   every victim still runs (lifecycle/preemptions.ts liveVictims) with its run not over (a task
 *   waiting for its subtree is not stopped here); otherwise nothing of it is.
 * - Each victim attempt ends through the lifecycle's `preemptAttempt` with `preempted by /JOB
 *   (BAND)`, as live: PREEMPTED, counted against maxPreemptions, requeued at its old place at once; a
 *   gang victim's other members are stopped with it. The stop orders (SimState.stops) go to the
 *   engine, which keeps each stopped task's capacity until `grace` seconds later.
 * - The preemptor's claims (scheduler/preemption/claims.ts ClaimBook, the controller's own
 *   bookkeeping) last until it has no pending task, or grace + CLAIM_SLACK_MS after they were made.
 * - Work lost: a stopped task ran from its start to its stop (grace included) for nothing; its next
 *   attempt runs its whole run again. Counted per job and in all.
 */
import type { StopOrder } from '../cluster/lifecycle/changes.js';
import { preemptAttempt } from '../cluster/lifecycle/attempts.js';
import { liveVictims, preemptedBy } from '../cluster/lifecycle/preemptions.js';
import { CLAIM_SLACK_MS, ClaimBook } from '../cluster/scheduler/preemption/claims.js';
import { nextExemptEnd } from '../cluster/scheduler/preemption/plan.js';
import type { Claim, Preemption, RunningAllocation, SchedulerJob } from '../cluster/scheduler/types.js';
import type { SimState } from './state.js';

/** What `iris simulate --preemption` runs with (seconds). */
export interface SimPreemptionSettings {
  /** Between a victim's stop and the release of its capacity (`preemption.grace`). */
  grace: number;
  /** A task is not preempted within this long of its start (`preemption.exempt`). */
  exempt: number;
}

export class SimPreemptions {
  private readonly book = new ClaimBook();
  readonly grace: number;
  private readonly exempt: number;
  /** When a running task's exempt time ends while a job above batch waits (a pass is run then); null: none. */
  wakeAt: number | null = null;
  /** Tasks stopped by preemption (victims and their gang members), and the CPU-seconds they ran for nothing. */
  stopped = 0;
  lostCpuSeconds = 0;

  constructor(
    settings: SimPreemptionSettings,
    private readonly pending: (job: string) => boolean,
  ) {
    this.grace = settings.grace;
    this.exempt = settings.exempt;
  }

  /**
   * After the passes at `now`: when a job above batch was left waiting (`reasons`), the next time a
   * running task's exempt time ends, so that a pass then may preempt it (a task is preemptible from
   * then on, and nothing else need happen for it to be).
   */
  afterBatch(
    now: number,
    reasons: ReadonlyMap<string, string>,
    jobs: ReadonlyMap<string, SchedulerJob>,
    running: Iterable<{ allocation: RunningAllocation }>,
  ): void {
    if (this.wakeAt !== null && this.wakeAt <= now) this.wakeAt = null;
    const next = nextExemptEnd(reasons, jobs, allocations(running), now, this.exempt);
    if (next !== null && (this.wakeAt === null || next < this.wakeAt)) this.wakeAt = next;
  }

  /** The claims held at `now` (the snapshot's `claims`), or undefined when none. */
  claims(now: number): Claim[] | undefined {
    if (this.book.size === 0) return undefined;
    const claims = this.book.current(now, this.pending);
    return claims.length > 0 ? claims : undefined;
  }

  /**
   * Carry out `preemptions` on `state` at `now` (see the header); `runOver(task)`: the task's run is over
   * (it waits for its subtree). Returns the stop orders, the victims' and their gangs'.
   */
  apply(
    state: SimState,
    preemptions: readonly Preemption[],
    now: number,
    runOver: (task: string) => boolean,
  ): StopOrder[] {
    for (const p of preemptions) {
      if (!this.pending(p.job)) continue;
      const attempts = liveVictims(state, p.victims);
      if (attempts === null || attempts.some((a) => runOver(a.task))) continue;
      const reason = preemptedBy(p.job, p.band);
      for (const a of attempts) state.run(preemptAttempt(state, a.task, a.attempt, reason, now), now);
      this.book.hold(p, now + this.grace + CLAIM_SLACK_MS / 1000);
    }
    return state.stops.splice(0);
  }
}

function* allocations(running: Iterable<{ allocation: RunningAllocation }>): Iterable<RunningAllocation> {
  for (const { allocation } of running) yield allocation;
}
