/**
 * What the engine and the simulator take from the pure scheduler: its types, the placement modes
 * and their options, the pending order, and the rules admission asks (never-fit, quota, deadlock).
 * The queue policies are queue/index.ts; tests reach the parts through their own modules.
 */
export type * from './types.js';
export { comparePending, orderPending, type JobKeys } from './queue/order.js';
export { pendingQuotaProblem, acceleratorsOf } from './queue/quota.js';
export { hardQuotaReason } from './queue/shares.js';
export { neverReason } from './placement/feasibility.js';
export { deadlockReason } from './placement/deadlock.js';
export {
  PLACEMENT_MODES,
  isBaselineMode,
  SELECTIONS,
  DEFAULT_PLACEMENT_OPTIONS,
  type PlacementMode,
  type PlacementOptions,
  type Selection,
} from './placement/modes.js';
export { FIRST_FIT_PLACEMENT, placementOptions } from './placement/registry.js';
export type { PlacementProfile } from './placement/scoring.js';
