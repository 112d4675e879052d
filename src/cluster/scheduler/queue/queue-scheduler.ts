/**
 * QueueScheduler: a queue policy (options.ts) over the time planner, shared by the controller
 * and the simulator. It is a thin holder of the state kept between passes (state.ts): each
 * `pass` runs the pure `queuePass(snapshot, state, resourcesChanged)` (pass.ts, where the pass
 * and its rules are described) and keeps the next state, advanced in place (`state` is the
 * scheduler's own: read it, do not keep it across passes). It also carries the baseline placement
 * modes' memory (placement/baselines.ts) from each plan into the next snapshot (unless the
 * snapshot brings its own), so the controller and the simulator get it alike. It keeps the
 * worker calendars with the running tasks between passes (kept.ts): a pass enters only the tasks
 * that started and ended since the last one, and its own spans are taken out after it. `estimate` answers
 * "when would this job start" with the same rules and changes nothing.
 */
import { invalid } from '../../../model/errors.js';
import { neverReason } from '../placement/feasibility.js';
import { mergePlan } from '../placement/merge.js';
import { FIRST_FIT_PLACEMENT } from '../placement/registry.js';
import type { PlacementProfile } from '../placement/scoring.js';
import { schedule } from './first-fit.js';
import type { PlacementMemory, Plan, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { earliestFor, reserveRest } from './allocate.js';
import { PassContext } from './context.js';
import { optionsRule, queueOptions, type QueueOptions, type QueuePolicyRule } from './options.js';
import { KeptCalendars } from './kept.js';
import { runPass } from './pass.js';
import { withClaims } from '../preemption/claims.js';
import { nextExemptEnd, planPreemptions, preemptingText, wouldPreemptText } from '../preemption/plan.js';
import { unreservableText } from './reasons.js';
import { EMPTY_QUEUE_STATE, advanceQueueState, type QueueState } from './state.js';

/** The first planned end of a running task after now (when a pass can next free capacity). */
function nextEnd(snapshot: Snapshot): number {
  let next = Infinity;
  for (const r of snapshot.running ?? []) if (r.endsAt > snapshot.now && r.endsAt < next) next = r.endsAt;
  return next;
}

export class QueueScheduler {
  readonly options: QueueOptions;
  readonly rule: QueuePolicyRule;
  private current: QueueState = EMPTY_QUEUE_STATE;
  /** Worker calendars with the running tasks, kept from pass to pass (kept.ts). */
  private readonly kept = new KeptCalendars();
  private readonly keepCalendars: boolean;
  /** Baseline placement modes' memory from the last pass (or as restored by the controller). */
  placementMemory: PlacementMemory | undefined;

  constructor(
    options: Partial<QueueOptions> = {},
    /** How placement picks among feasible workers (a mode's scorer list, placement/scoring.ts); default: first-fit. */
    readonly placement: PlacementProfile = FIRST_FIT_PLACEMENT,
  ) {
    this.options = queueOptions(options);
    this.rule = optionsRule(this.options);
    // Shared workers (queue-set.ts): each pass sees other queues' holds, so nothing is kept between passes.
    this.keepCalendars = !this.options.sharedWorkers;
  }

  /** What is kept between passes now. */
  get state(): QueueState {
    return this.current;
  }

  /**
   * One pass: placements now, reservations, and a reason per pending job it looked at.
   * `resourcesChanged=false` means only new jobs arrived since the previous pass: jobs blocked
   * then are not retried (their reservations stand in the planner).
   */
  pass(snapshot: Snapshot, resourcesChanged = true): Plan {
    const claimed = withClaims(this.withMemory(snapshot), snapshot.claims ?? [], this.placement);
    const claimants = new Set((snapshot.claims ?? []).map((c) => c.job));
    const plan = this.passAfterClaims(claimed.rest, resourcesChanged, claimants);
    if (claimed.placements.length > 0) plan.placements.unshift(...claimed.placements);
    return mergePlan(snapshot, plan, this.placement);
  }

  /**
   * The pass on a snapshot whose claims are already placed (preemption/claims.ts withClaims), with
   * the preemptions it would carry out; `claimants`: the jobs holding claims (they preempt no more).
   * A QueueSet (queue-set.ts) places the claims of every queue once and then calls this per queue
   * (merged batches, placement/merge.ts, are formed over the whole plan: by pass or by the QueueSet).
   */
  passAfterClaims(rest: Snapshot, resourcesChanged: boolean, claimants: ReadonlySet<string>): Plan {
    const plan = this.queuePass(rest, resourcesChanged);
    const preemption = this.options.preemption;
    if (preemption) {
      const preemptions = planPreemptions(rest, plan, { exemptMs: preemption.exemptMs, claimants });
      const exemptEnd = nextExemptEnd(
        plan.reasons,
        rest.jobs,
        rest.running ?? [],
        rest.now,
        preemption.exemptMs,
        rest.quotas.size > 0,
      );
      if (exemptEnd !== null) plan.nextExemptEnd = exemptEnd;
      if (preemptions.length > 0) {
        plan.preemptions = preemptions;
        for (const p of preemptions) plan.reasons.set(p.job, preemptingText(p));
      }
    }
    return plan;
  }

  private queuePass(given: Snapshot, resourcesChanged: boolean): Plan {
    let plan: Plan;
    if (!this.rule.plansAhead) {
      this.current = { ...EMPTY_QUEUE_STATE, passes: this.current.passes };
      plan = schedule(given, this.placement, this.options.explain !== false);
    } else {
      // queuePass's result, with the state's maps updated in place (only this holder sees them).
      const number = this.current.passes + 1;
      let result: ReturnType<typeof runPass>;
      try {
        const kept = this.keepCalendars ? this.kept.begin(given, this.current) : null;
        result = runPass(given, this.current, resourcesChanged, this.options, this.placement, number, false, kept);
        this.current = advanceQueueState(this.current, result, resourcesChanged, number, true);
        if (kept) this.kept.end(result.spans, this.current, result.standingHead);
      } catch (error) {
        if (this.keepCalendars) this.kept.fail();
        throw error;
      }
      plan = result.plan;
    }
    if (plan.placementMemory) this.placementMemory = plan.placementMemory;
    return plan;
  }

  /** The preemption the pass after `plan` would carry out for `job`, when preemption is on; else null. */
  private preemptingFor(snapshot: Snapshot, plan: Plan, job: string) {
    const preemption = this.options.preemption;
    if (!preemption) return null;
    const claimants = new Set((snapshot.claims ?? []).map((c) => c.job));
    const all = planPreemptions(snapshot, plan, { exemptMs: preemption.exemptMs, claimants });
    return all.find((p) => p.job === job) ?? null;
  }

  private withMemory(snapshot: Snapshot): Snapshot {
    return this.placementMemory && !snapshot.placementMemory
      ? { ...snapshot, placementMemory: this.placementMemory }
      : snapshot;
  }

  /**
   * When would `job` start if it were submitted now (sbatch --test-only)? Same rules as the next
   * pass (only this job is new), no state change. `start` is snapshot.now when it would start at
   * once, null when never. For a job the policy would not reserve, the estimate is its earliest
   * start once every blocked job ahead of it holds a reservation (under fcfs: not before any of
   * them), and never before the next planned task end, when the next pass can look at it again.
   * A job the pass would let preempt (preemption/plan.ts) starts now, once its victims have
   * stopped: the reason names them (`would start by preempting …`).
   */
  estimate(snapshot: Snapshot, job: SchedulerJob): { start: number | null; reason: string } {
    if (snapshot.jobs.has(job.name))
      throw invalid(`job ${job.name} is already queued`, 'estimate a job that is not submitted yet');
    const never = neverReason(job, snapshot.workers);
    if (never !== null) return { start: null, reason: never };
    const now = snapshot.now;
    let seq = Number.MAX_SAFE_INTEGER - job.replicas;
    const tasks: SchedulerTask[] = Array.from({ length: job.replicas }, (_, index) => ({
      id: `${job.name}/task-${index}`,
      job: job.name,
      index,
      submittedAt: now,
      seq: seq++,
    }));
    const withJob: Snapshot = {
      ...this.withMemory(snapshot),
      jobs: new Map(snapshot.jobs).set(job.name, job),
      pending: [...snapshot.pending, ...tasks],
      pendingOrdered: false,
    };
    const firstFit = !this.rule.plansAhead;
    const passes = this.current.passes;
    const result = firstFit ? null : runPass(withJob, this.current, false, this.options, this.placement, passes, true);
    const plan = result ? result.plan : schedule(withJob, this.placement);
    const placedOf = new Map<string, number>();
    for (const p of plan.placements) placedOf.set(p.job, (placedOf.get(p.job) ?? 0) + 1);
    const placed = placedOf.get(job.name) ?? 0;
    if (placed >= job.replicas) return { start: now, reason: 'would start now' };
    // The next pass would stop lower-band work for it: it starts as soon as that work has stopped.
    const preempting = this.preemptingFor(withJob, plan, job.name);
    if (preempting) return { start: now, reason: wouldPreemptText(preempting) };
    const blocked = result?.added.get(job.name);
    if (blocked?.reservation) {
      return {
        start: blocked.reservation.start,
        reason: `${blocked.base}; the policy would reserve this start for it`,
      };
    }
    const base = blocked?.base ?? plan.reasons.get(job.name) ?? 'waiting for capacity';
    const ctx = result ? result.ctx : new PassContext(withJob, this.options, this.placement);
    // Jobs ahead that are blocked without a reservation get one here, in queue order.
    let ahead = -Infinity;
    for (const q of result ? result.window : []) {
      if (q.job.name === job.name) break;
      const rest = q.tasks.length - (placedOf.get(q.job.name) ?? 0);
      if (rest <= 0) continue;
      const reserved = plan.reservations?.get(q.job.name);
      const start = reserved ?? reserveRest(ctx, q.job, rest)?.start ?? Infinity;
      if (start > ahead) ahead = start;
    }
    let start = earliestFor(ctx, job, job.replicas - placed);
    if (this.rule.stopAtFirstBlocked && ahead > start) start = ahead;
    if (start <= now) start = nextEnd(snapshot);
    if (start === Infinity) return { start: null, reason: `${base}; ${unreservableText(ctx)}` };
    const how = firstFit ? 'first-fit reserves nothing' : `not reserved under policy ${this.options.policy}`;
    return { start, reason: `${base}; ${how}` };
  }
}
