/**
 * Queue policies (docs/architecture.md, "Queue policies") and their options: the one home of the queue defaults and
 * limits
 * (the cluster config and the simulator take theirs from here). A policy decides what happens
 * to a pending job that cannot start now, and is plain data (POLICY_RULES) read by one pass
 * loop (pass.ts): `fcfs` stops the pass there, `easy` reserves the first such job,
 * `conservative` reserves every such job within the queue depth, `hybrid` reserves the first
 * `reservationDepth`; neither ever holds more than `maxReservationDepth` reservations. A
 * reservation is a span in the planner, so later jobs start now only if they delay none.
 * `first-fit` is the plain scheduler: skip what does not fit, reserve nothing.
 */
import { invalid } from '../../../model/errors.js';

export const QUEUE_POLICIES = ['first-fit', 'fcfs', 'easy', 'conservative', 'hybrid'] as const;
export type QueuePolicy = (typeof QUEUE_POLICIES)[number];

export interface QueueOptions {
  policy: QueuePolicy;
  /**
   * Pending jobs one pass plans: the window, the only jobs that may get a reservation (blocked
   * jobs kept from earlier passes, and jobs skipped because they provably cannot start, do not
   * count). Every later job may still start now (pass.ts).
   */
  queueDepth: number;
  /** Blocked jobs that get a reservation under `hybrid`. */
  reservationDepth: number;
  /** The most reservations any policy holds at once (`conservative` reserves up to queueDepth, capped here). */
  maxReservationDepth: number;
  /** Planned duration of a job that has no time limit of its own (Infinity: unlimited). */
  defaultTimeLimitMs: number;
  /**
   * false: a pass writes no reason text — each job it looked at still gets an entry in
   * `Plan.reasons`, with an empty text (first-fit: each job with tasks left, in queue order).
   * Placements and reservations are the same either way.
   * The simulator runs so (it reads reasons only for jobs left at the end, and then runs again
   * with them); absent or true: full reasons.
   */
  explain?: boolean;
  /**
   * Preemption (docs/priorities.md): a blocked job above batch may stop lower-band work; a task is
   * exempt for `exemptMs` after its start. Absent or null: off (bands still order the queue).
   */
  preemption?: { exemptMs: number } | null;
  /**
   * The queue shares its workers with other named queues (queue-set.ts): `first-fit` then plans
   * on the time planner, reserving nothing, so it keeps off the other queues' reservations.
   * Absent: the queue is the cluster's only one.
   */
  sharedWorkers?: boolean;
}

export const MAX_QUEUE_DEPTH = 1_000_000;
export const MAX_RESERVATION_DEPTH = 100_000;

/** EASY backfill, 32 jobs per pass, hybrid reserves 64, a job without a limit plans 24 h. */
export const DEFAULT_QUEUE_OPTIONS: Readonly<QueueOptions> = Object.freeze({
  policy: 'easy',
  queueDepth: 32,
  reservationDepth: 64,
  maxReservationDepth: MAX_RESERVATION_DEPTH,
  defaultTimeLimitMs: 24 * 3_600_000,
});

function boundedInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`queue option ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** Options with defaults filled in; a clear IrisError for anything out of range. */
export function queueOptions(given: Partial<QueueOptions> = {}): QueueOptions {
  const o = { ...DEFAULT_QUEUE_OPTIONS, ...given };
  if (!(QUEUE_POLICIES as readonly string[]).includes(o.policy)) {
    throw invalid(`unknown queue policy ${JSON.stringify(o.policy)}`, `use one of: ${QUEUE_POLICIES.join(', ')}`);
  }
  const limit = o.defaultTimeLimitMs;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit <= 0) {
    throw invalid(`queue option defaultTimeLimitMs must be a number above 0 (Infinity allowed), got ${String(limit)}`);
  }
  return {
    policy: o.policy,
    queueDepth: boundedInteger('queueDepth', o.queueDepth, 1, MAX_QUEUE_DEPTH),
    reservationDepth: boundedInteger('reservationDepth', o.reservationDepth, 0, MAX_RESERVATION_DEPTH),
    maxReservationDepth: boundedInteger('maxReservationDepth', o.maxReservationDepth, 0, MAX_RESERVATION_DEPTH),
    defaultTimeLimitMs: limit,
    ...(o.explain === false ? { explain: false } : {}),
    ...(o.preemption ? { preemption: { exemptMs: o.preemption.exemptMs } } : {}),
    ...(o.sharedWorkers ? { sharedWorkers: true } : {}),
  };
}

/** What a queue policy is, as data: the pass loop reads these fields and nothing else. */
export interface QueuePolicyRule {
  readonly name: QueuePolicy;
  /**
   * Plans on the time planner (allocate-or-reserve, blocked jobs kept between passes). False:
   * the plain first-fit pass (first-fit.ts), which keeps nothing between passes.
   */
  readonly plansAhead: boolean;
  /** A job that cannot fully start ends the pass: every later job waits behind it. */
  readonly stopAtFirstBlocked: boolean;
  /**
   * How many blocked jobs may hold a reservation at once (blocked jobs kept from earlier passes
   * included: passes where only jobs arrived do not pile up reservations).
   */
  reservationDepth(o: QueueOptions): number;
}

const none = (): number => 0;

/** Every policy, by name. */
export const POLICY_RULES: Readonly<Record<QueuePolicy, QueuePolicyRule>> = Object.freeze({
  'first-fit': { name: 'first-fit', plansAhead: false, stopAtFirstBlocked: false, reservationDepth: none },
  fcfs: { name: 'fcfs', plansAhead: true, stopAtFirstBlocked: true, reservationDepth: none },
  easy: { name: 'easy', plansAhead: true, stopAtFirstBlocked: false, reservationDepth: () => 1 },
  // Reserves every blocked job a pass considers, so at most queueDepth (and maxReservationDepth).
  conservative: {
    name: 'conservative',
    plansAhead: true,
    stopAtFirstBlocked: false,
    reservationDepth: (o) => Math.min(o.queueDepth, o.maxReservationDepth),
  },
  hybrid: {
    name: 'hybrid',
    plansAhead: true,
    stopAtFirstBlocked: false,
    reservationDepth: (o) => Math.min(o.reservationDepth, o.maxReservationDepth),
  },
});

export function policyRule(policy: QueuePolicy): QueuePolicyRule {
  return POLICY_RULES[policy];
}

/** first-fit on workers shared with other queues: the planning loop, skipping what does not fit, reserving nothing. */
const SHARED_FIRST_FIT: QueuePolicyRule = Object.freeze({
  name: 'first-fit',
  plansAhead: true,
  stopAtFirstBlocked: false,
  reservationDepth: none,
});

/** The rule a queue with these options runs (its policy's, or first-fit's planning form on shared workers). */
export function optionsRule(o: Pick<QueueOptions, 'policy' | 'sharedWorkers'>): QueuePolicyRule {
  return o.policy === 'first-fit' && o.sharedWorkers ? SHARED_FIRST_FIT : POLICY_RULES[o.policy];
}

/** How many blocked jobs may hold a reservation at once under these options. */
export function reservationLimit(o: QueueOptions): number {
  return optionsRule(o).reservationDepth(o);
}
