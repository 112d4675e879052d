/**
 * Turns the raw object read from a config file into an IrisConfig. Pure apart from the machine
 * probe (CPUs, memory, GPUs, TPU device files), which callers may inject. Every error is an
 * IrisError ('invalid_argument') whose message starts with the file path and the offending key
 * path: `/proj/.irisrc.yaml: workers[1].memory: invalid memory "lots": ...`.
 */
import { invalid } from '../../model/errors.js';
import { DEFAULT_MAX_PREEMPTIONS, DEFAULT_QUEUE, DEFAULT_RUNTIME, DEFAULT_STOP_GRACE_MS, DEFAULT_TIME_LIMIT_MS, machineWorker } from '../defaults.js';
import { hostProbe, type MachineProbe } from '../detect.js';
import type { IrisConfig } from '../types.js';
import { home, jobDefaults, queue, quotas, runtime } from './settings.js';
import { Validator, describe, type Obj } from './validator.js';
import { resolveWorkers } from './workers.js';

export { formatKeyPath, parseConfigDuration, suggestKey } from './validator.js';

const TOP_KEYS = [
  'home', 'stop-grace', 'max-preemptions', 'time-limit', 'queue', 'runtime', 'image', 'network', 'workers', 'slices', 'quotas',
];

/**
 * Validate a raw configuration object (as read from `source`) and resolve it. `undefined` or
 * `null` (an empty file) gives the defaults. Throws IrisError('invalid_argument') naming
 * `source` and the offending key.
 */
export function validateConfig(raw: unknown, source: string, probe: MachineProbe = hostProbe): IrisConfig {
  const v = new Validator(source);
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalid(`${source}: the configuration must be an object (a YAML mapping), got ${describe(raw)}`);
  }
  const obj: Obj = (raw ?? {}) as Obj;
  v.knownKeys(obj, TOP_KEYS, []);
  return {
    source,
    home: home(v, obj.home, ['home']),
    workers: resolveWorkers(v, obj, probe),
    quotas: quotas(v, obj.quotas, ['quotas']),
    defaults: jobDefaults(v, obj),
    queue: queue(v, obj.queue, ['queue']),
    runtime: runtime(v, obj),
  };
}

/** The configuration used when no file is found. */
export function defaultConfig(probe: MachineProbe = hostProbe): IrisConfig {
  return {
    source: null,
    home: null,
    workers: [machineWorker(probe)],
    quotas: new Map(),
    defaults: { maxPreemptions: DEFAULT_MAX_PREEMPTIONS, stopGraceMs: DEFAULT_STOP_GRACE_MS, timeLimitMs: DEFAULT_TIME_LIMIT_MS },
    queue: { ...DEFAULT_QUEUE },
    runtime: { ...DEFAULT_RUNTIME },
  };
}
