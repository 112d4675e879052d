/** Public surface of the cluster state layer. */
export { ClusterStore, type StoreOptions } from './store.js';
export type { StoreEvent, StoreEventMap, StopOrder, HistoryEntry } from './events.js';
export { JOB_STATE_RULES, deriveJobState, classifyOutcome } from '../lifecycle/transitions.js';
