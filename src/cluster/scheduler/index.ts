/** Public API of the pure scheduler. */
export type * from './types.js';
export { schedule } from './queue/first-fit.js';
export { comparePending, orderPending, orderTasks } from './queue/order.js';
export { pendingQuotaProblem, runningQuotaReason, acceleratorsOf, QuotaTracker } from './queue/quota.js';
export { deviceCompatible, devicesNeeded, shapeKey, staticKey } from './placement/fit.js';
export { checkWorker } from './placement/filters.js';
export { compareGroupWorkers, groupWorkers, TPU_WORKER_ID } from './placement/gang.js';
export { explainJob } from './placement/explain.js';
export { neverReason } from './placement/feasibility.js';
export { deadlockReason, waitingAncestors, type WaitingHold } from './placement/deadlock.js';
export {
  PLACEMENT_MODES, BASELINE_MODES, isBaselineMode, SELECTIONS, DEFAULT_PLACEMENT_OPTIONS, MAX_JITTER,
  type PlacementMode, type BaselineMode, type PlacementOptions, type Selection, type Lambdas,
} from './placement/modes.js';
export { FIRST_FIT_PLACEMENT, placementOptions } from './placement/registry.js';
export {
  EMPTY_PLACEMENT_MEMORY, type PlacementProfile, type WorkerScorer, type WeightedScorer,
} from './placement/scoring.js';
export { throughput, ageTerm, REUSE_BONUS, reuseBonus } from './placement/adaptive-score.js';
export { AdaptiveSelector } from './placement/adaptive.js';
export { jitter } from './placement/jitter.js';
export { rootOf, typeOf } from './placement/baselines.js';
