/** iris configuration: `loadConfig` finds and validates `.irisrc.yaml` / `iris.config.ts`; see docs/configuration.md. */
export { loadConfig } from './load.js';
export type { LoadConfigOptions } from './load.js';
export { validateConfig, defaultConfig, configSchema } from './schema/validate.js';
export type { IrisConfigFile, IrisQuotaFile, IrisSliceFile, IrisWorkerFile } from './schema/validate.js';
export { suggestKey, formatKeyPath } from '../model/schema-errors.js';
export {
  DEFAULT_HOSTNAME,
  DEFAULT_MAX_PREEMPTIONS,
  DEFAULT_QUEUE,
  DEFAULT_RUNTIME,
  DEFAULT_STOP_GRACE_MS,
  DEFAULT_TIME_LIMIT_MS,
  DEFAULT_WORKER_CPU_MILLIS,
  DEFAULT_WORKER_MEMORY_BYTES,
  LOCAL_WORKER_NAME,
  MODULE_NAME,
  SEARCH_PLACES,
  machineWorker,
} from './defaults.js';
export { hostProbe, normalizeGpuName, parseNvidiaSmi } from './detect.js';
export type { DetectedGpu, MachineProbe } from './detect.js';
export { QUEUE_POLICIES } from './types.js';
export type {
  ContainerNetwork,
  IrisConfig,
  QueueConfig,
  QueuePolicy,
  RuntimeConfig,
  RuntimeKind,
} from './types.js';
