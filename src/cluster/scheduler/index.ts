/** Public API of the pure scheduler. */
export type * from './types.js';
export { schedule } from './schedule.js';
export { comparePending, orderPending, orderTasks } from './order.js';
export { applyQuotaOrder, pendingQuotaProblem, runningQuotaReason, acceleratorsOf, QuotaTracker } from './quota.js';
export { deviceCompatible, filterWorker, staticallyEligible, devicesNeeded, shapeKey, staticKey } from './fit.js';
export { compareGroupWorkers, groupWorkers, TPU_WORKER_ID } from './gang.js';
export { explainJob } from './explain.js';
export { neverReason } from './feasibility.js';
