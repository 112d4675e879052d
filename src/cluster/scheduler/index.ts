/** Public API of the pure scheduler. */
export type * from './types.js';
export { schedule } from './queue/first-fit.js';
export { comparePending, orderPending, orderTasks } from './queue/order.js';
export { pendingQuotaProblem, runningQuotaReason, acceleratorsOf, QuotaTracker } from './queue/quota.js';
export { deviceCompatible, devicesNeeded, shapeKey, staticKey } from './placement/fit.js';
export { FILTERS, NEVER_FILTERS, INDEXED_FILTERS, checkWorker, type PlacementView, type WorkerFilter } from './placement/filters.js';
export { compareGroupWorkers, groupWorkers, TPU_WORKER_ID } from './placement/gang.js';
export { explainJob } from './placement/explain.js';
export { neverReason } from './placement/feasibility.js';
export { DEFAULT_DEADLOCK_GRACE_MS, deadlockReason, waitingAncestors, type WaitingAncestor, type WaitingHold } from './placement/deadlock.js';
