/** Public API of the queue policies (docs/architecture.md, "Queue policies"): pure, shared by the controller and the simulator. */
export {
  QUEUE_POLICIES, DEFAULT_QUEUE_OPTIONS, MAX_QUEUE_DEPTH, MAX_RESERVATION_DEPTH, POLICY_RULES, policyRule, queueOptions, reservationLimit,
} from './options.js';
export type { QueuePolicy, QueueOptions, QueuePolicyRule } from './options.js';
export { QueueScheduler } from './queue-scheduler.js';
export { queuePass } from './pass.js';
export { EMPTY_QUEUE_STATE, type QueueState, type Blocked } from './state.js';
export { allocateOrReserve, type QueuedJob, type Reservation, type Outcome } from './allocate.js';
export { PassContext } from './context.js';
