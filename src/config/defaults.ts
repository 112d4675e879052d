/**
 * Built-in configuration values: what iris uses when no config file exists, and the fallbacks
 * for keys a config file leaves out.
 */
import os from 'node:os';
import type { WorkerSpec } from '../cluster/model/types.js';

/** cosmiconfig module name: `.irisrc*`, `iris.config.*`, `package.json#iris`. */
export const MODULE_NAME = 'iris';

/** Files looked for in each directory, from the start directory up to the home directory. */
export const SEARCH_PLACES = [
  'iris.config.ts',
  'iris.config.js',
  'iris.config.mjs',
  '.irisrc',
  '.irisrc.yaml',
  '.irisrc.yml',
  '.irisrc.json',
  'package.json',
] as const;

export const DEFAULT_STOP_GRACE_MS = 10_000;
export const DEFAULT_MAX_PREEMPTIONS = 100;

/** A configured worker that leaves out `cpu` gets one core. */
export const DEFAULT_WORKER_CPU_MILLIS = 1000;
/** A configured worker that leaves out `memory` gets 2 GiB. */
export const DEFAULT_WORKER_MEMORY_BYTES = 2 * 1024 ** 3;

/** Name of the single worker iris creates when the config declares none. */
export const LOCAL_WORKER_NAME = 'local';

/** One cpu worker with this machine's CPUs and total memory. */
export function machineWorker(): WorkerSpec {
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return {
    id: LOCAL_WORKER_NAME,
    cpuMillis: Math.max(1, cpus) * 1000,
    memoryBytes: os.totalmem(),
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: { 'device-type': 'cpu' },
  };
}
