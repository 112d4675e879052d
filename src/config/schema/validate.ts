/**
 * Turns the raw object read from a config file into an IrisConfig. Pure apart from reading the
 * machine's CPUs and memory for the default worker. Every error is an IrisError
 * ('invalid_argument') whose message starts with the file path and the offending key path:
 * `/proj/.irisrc.yaml: workers[1].memory: invalid memory "lots": ...`.
 */
import os from 'node:os';
import path from 'node:path';
import { IrisError, invalid } from '../../errors.js';
import { parseCpu, parseGpu, parseMemory } from '../../cluster/model/resources.js';
import type { WorkerDevice } from '../../cluster/model/resources.js';
import { tpuVariant } from '../../cluster/model/tpu.js';
import type { Quota, WorkerSpec } from '../../cluster/model/types.js';
import {
  DEFAULT_MAX_PREEMPTIONS,
  DEFAULT_STOP_GRACE_MS,
  DEFAULT_WORKER_CPU_MILLIS,
  DEFAULT_WORKER_MEMORY_BYTES,
  machineWorker,
} from '../defaults.js';
import type { IrisConfig } from '../types.js';

type KeyPath = ReadonlyArray<string | number>;
type Obj = Record<string, unknown>;

const TOP_KEYS = ['home', 'stop-grace', 'max-preemptions', 'workers', 'quotas'];
const WORKER_KEYS = ['name', 'cpu', 'memory', 'gpu', 'tpu', 'attributes'];
const GPU_KEYS = ['variant', 'count'];
const TPU_KEYS = ['variant', 'chips'];
const QUOTA_KEYS = ['cpu', 'memory', 'accelerators', 'pending-tasks'];

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const ATTRIBUTE_KEY = /^[A-Za-z0-9][A-Za-z0-9_./-]*$/;
const MAX_NAME_LENGTH = 63;
const WELL_KNOWN = ['device-type', 'device-variant'] as const;

/** `workers[1].gpu.count`, `quotas.alice.cpu`, `quotas["a b"]`. */
export function formatKeyPath(keys: KeyPath): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The allowed key closest to `key`, if any is close enough to be a likely typo. */
export function suggestKey(key: string, allowed: readonly string[]): string | null {
  const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    if (squash(candidate) === squash(key)) return candidate;
    const distance = editDistance(key.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === null) return null;
  return bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `"${value}"`;
  return String(value);
}

/** Durations in the config: `10s`, `500ms`, `2m`, `1h`, `1.5s`, or a bare number of seconds. */
export function parseConfigDuration(input: unknown): number {
  const hint = 'use units such as 500ms, 10s or 2m (a bare number means seconds)';
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw invalid(`invalid duration ${input}: must not be negative`, hint);
    return Math.round(input * 1000);
  }
  if (typeof input !== 'string') throw invalid(`invalid duration ${describe(input)}: expected a string such as 10s`, hint);
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(input);
  if (!match) throw invalid(`invalid duration "${input}": expected a duration such as 10s, 500ms or 2m`, hint);
  const unit = (match[2] ?? 's').toLowerCase();
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(Number(match[1]) * factor);
}

function expandHome(value: string): string {
  if (value === '~') return os.homedir();
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  return value;
}

class Validator {
  constructor(private readonly source: string) {}

  fail(keys: KeyPath, message: string, hint?: string): IrisError {
    const where = keys.length > 0 ? `${formatKeyPath(keys)}: ` : '';
    return invalid(`${this.source}: ${where}${message}`, hint);
  }

  /** Run a parser from the model and re-label its IrisError with file and key path. */
  at<T>(keys: KeyPath, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof IrisError) throw this.fail(keys, error.message, error.hint);
      throw error;
    }
  }

  object(value: unknown, keys: KeyPath, what: string): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw this.fail(keys, `expected ${what}, got ${describe(value)}`);
    }
    return value as Obj;
  }

  knownKeys(obj: Obj, allowed: readonly string[], keys: KeyPath): void {
    for (const key of Object.keys(obj)) {
      if (allowed.includes(key)) continue;
      const suggestion = suggestKey(key, allowed);
      throw this.fail(
        [...keys, key],
        `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        `allowed keys here: ${allowed.join(', ')}`,
      );
    }
  }

  positiveInteger(value: unknown, keys: KeyPath, what: string): number {
    const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
      throw this.fail(keys, `invalid ${what} ${describe(value)}: expected a whole number of at least 1`);
    }
    return number;
  }

  nonNegativeInteger(value: unknown, keys: KeyPath, what: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw this.fail(keys, `invalid ${what} ${describe(value)}: expected a whole number of 0 or more`);
    }
    return value;
  }

  cpu(value: unknown, keys: KeyPath): number {
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw this.fail(keys, `invalid cpu ${describe(value)}: expected a number of cores such as 0.5 or 8`);
    }
    return this.at(keys, () => parseCpu(value));
  }

  memory(value: unknown, keys: KeyPath): number {
    if (typeof value !== 'number' && typeof value !== 'string') {
      throw this.fail(keys, `invalid memory ${describe(value)}: expected a size such as 512M, 4GiB or 2G`);
    }
    return this.at(keys, () => parseMemory(value));
  }

  variantName(value: unknown, keys: KeyPath): string {
    if (typeof value !== 'string' || !SAFE_NAME.test(value.trim())) {
      throw this.fail(keys, `invalid variant ${describe(value)}: expected a name such as H100 or v5litepod-16`);
    }
    return value.trim();
  }

  gpu(value: unknown, keys: KeyPath): WorkerDevice {
    if (typeof value === 'string' || typeof value === 'number') {
      const request = this.at(keys, () => parseGpu(String(value)));
      if (request.type !== 'gpu') throw this.fail(keys, `invalid gpu ${describe(value)}`);
      return { type: 'gpu', variant: request.variant, count: request.count };
    }
    const obj = this.object(value, keys, 'an object such as { variant: H100, count: 8 }');
    this.knownKeys(obj, GPU_KEYS, keys);
    const variant = obj.variant === undefined || obj.variant === null ? null : this.variantName(obj.variant, [...keys, 'variant']);
    const count = obj.count === undefined || obj.count === null ? 1 : this.positiveInteger(obj.count, [...keys, 'count'], 'gpu count');
    return { type: 'gpu', variant, count };
  }

  tpu(value: unknown, keys: KeyPath): WorkerDevice {
    const obj: Obj = typeof value === 'string' ? { variant: value } : this.object(value, keys, 'an object such as { variant: v5litepod-16 }');
    this.knownKeys(obj, TPU_KEYS, keys);
    if (obj.variant === undefined || obj.variant === null) {
      throw this.fail([...keys, 'variant'], 'missing TPU variant', 'for example tpu: { variant: v5litepod-16 }');
    }
    if (typeof obj.variant !== 'string') throw this.fail([...keys, 'variant'], `invalid TPU variant ${describe(obj.variant)}`);
    const name = obj.variant;
    const known = this.at([...keys, 'variant'], () => tpuVariant(name));
    const chips = obj.chips === undefined || obj.chips === null ? known.chipsPerHost : this.positiveInteger(obj.chips, [...keys, 'chips'], 'TPU chips');
    return { type: 'tpu', variant: known.name, count: chips };
  }

  attributes(value: unknown, keys: KeyPath): Record<string, string> {
    if (value === undefined || value === null) return {};
    const obj = this.object(value, keys, 'an object of name: value pairs');
    const out: Record<string, string> = {};
    for (const [key, raw] of Object.entries(obj)) {
      if (!ATTRIBUTE_KEY.test(key)) {
        throw this.fail([...keys, key], 'invalid attribute name: use letters, digits, "-", "_", "." and "/", starting with a letter or digit');
      }
      if (typeof raw === 'string') out[key] = raw;
      else if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') out[key] = String(raw);
      else throw this.fail([...keys, key], `invalid attribute value ${describe(raw)}: expected a string, number or boolean`);
    }
    return out;
  }

  worker(value: unknown, keys: KeyPath): WorkerSpec {
    const obj = this.object(value, keys, 'a worker object with at least a name');
    this.knownKeys(obj, WORKER_KEYS, keys);
    if (obj.name === undefined || obj.name === null) throw this.fail([...keys, 'name'], 'missing worker name');
    if (typeof obj.name !== 'string' && typeof obj.name !== 'number') throw this.fail([...keys, 'name'], `invalid worker name ${describe(obj.name)}`);
    const name = String(obj.name);
    if (!SAFE_NAME.test(name) || name.length > MAX_NAME_LENGTH) {
      throw this.fail(
        [...keys, 'name'],
        `invalid worker name "${name}": use letters, digits, "-", "_" and ".", start with a letter or digit, at most ${MAX_NAME_LENGTH} characters`,
      );
    }
    const cpuMillis = obj.cpu === undefined || obj.cpu === null ? DEFAULT_WORKER_CPU_MILLIS : this.cpu(obj.cpu, [...keys, 'cpu']);
    const memoryBytes =
      obj.memory === undefined || obj.memory === null ? DEFAULT_WORKER_MEMORY_BYTES : this.memory(obj.memory, [...keys, 'memory']);
    const hasGpu = obj.gpu !== undefined && obj.gpu !== null;
    const hasTpu = obj.tpu !== undefined && obj.tpu !== null;
    if (hasGpu && hasTpu) throw this.fail(keys, 'a worker has at most one device: set either gpu or tpu, not both');
    const device: WorkerDevice = hasGpu
      ? this.gpu(obj.gpu, [...keys, 'gpu'])
      : hasTpu
        ? this.tpu(obj.tpu, [...keys, 'tpu'])
        : { type: 'cpu', variant: null, count: 0 };

    const attributes = this.attributes(obj.attributes, [...keys, 'attributes']);
    const reported: Record<(typeof WELL_KNOWN)[number], string | undefined> = {
      'device-type': device.type,
      'device-variant': device.variant ?? undefined,
    };
    for (const key of WELL_KNOWN) {
      const given = attributes[key];
      const actual = reported[key];
      if (given !== undefined && given !== actual) {
        throw this.fail(
          [...keys, 'attributes', key],
          `"${key}" is reported by the worker itself (${actual === undefined ? 'absent' : `"${actual}"`} here) and cannot be set to "${given}"`,
          'remove it from attributes; set the device with gpu: or tpu:',
        );
      }
      if (actual === undefined) delete attributes[key];
      else attributes[key] = actual;
    }
    return { id: name, cpuMillis, memoryBytes, device, attributes };
  }

  workers(value: unknown, keys: KeyPath): WorkerSpec[] {
    const hint = 'declare at least one worker, or remove "workers" to get one worker with this machine\'s CPUs and memory';
    if (value === null) throw this.fail(keys, 'a cluster needs at least one worker', hint);
    if (!Array.isArray(value)) throw this.fail(keys, `expected a list of workers, got ${describe(value)}`);
    if (value.length === 0) throw this.fail(keys, 'a cluster needs at least one worker', hint);
    const seen = new Map<string, number>();
    return value.map((item, index) => {
      const worker = this.worker(item, [...keys, index]);
      const first = seen.get(worker.id);
      if (first !== undefined) {
        throw this.fail([...keys, index, 'name'], `duplicate worker name "${worker.id}" (also ${formatKeyPath([...keys, first])})`);
      }
      seen.set(worker.id, index);
      return worker;
    });
  }

  quota(value: unknown, keys: KeyPath): Quota {
    const quota: Quota = { maxRunningCpuMillis: null, maxRunningMemoryBytes: null, maxRunningAccelerators: null, maxPendingTasks: null };
    if (value === null || value === undefined) return quota;
    const obj = this.object(value, keys, 'an object such as { cpu: 8, memory: 32GiB, accelerators: 8, pending-tasks: 100 }');
    this.knownKeys(obj, QUOTA_KEYS, keys);
    const given = (key: string) => obj[key] !== undefined && obj[key] !== null;
    if (given('cpu')) quota.maxRunningCpuMillis = this.cpu(obj.cpu, [...keys, 'cpu']);
    if (given('memory')) quota.maxRunningMemoryBytes = this.memory(obj.memory, [...keys, 'memory']);
    if (given('accelerators')) quota.maxRunningAccelerators = this.positiveInteger(obj.accelerators, [...keys, 'accelerators'], 'accelerators');
    if (given('pending-tasks')) quota.maxPendingTasks = this.positiveInteger(obj['pending-tasks'], [...keys, 'pending-tasks'], 'pending-tasks');
    return quota;
  }

  quotas(value: unknown, keys: KeyPath): Map<string, Quota> {
    const out = new Map<string, Quota>();
    if (value === undefined || value === null) return out;
    const obj = this.object(value, keys, 'an object of user: { cpu, memory, accelerators, pending-tasks }');
    for (const [user, quota] of Object.entries(obj)) {
      if (user.trim() === '' || /\s/.test(user)) throw this.fail([...keys, user], `invalid user name ${JSON.stringify(user)}`);
      out.set(user, this.quota(quota, [...keys, user]));
    }
    return out;
  }

  home(value: unknown, keys: KeyPath): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string' || value.trim() === '') throw this.fail(keys, `invalid home ${describe(value)}: expected a directory path`);
    const expanded = expandHome(value.trim());
    if (path.isAbsolute(expanded)) return path.normalize(expanded);
    return path.isAbsolute(this.source) ? path.resolve(path.dirname(this.source), expanded) : expanded;
  }

  config(raw: unknown): IrisConfig {
    const obj: Obj =
      raw === undefined || raw === null
        ? {}
        : (() => {
            if (typeof raw !== 'object' || Array.isArray(raw)) {
              throw invalid(`${this.source}: the configuration must be an object (a YAML mapping), got ${describe(raw)}`);
            }
            return raw as Obj;
          })();
    this.knownKeys(obj, TOP_KEYS, []);
    const stopGraceMs =
      obj['stop-grace'] === undefined || obj['stop-grace'] === null
        ? DEFAULT_STOP_GRACE_MS
        : this.at(['stop-grace'], () => parseConfigDuration(obj['stop-grace']));
    const maxPreemptions =
      obj['max-preemptions'] === undefined || obj['max-preemptions'] === null
        ? DEFAULT_MAX_PREEMPTIONS
        : this.nonNegativeInteger(obj['max-preemptions'], ['max-preemptions'], 'max-preemptions');
    return {
      source: this.source,
      home: this.home(obj.home, ['home']),
      workers: obj.workers === undefined ? [machineWorker()] : this.workers(obj.workers, ['workers']),
      quotas: this.quotas(obj.quotas, ['quotas']),
      defaults: { maxPreemptions, stopGraceMs },
    };
  }
}

/**
 * Validate a raw configuration object (as read from `source`) and resolve it. `undefined` or
 * `null` (an empty file) gives the defaults. Throws IrisError('invalid_argument') naming
 * `source` and the offending key.
 */
export function validateConfig(raw: unknown, source: string): IrisConfig {
  return new Validator(source).config(raw);
}

/** The configuration used when no file is found. */
export function defaultConfig(): IrisConfig {
  return {
    source: null,
    home: null,
    workers: [machineWorker()],
    quotas: new Map(),
    defaults: { maxPreemptions: DEFAULT_MAX_PREEMPTIONS, stopGraceMs: DEFAULT_STOP_GRACE_MS },
  };
}
