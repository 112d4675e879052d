/**
 * Public API of the queue policies (docs/architecture.md, "Queue policies"): pure, shared by the controller and the
 * simulator.
 */
export {
  QUEUE_POLICIES,
  DEFAULT_QUEUE_OPTIONS,
  MAX_QUEUE_DEPTH,
  MAX_RESERVATION_DEPTH,
  POLICY_RULES,
  queueOptions,
  reservationLimit,
} from './options.js';
export type { QueuePolicy, QueueOptions } from './options.js';
export { QueueScheduler } from './queue-scheduler.js';
export {
  QueueSet,
  namedQueueSpecs,
  type ConfiguredQueue,
  type NamedQueueListing,
  type NamedQueueSpec,
} from './queue-set.js';
export { queuePass } from './pass.js';
export { EMPTY_QUEUE_STATE } from './state.js';
