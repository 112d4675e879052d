export { Calendar, type SpanId } from './calendar.js';
export { WorkerCalendar, type Amounts } from './multi.js';
export { earliestGang, type GangPlan, type WorkerSlot } from './job.js';
