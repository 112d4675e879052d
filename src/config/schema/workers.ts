/**
 * The cluster's workers from `workers:` and `slices:`. A worker with `count: N` is a pool
 * `name-0` … `name-(N-1)`; a slice is one virtual worker per host of its TPU variant, named
 * `slice-i`, carrying `tpu-name`, `tpu-worker-id`, `device-type`, `device-variant`, the chips
 * per host, a hostname and the host paths of its chips. Invariants: worker names are unique
 * across both keys; `device-type`/`device-variant` (and for slices `tpu-name`/`tpu-worker-id`)
 * always describe what the config declares; device paths are what the config lists or what
 * this machine has, never invented.
 */
import { parseGpu } from '../../model/resources.js';
import type { WorkerDevice } from '../../model/resources.js';
import { tpuVariant } from '../../model/tpu.js';
import type { WorkerSpec } from '../../model/types.js';
import { DEFAULT_HOSTNAME, DEFAULT_WORKER_CPU_MILLIS, DEFAULT_WORKER_MEMORY_BYTES, machineWorker } from '../defaults.js';
import type { MachineProbe } from '../detect.js';
import { MAX_NAME_LENGTH, SAFE_NAME, Validator, describe, formatKeyPath, type KeyPath, type Obj } from './validator.js';

const WORKER_KEYS = ['name', 'count', 'cpu', 'memory', 'gpu', 'tpu', 'hostname', 'privileged', 'attributes'];
const SLICE_KEYS = ['name', 'tpu', 'cpu', 'memory', 'devices', 'hostnames', 'privileged', 'attributes'];
const GPU_KEYS = ['variant', 'count'];
const TPU_KEYS = ['variant', 'chips', 'devices'];
const DEVICE_ATTRIBUTES = ['device-type', 'device-variant'] as const;
const SLICE_ATTRIBUTES = ['tpu-name', 'tpu-worker-id'] as const;
const MAX_POOL = 10_000;

const given = Validator.given;

/** Detect chip paths at most once per config, and only when something needs them. */
class ChipPaths {
  private cached: string[] | null = null;
  constructor(private readonly probe: MachineProbe) {}
  get(): string[] {
    this.cached ??= this.probe.tpuDevicePaths();
    return this.cached;
  }
}

function name(v: Validator, value: unknown, keys: KeyPath, what: string, suffixLength = 0): string {
  if (!given(value)) throw v.fail(keys, `missing ${what} name`);
  if (typeof value !== 'string' && typeof value !== 'number') throw v.fail(keys, `invalid ${what} name ${describe(value)}`);
  const text = String(value);
  if (!SAFE_NAME.test(text) || text.length + suffixLength > MAX_NAME_LENGTH) {
    throw v.fail(
      keys,
      `invalid ${what} name "${text}": use letters, digits, "-", "_" and ".", start with a letter or digit, at most ${MAX_NAME_LENGTH} characters${suffixLength > 0 ? ' including the "-N" suffix' : ''}`,
    );
  }
  return text;
}

function gpu(v: Validator, value: unknown, keys: KeyPath): WorkerDevice {
  if (typeof value === 'string' || typeof value === 'number') {
    const request = v.at(keys, () => parseGpu(String(value)));
    if (request.type !== 'gpu') throw v.fail(keys, `invalid gpu ${describe(value)}`);
    return { type: 'gpu', variant: request.variant, count: request.count };
  }
  const obj = v.object(value, keys, 'an object such as { variant: H100, count: 8 }');
  v.knownKeys(obj, GPU_KEYS, keys);
  const variant = given(obj.variant) ? v.variantName(obj.variant, [...keys, 'variant']) : null;
  const count = given(obj.count) ? v.positiveInteger(obj.count, [...keys, 'count'], 'gpu count') : 1;
  return { type: 'gpu', variant, count };
}

/** Chip paths of one host: the listed ones (one per chip), else the detected ones (at most `chips`). */
function chipPaths(v: Validator, listed: unknown, chips: number, keys: KeyPath, detected: ChipPaths): string[] {
  if (!given(listed)) return detected.get().slice(0, chips);
  const paths = v.devicePaths(listed, keys);
  if (paths.length !== chips) {
    throw v.fail(keys, `${paths.length} device path${paths.length === 1 ? '' : 's'} for ${chips} chips: list one path per chip`, 'stand-ins may repeat, e.g. [/dev/zero, /dev/zero, /dev/zero, /dev/zero]');
  }
  return paths;
}

function tpu(v: Validator, value: unknown, keys: KeyPath, detected: ChipPaths): { device: WorkerDevice; paths: string[] } {
  const obj: Obj = typeof value === 'string' ? { variant: value } : v.object(value, keys, 'an object such as { variant: v5litepod-16 }');
  v.knownKeys(obj, TPU_KEYS, keys);
  if (!given(obj.variant)) throw v.fail([...keys, 'variant'], 'missing TPU variant', 'for example tpu: { variant: v5litepod-16 }');
  if (typeof obj.variant !== 'string') throw v.fail([...keys, 'variant'], `invalid TPU variant ${describe(obj.variant)}`);
  const variantName = obj.variant;
  const known = v.at([...keys, 'variant'], () => tpuVariant(variantName));
  const chips = given(obj.chips) ? v.positiveInteger(obj.chips, [...keys, 'chips'], 'TPU chips') : known.chipsPerHost;
  return { device: { type: 'tpu', variant: known.name, count: chips }, paths: chipPaths(v, obj.devices, chips, [...keys, 'devices'], detected) };
}

/** User attributes plus the ones the worker reports itself; repeating a reported value is allowed, changing it is not. */
function attributesWith(
  v: Validator,
  raw: unknown,
  keys: KeyPath,
  reported: Record<string, string | undefined>,
  setWith: string,
): Record<string, string> {
  const attributes = v.attributes(raw, [...keys, 'attributes']);
  for (const [key, actual] of Object.entries(reported)) {
    const value = attributes[key];
    if (value !== undefined && value !== actual) {
      throw v.fail(
        [...keys, 'attributes', key],
        `"${key}" is reported by the worker itself (${actual === undefined ? 'absent' : `"${actual}"`} here) and cannot be set to "${value}"`,
        `remove it from attributes; ${setWith}`,
      );
    }
    if (actual === undefined) delete attributes[key];
    else attributes[key] = actual;
  }
  return attributes;
}

function deviceAttributes(device: WorkerDevice): Record<(typeof DEVICE_ATTRIBUTES)[number], string | undefined> {
  return { 'device-type': device.type, 'device-variant': device.variant ?? undefined };
}

function worker(v: Validator, value: unknown, keys: KeyPath, detected: ChipPaths): WorkerSpec[] {
  const obj = v.object(value, keys, 'a worker object with at least a name');
  v.knownKeys(obj, WORKER_KEYS, keys);
  const count = given(obj.count) ? v.positiveInteger(obj.count, [...keys, 'count'], 'worker count') : null;
  if (count !== null && count > MAX_POOL) throw v.fail([...keys, 'count'], `invalid worker count ${count}: at most ${MAX_POOL}`);
  const base = name(v, obj.name, [...keys, 'name'], 'worker', count === null ? 0 : `-${count - 1}`.length);
  const cpuMillis = given(obj.cpu) ? v.cpu(obj.cpu, [...keys, 'cpu']) : DEFAULT_WORKER_CPU_MILLIS;
  const memoryBytes = given(obj.memory) ? v.memory(obj.memory, [...keys, 'memory']) : DEFAULT_WORKER_MEMORY_BYTES;
  if (given(obj.gpu) && given(obj.tpu)) throw v.fail(keys, 'a worker has at most one device: set either gpu or tpu, not both');
  let device: WorkerDevice = { type: 'cpu', variant: null, count: 0 };
  let paths: string[] | undefined;
  if (given(obj.gpu)) device = gpu(v, obj.gpu, [...keys, 'gpu']);
  if (given(obj.tpu)) ({ device, paths } = tpu(v, obj.tpu, [...keys, 'tpu'], detected));
  const hostname = given(obj.hostname) ? v.hostname(obj.hostname, [...keys, 'hostname']) : undefined;
  const privileged = given(obj.privileged) ? v.boolean(obj.privileged, [...keys, 'privileged'], 'privileged') : false;
  const attributes = attributesWith(v, obj.attributes, keys, deviceAttributes(device), 'set the device with gpu: or tpu:');

  const one = (id: string): WorkerSpec => ({
    id,
    cpuMillis,
    memoryBytes,
    device: { ...device },
    attributes: { ...attributes },
    ...(paths !== undefined ? { devicePaths: [...paths] } : {}),
    ...(hostname !== undefined ? { hostname } : {}),
    ...(privileged ? { privileged } : {}),
  });
  return count === null ? [one(base)] : Array.from({ length: count }, (_, i) => one(`${base}-${i}`));
}

function slice(v: Validator, value: unknown, keys: KeyPath, detected: ChipPaths): WorkerSpec[] {
  const obj = v.object(value, keys, 'a slice object such as { name: slice-a, tpu: v5litepod-16 }');
  v.knownKeys(obj, SLICE_KEYS, keys);
  if (!given(obj.tpu)) throw v.fail([...keys, 'tpu'], 'missing TPU variant', 'for example tpu: v5litepod-16');
  if (typeof obj.tpu !== 'string') throw v.fail([...keys, 'tpu'], `invalid TPU variant ${describe(obj.tpu)}: expected a name such as v5litepod-16`);
  const variantName = obj.tpu;
  const variant = v.at([...keys, 'tpu'], () => tpuVariant(variantName));
  const sliceName = name(v, obj.name, [...keys, 'name'], 'slice', `-${variant.hosts - 1}`.length);
  const cpuMillis = given(obj.cpu) ? v.cpu(obj.cpu, [...keys, 'cpu']) : DEFAULT_WORKER_CPU_MILLIS;
  const memoryBytes = given(obj.memory) ? v.memory(obj.memory, [...keys, 'memory']) : DEFAULT_WORKER_MEMORY_BYTES;
  const paths = chipPaths(v, obj.devices, variant.chipsPerHost, [...keys, 'devices'], detected);
  let hostnames: string[] | null = null;
  if (given(obj.hostnames)) {
    const list = v.list(obj.hostnames, [...keys, 'hostnames'], 'host names');
    if (list.length !== variant.hosts) {
      throw v.fail([...keys, 'hostnames'], `${list.length} host name${list.length === 1 ? '' : 's'} for ${variant.name}, which has ${variant.hosts} host${variant.hosts === 1 ? '' : 's'}: list one per host, in tpu-worker-id order`);
    }
    hostnames = list.map((item, i) => v.hostname(item, [...keys, 'hostnames', i]));
  }
  const privileged = given(obj.privileged) ? v.boolean(obj.privileged, [...keys, 'privileged'], 'privileged') : false;
  const device: WorkerDevice = { type: 'tpu', variant: variant.name, count: variant.chipsPerHost };
  return Array.from({ length: variant.hosts }, (_, i) => ({
    id: `${sliceName}-${i}`,
    cpuMillis,
    memoryBytes,
    device: { ...device },
    attributes: attributesWith(
      v,
      obj.attributes,
      keys,
      { ...deviceAttributes(device), 'tpu-name': sliceName, 'tpu-worker-id': String(i) } satisfies Record<(typeof SLICE_ATTRIBUTES)[number], string>,
      'a slice sets the device, tpu-name and tpu-worker-id of its hosts',
    ),
    devicePaths: [...paths],
    hostname: hostnames?.[i] ?? DEFAULT_HOSTNAME,
    ...(privileged ? { privileged } : {}),
  }));
}

function expand(v: Validator, value: unknown, keys: KeyPath, what: string, one: (item: unknown, keys: KeyPath) => WorkerSpec[]): Array<[WorkerSpec, KeyPath]> {
  if (!given(value)) return [];
  const items = v.list(value, keys, what);
  return items.flatMap((item, index) => one(item, [...keys, index]).map((spec): [WorkerSpec, KeyPath] => [spec, [...keys, index]]));
}

/**
 * All workers of the config: `workers:` then `slices:`. With neither key, the machine worker
 * (this machine's CPUs, memory and NVIDIA GPUs).
 */
export function resolveWorkers(v: Validator, obj: Obj, probe: MachineProbe): WorkerSpec[] {
  if (obj.workers === undefined && obj.slices === undefined) return [machineWorker(probe)];
  const detected = new ChipPaths(probe);
  const entries = [
    ...expand(v, obj.workers, ['workers'], 'workers', (item, keys) => worker(v, item, keys, detected)),
    ...expand(v, obj.slices, ['slices'], 'slices', (item, keys) => slice(v, item, keys, detected)),
  ];
  if (entries.length === 0) {
    const key = obj.workers !== undefined ? 'workers' : 'slices';
    throw v.fail([key], 'a cluster needs at least one worker', 'declare a worker or a slice, or remove "workers" and "slices" to get one worker with this machine\'s CPUs and memory');
  }
  const seen = new Map<string, KeyPath>();
  const sliceNames = new Map<string, KeyPath>();
  for (const [spec, keys] of entries) {
    if (keys[0] === 'slices') sliceNames.set(spec.attributes['tpu-name']!, keys);
  }
  for (const [spec, keys] of entries) {
    const first = seen.get(spec.id);
    if (first !== undefined) {
      throw v.fail([...keys, 'name'], `duplicate worker name "${spec.id}" (also ${formatKeyPath(first)})`);
    }
    seen.set(spec.id, keys);
    const slicePath = sliceNames.get(spec.attributes['tpu-name'] ?? '');
    if (keys[0] === 'workers' && slicePath !== undefined) {
      throw v.fail([...keys, 'attributes', 'tpu-name'], `tpu-name "${spec.attributes['tpu-name']}" is the name of ${formatKeyPath(slicePath)}`, 'a slice owns its tpu-name; give this worker another one');
    }
  }
  return entries.map(([spec]) => spec);
}
