export { Calendar, type SpanId } from './calendar.js';
export { WorkerCalendar, type Amounts } from './multi.js';
export { earliestGang, type GangPlan, type WorkerSlot } from './job.js';
export {
  plannedEnd,
  predictRuntime,
  runtimeEstimate,
  runtimeKey,
  RuntimeHistory,
  runRuntime,
  type TimedAttempt,
  type EstimateSource,
  type RuntimeEstimate,
} from './prediction.js';
