/**
 * Queue policies (issue 4 §3) and their options. A policy decides what happens to a pending job
 * that cannot start now: `fcfs` stops the pass there, `easy` reserves the first such job,
 * `conservative` reserves every such job within the queue depth, `hybrid` reserves the first
 * `reservationDepth`; a reservation is a span in the planner, so later jobs start now only if
 * they delay none. `first-fit` is the plain scheduler: skip what does not fit, reserve nothing.
 */
import { invalid } from '../../../model/errors.js';

export const QUEUE_POLICIES = ['first-fit', 'fcfs', 'easy', 'conservative', 'hybrid'] as const;
export type QueuePolicy = (typeof QUEUE_POLICIES)[number];

export interface QueueOptions {
  policy: QueuePolicy;
  /** Pending jobs one pass considers (blocked jobs kept from earlier passes do not count). */
  queueDepth: number;
  /** Blocked jobs that get a reservation under `hybrid`. */
  reservationDepth: number;
  /** Planned duration of a job that has no time limit of its own (Infinity: unlimited). */
  defaultTimeLimitMs: number;
}

export const MAX_QUEUE_DEPTH = 1_000_000;
export const MAX_RESERVATION_DEPTH = 100_000;

/** EASY backfill, 32 jobs per pass, hybrid reserves 64, a job without a limit plans 24 h. */
export const DEFAULT_QUEUE_OPTIONS: Readonly<QueueOptions> = Object.freeze({
  policy: 'easy',
  queueDepth: 32,
  reservationDepth: 64,
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
    defaultTimeLimitMs: limit,
  };
}

/**
 * How many blocked jobs may hold a reservation at once under these options. Conservative
 * reserves every blocked job a pass considers, so at most `queueDepth` (blocked jobs kept from
 * earlier passes included: passes where only jobs arrived do not pile up reservations).
 */
export function reservationLimit(o: QueueOptions): number {
  switch (o.policy) {
    case 'easy':
      return 1;
    case 'conservative':
      return o.queueDepth;
    case 'hybrid':
      return o.reservationDepth;
    default:
      return 0;
  }
}
