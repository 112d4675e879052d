/** iris configuration: `loadConfig` finds and validates `.irisrc.yaml` / `iris.config.ts`; see docs/configuration.md. */
export { loadConfig } from './load.js';
export type { LoadConfigOptions } from './load.js';
export { validateConfig, defaultConfig, parseConfigDuration, suggestKey, formatKeyPath } from './schema/validate.js';
export {
  DEFAULT_MAX_PREEMPTIONS,
  DEFAULT_STOP_GRACE_MS,
  DEFAULT_WORKER_CPU_MILLIS,
  DEFAULT_WORKER_MEMORY_BYTES,
  LOCAL_WORKER_NAME,
  MODULE_NAME,
  SEARCH_PLACES,
  machineWorker,
} from './defaults.js';
export type { IrisConfig, IrisConfigFile, IrisQuotaFile, IrisWorkerFile } from './types.js';
