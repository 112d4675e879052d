export { Calendar, type SpanId } from './calendar.js';
export { WorkerCalendar, type Amounts } from './multi.js';
export { earliestGang, earliestIndependent, type GangPlan, type IndependentPlan, type WorkerSlot } from './job.js';
