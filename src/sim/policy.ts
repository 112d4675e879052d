/**
 * The scheduler the simulator drives: the live cluster's queue policy code, configured from
 * the command line (defaults as in the cluster config: queue depth 32, reservation depth 64).
 */
import { invalid } from '../model/errors.js';
import { QueueScheduler } from '../cluster/scheduler/queue/index.js';
import { DEFAULT_QUEUE_OPTIONS, QUEUE_POLICIES, type QueuePolicy } from '../cluster/scheduler/queue/options.js';
import type { PassScheduler } from './engine.js';

export interface SimPolicyOptions {
  policy: QueuePolicy;
  queueDepth?: number;
  reservationDepth?: number;
}

export function parsePolicy(name: string): QueuePolicy {
  const lower = name.trim().toLowerCase();
  if ((QUEUE_POLICIES as readonly string[]).includes(lower)) return lower as QueuePolicy;
  throw invalid(`unknown policy "${name}"`, `use one of: ${QUEUE_POLICIES.join(', ')}`);
}

export function createScheduler(options: SimPolicyOptions): PassScheduler {
  const queueDepth = options.queueDepth ?? DEFAULT_QUEUE_OPTIONS.queueDepth;
  const reservationDepth = options.reservationDepth ?? DEFAULT_QUEUE_OPTIONS.reservationDepth;
  if (!Number.isInteger(queueDepth) || queueDepth < 1) throw invalid(`invalid queue depth ${queueDepth}: expected a whole number of at least 1`);
  if (!Number.isInteger(reservationDepth) || reservationDepth < 1) {
    throw invalid(`invalid reservation depth ${reservationDepth}: expected a whole number of at least 1`);
  }
  // Every job of a simulation carries its own time limit, so the default never applies.
  return new QueueScheduler({ policy: options.policy, queueDepth, reservationDepth, defaultTimeLimitMs: Infinity });
}
