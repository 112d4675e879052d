/**
 * QueueScheduler: a queue policy (options.ts) over the time planner, shared by the controller
 * and the simulator. It is a thin holder of the state kept between passes (state.ts): each
 * `pass` runs the pure `queuePass(snapshot, state, resourcesChanged)` (pass.ts, where the pass
 * and its rules are described) and keeps the next state. `estimate` answers "when would this job
 * start" with the same rules and changes nothing.
 */
import { invalid } from '../../../model/errors.js';
import { neverReason } from '../placement/feasibility.js';
import { DEFAULT_SCORERS, type Placer } from '../placement/scorers.js';
import { schedule } from './first-fit.js';
import type { Plan, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { earliestFor, reserveRest } from './allocate.js';
import { PassContext } from './context.js';
import { policyRule, queueOptions, type QueueOptions, type QueuePolicyRule } from './options.js';
import { queuePass, runPass } from './pass.js';
import { unreservableText } from './reasons.js';
import { EMPTY_QUEUE_STATE, type QueueState } from './state.js';

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

  constructor(
    options: Partial<QueueOptions> = {},
    /** How placement picks among feasible workers (a scorer list or a placement mode, scorers.ts); default: first-fit. */
    readonly scorers: Placer = DEFAULT_SCORERS,
  ) {
    this.options = queueOptions(options);
    this.rule = policyRule(this.options.policy);
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
    if (!this.rule.plansAhead) {
      this.current = { ...EMPTY_QUEUE_STATE, passes: this.current.passes };
      return schedule(snapshot, this.scorers);
    }
    const { plan, next } = queuePass(snapshot, this.current, resourcesChanged, this.options, this.scorers);
    this.current = next;
    return plan;
  }

  /**
   * When would `job` start if it were submitted now (sbatch --test-only)? Same rules as the next
   * pass (only this job is new), no state change. `start` is snapshot.now when it would start at
   * once, null when never. For a job the policy would not reserve, the estimate is its earliest
   * start once every blocked job ahead of it holds a reservation (under fcfs: not before any of
   * them), and never before the next planned task end, when the next pass can look at it again.
   */
  estimate(snapshot: Snapshot, job: SchedulerJob): { start: number | null; reason: string } {
    if (snapshot.jobs.has(job.name)) throw invalid(`job ${job.name} is already queued`, 'estimate a job that is not submitted yet');
    const never = neverReason(job, snapshot.workers);
    if (never !== null) return { start: null, reason: never };
    const now = snapshot.now;
    let seq = Number.MAX_SAFE_INTEGER - job.replicas;
    const tasks: SchedulerTask[] = Array.from({ length: job.replicas }, (_, index) => ({
      id: `${job.name}/task-${index}`, job: job.name, index, submittedAt: now, seq: seq++,
    }));
    const withJob: Snapshot = {
      ...snapshot,
      jobs: new Map(snapshot.jobs).set(job.name, job),
      pending: [...snapshot.pending, ...tasks],
      pendingOrdered: false,
    };
    const firstFit = !this.rule.plansAhead;
    const result = firstFit ? null : runPass(withJob, this.current, false, this.options, this.scorers, this.current.passes, true);
    const plan = result ? result.plan : schedule(withJob, this.scorers);
    const placedOf = new Map<string, number>();
    for (const p of plan.placements) placedOf.set(p.job, (placedOf.get(p.job) ?? 0) + 1);
    const placed = placedOf.get(job.name) ?? 0;
    if (placed >= job.replicas) return { start: now, reason: 'would start now' };
    const blocked = result?.added.get(job.name);
    if (blocked?.reservation) {
      return { start: blocked.reservation.start, reason: `${blocked.base}; the policy would reserve this start for it` };
    }
    const base = blocked?.base ?? plan.reasons.get(job.name) ?? 'waiting for capacity';
    const ctx = result ? result.ctx : new PassContext(withJob, this.options, this.scorers);
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
