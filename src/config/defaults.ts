/**
 * Built-in configuration values: what iris uses when no config file exists, and the fallbacks
 * for keys a config file leaves out.
 */
import { DEFAULT_QUEUE_OPTIONS, MAX_RESERVATION_DEPTH } from '../cluster/scheduler/queue/options.js';
import { DEFAULT_CONTAINER_USER } from '../model/image.js';
import type { WorkerSpec } from '../model/types.js';
import { hostProbe, normalizeGpuName, type MachineProbe } from './detect.js';

/** The config's name: `.irisrc*`, `iris.config.*`, `package.json#iris`, the global `~/.config/iris/`. */
export const MODULE_NAME = 'iris';

/** Files looked for in each directory of the upward search (src/config/find.ts), in this order. */
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

/** Files looked for in the global config directory (`~/.config/iris/`), in this order. */
export const GLOBAL_SEARCH_PLACES = [
  'config',
  'config.json',
  'config.yaml',
  'config.yml',
  'config.js',
  'config.ts',
  'config.cjs',
  'config.mjs',
] as const;

export const DEFAULT_STOP_GRACE_MS = 10_000;
/** How long a job may stay deadlocked before it ends UNSCHEDULABLE: the controller's own default (30 s). */
export { DEFAULT_DEADLOCK_GRACE_MS } from '../cluster/scheduler/placement/deadlock.js';
export { DEFAULT_MAX_PREEMPTIONS } from '../cluster/lifecycle/retries.js';
/** `log-limit`: bytes of output per attempt after which its log is cut. */
export const DEFAULT_LOG_LIMIT_BYTES = 1024 ** 3;
/** `retention`: finished runs older than this are pruned with their logs (7 days). */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;
export { DEFAULT_CACHE_TTL_MS } from '../model/workload.js';
/** `keep-finished`: finished job trees the controller keeps in memory; older ones are read from the archive. */
export { DEFAULT_KEEP_FINISHED } from '../model/workload.js';

/** A configured worker that leaves out `cpu` gets one core. */
export const DEFAULT_WORKER_CPU_MILLIS = 1000;
/** A configured worker that leaves out `memory` gets 2 GiB. */
export const DEFAULT_WORKER_MEMORY_BYTES = 2 * 1024 ** 3;

/** Name of the single worker iris creates when the config declares none. */
export const LOCAL_WORKER_NAME = 'local';

/**
 * Default time limit of a job that gives none (24 h); the planner plans such a job with a predicted
 * runtime when it has one (planner/prediction.ts).
 */
export const DEFAULT_TIME_LIMIT_MS = DEFAULT_QUEUE_OPTIONS.defaultTimeLimitMs;

/**
 * Queue defaults: the scheduler's own (src/cluster/scheduler/queue/options.ts): EASY backfill,
 * 32 jobs per pass, hybrid reserves 64; reservation-depth is at most MAX_RESERVATION_DEPTH.
 */
export const DEFAULT_QUEUE = Object.freeze({
  policy: DEFAULT_QUEUE_OPTIONS.policy,
  depth: DEFAULT_QUEUE_OPTIONS.queueDepth,
  reservationDepth: DEFAULT_QUEUE_OPTIONS.reservationDepth,
  maxReservationDepth: MAX_RESERVATION_DEPTH,
});

/**
 * Runtime defaults: tasks are processes; containers run as 65534:65534 (nobody) on `bridge`
 * networking, except TPU jobs, which get `host` (the hosts of a local TPU slice reach each
 * other's coordinator on localhost). A null network means exactly that per-job default.
 */
export const DEFAULT_RUNTIME = Object.freeze({
  kind: 'process',
  image: null,
  network: null,
  containerUser: DEFAULT_CONTAINER_USER,
  containerProcessChildren: false,
} as const);

/** Hostname of a worker or slice host that declares none. */
export const DEFAULT_HOSTNAME = 'localhost';

/**
 * The worker iris creates when the config declares none: this machine's CPUs and memory, and
 * its NVIDIA GPUs when nvidia-smi reports any (variant from the first GPU's name; null when the
 * GPUs differ; memory per GPU: the smallest reported, unknown when any GPU's is unknown).
 */
export function machineWorker(probe: MachineProbe = hostProbe): WorkerSpec {
  const gpus = probe.gpus();
  const worker: WorkerSpec = {
    id: LOCAL_WORKER_NAME,
    cpuMillis: probe.cpus() * 1000,
    memoryBytes: probe.memoryBytes(),
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: { 'device-type': 'cpu' },
  };
  if (gpus.length === 0) return worker;
  const variants = new Set(gpus.map((gpu) => normalizeGpuName(gpu.name)));
  const variant = variants.size === 1 ? [...variants][0]! : null;
  const memories = gpus.map((gpu) => gpu.memoryBytes);
  const memoryBytes = memories.every((m) => m !== undefined) ? Math.min(...(memories as number[])) : null;
  worker.device = { type: 'gpu', variant, count: gpus.length, ...(memoryBytes === null ? {} : { memoryBytes }) };
  worker.attributes = variant === null ? { 'device-type': 'gpu' } : { 'device-type': 'gpu', 'device-variant': variant };
  return worker;
}
