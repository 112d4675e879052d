/**
 * The cluster's workers from `workers:` and `slices:`. A worker with `count: N` is a pool
 * `name-0` … `name-(N-1)`; a slice is one virtual worker per host of its TPU variant, named
 * `slice-i`, carrying `tpu-name`, `tpu-worker-id`, `device-type`, `device-variant`, the chips
 * per host, a hostname and the host paths of its chips. Invariants: worker names are unique
 * across both keys; `device-type`/`device-variant` (and for slices `tpu-name`/`tpu-worker-id`)
 * always describe what the config declares; device paths are what the config lists or what
 * this machine has, never invented (detected at most once per config, and only when needed).
 * `cost-per-hour` (a number >= 0) becomes WorkerSpec.costPerHour on every worker of the entry
 * (absent: the model's default, 1); `power-watts: {idle, busy}` (numbers >= 0, busy >= idle)
 * becomes WorkerSpec.powerWatts (absent: no energy counted, model/energy.ts); `gpu.memory` is the
 * memory of each GPU (absent: unknown, which a job asking for `--gpu-memory` never gets).
 */
import { z } from 'zod';
import { invalid } from '../../model/errors.js';
import { formatBytes, formatCpu, parseGpu, type WorkerDevice } from '../../model/resources.js';
import { describeValue, formatKeyPath, parseWith } from '../../model/schema-errors.js';
import { tpuVariant, type TpuVariant } from '../../model/tpu.js';
import { UNPRICED_COST_PER_HOUR, type WorkerSpec } from '../../model/types.js';
import type { PowerWatts } from '../../model/energy.js';
import { DEFAULT_HOSTNAME, DEFAULT_WORKER_CPU_MILLIS, DEFAULT_WORKER_MEMORY_BYTES } from '../defaults.js';
import type { MachineProbe } from '../detect.js';
import { MAX_COMPONENT_LENGTH, componentNameRule, isComponentName } from '../../model/names.js';
import {
  attributes,
  boolean,
  byteSize,
  cpu,
  devicePaths,
  fail,
  given,
  hostname,
  list,
  memory,
  nonNegativeNumber,
  object,
  positiveInteger,
  resolving,
  variantName,
} from './fields.js';

const MAX_POOL = 10_000;

/**
 * A transform's context and a key path, as fields.ts `fail` takes them; the workload file
 * (sim/workload-file.ts), which builds its workers with this module's fields, uses them too.
 */
export type Ctx = z.core.$RefinementCtx;
export type Path = ReadonlyArray<string | number>;

/** A worker or slice name; pools and slices add `-N`, checked where N is known (`withSuffix`). */
function nameOf(what: string) {
  return parseWith<string, string | number>((value) => {
    if (!given(value)) throw invalid(`missing ${what} name`);
    if (typeof value !== 'string' && typeof value !== 'number')
      throw invalid(`invalid ${what} name ${describeValue(value)}`);
    return checkName(String(value), what, 0);
  });
}

function checkName(text: string, what: string, suffixLength: number): string {
  if (!isComponentName(text, MAX_COMPONENT_LENGTH - suffixLength)) {
    const suffix = suffixLength > 0 ? ' including the "-N" suffix' : '';
    throw invalid(`invalid ${what} name ${describeValue(text)}: ${componentNameRule()}${suffix}`);
  }
  return text;
}

function withSuffix(ctx: Ctx, text: string, what: string, suffix: string): void {
  try {
    checkName(text, what, suffix.length);
  } catch (error) {
    fail(ctx, ['name'], (error as Error).message);
  }
}

const tpuVariantOf = (missingHint: string, expected: string) =>
  parseWith<TpuVariant, string>((value) => {
    if (!given(value)) throw invalid('missing TPU variant', missingHint);
    if (typeof value !== 'string') throw invalid(`invalid TPU variant ${describeValue(value)}${expected}`);
    return tpuVariant(value);
  });

const GPU_OBJECT = 'an object such as { variant: H100, count: 8, memory: 80GiB }';

const gpuShorthand = parseWith<WorkerDevice, string | number>((value) => {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw invalid(`expected ${GPU_OBJECT}, got ${describeValue(value)}`);
  const request = parseGpu(String(value));
  if (request.type !== 'gpu') throw invalid(`invalid gpu ${describeValue(value)}`);
  return { type: 'gpu', variant: request.variant, count: request.count };
});

const gpuObject = object(
  {
    variant: variantName.nullish(),
    count: positiveInteger('gpu count').nullish(),
    memory: byteSize('gpu memory').nullish(),
  },
  GPU_OBJECT,
).transform(
  (gpu): WorkerDevice => ({
    type: 'gpu',
    variant: gpu.variant ?? null,
    count: gpu.count ?? 1,
    ...(given(gpu.memory) ? { memoryBytes: gpu.memory! } : {}),
  }),
);

const costPerHour = nonNegativeNumber('cost-per-hour', '0.5 or 12');

const powerWatts = object(
  {
    idle: nonNegativeNumber('power-watts idle', '60'),
    busy: nonNegativeNumber('power-watts busy', '250'),
  },
  'an object such as { idle: 60, busy: 250 } (watts)',
).transform(
  resolving((p, ctx): PowerWatts => {
    if (p.busy < p.idle)
      fail(
        ctx,
        ['busy'],
        `power-watts busy ${p.busy} is below idle ${p.idle}`,
        'busy is the draw at full use: >= idle',
      );
    return { idle: p.idle, busy: p.busy };
  }),
);

const gpu = z.union([gpuObject, gpuShorthand]);

/** A worker's `gpu:` (object or shorthand) and `cost-per-hour:` fields, shared with the simulator's workload format. */
export const workerGpu = gpu;
export const workerCostPerHour = costPerHour;

/** A worker's `count:` (a pool), `cpu:` and `memory:` fields, in that order; also the workload format's. */
export const workerSizeFields = {
  count: positiveInteger('worker count').nullish(),
  cpu: cpu.nullish(),
  memory: memory.nullish(),
};

/** Detect chip paths at most once per config, and only when something needs them. */
class ChipPaths {
  private cached: string[] | null = null;
  constructor(private readonly probe: MachineProbe) {}
  get(): string[] {
    this.cached ??= this.probe.tpuDevicePaths();
    return this.cached;
  }
}

/** Chip paths of one host: the listed ones (one per chip), else the detected ones (at most `chips`). */
function chipPaths(
  ctx: Ctx,
  listed: string[] | null | undefined,
  chips: number,
  path: Path,
  detected: ChipPaths,
): string[] {
  if (listed === undefined || listed === null) return detected.get().slice(0, chips);
  if (listed.length !== chips) {
    fail(
      ctx,
      path,
      `${listed.length} device path${listed.length === 1 ? '' : 's'} for ${chips} chips: list one path per chip`,
      'stand-ins may repeat, e.g. [/dev/zero, /dev/zero, /dev/zero, /dev/zero]',
    );
  }
  return listed;
}

/**
 * User attributes plus the ones the worker reports itself; repeating a reported value is allowed, changing it is not.
 */
function attributesWith(
  ctx: Ctx,
  given: Record<string, string>,
  reported: Record<string, string | undefined>,
  setWith: string,
): Record<string, string> {
  const out = { ...given };
  for (const [key, actual] of Object.entries(reported)) {
    const value = out[key];
    if (value !== undefined && value !== actual) {
      fail(
        ctx,
        ['attributes', key],
        `"${key}" is reported by the worker itself (${actual === undefined ? 'absent' : `"${actual}"`} here) and ` +
          `cannot be set to "${value}"`,
        `remove it from attributes; ${setWith}`,
      );
    }
    if (actual === undefined) delete out[key];
    else out[key] = actual;
  }
  return out;
}

/**
 * What a left-out key of a `workers:` or `slices:` entry resolves to, as the file would write it
 * (`iris config` lists them); keys without a default (`count`, `gpu`, `tpu`, `hostname`,
 * `power-watts`, `attributes`, …) are absent.
 */
export const ENTRY_DEFAULTS: Readonly<Record<string, string>> = {
  cpu: formatCpu(DEFAULT_WORKER_CPU_MILLIS),
  memory: formatBytes(DEFAULT_WORKER_MEMORY_BYTES, { trimZero: true }),
  privileged: 'false',
  'cost-per-hour': String(UNPRICED_COST_PER_HOUR),
};

/** The keys a `workers:` and a `slices:` entry both end with (after their own). */
const hostFields = {
  privileged: boolean('privileged').nullish(),
  'cost-per-hour': costPerHour.nullish(),
  'power-watts': powerWatts.nullish(),
  attributes,
};

/** What `privileged`, `cost-per-hour` and `power-watts` give each worker of an entry: only what was set. */
function hostSettings(entry: {
  privileged?: boolean | null;
  'cost-per-hour'?: number | null;
  'power-watts'?: PowerWatts | null;
}): Pick<WorkerSpec, 'privileged' | 'costPerHour' | 'powerWatts'> {
  return {
    ...(entry.privileged ? { privileged: true } : {}),
    ...(given(entry['cost-per-hour']) ? { costPerHour: entry['cost-per-hour']! } : {}),
    ...(given(entry['power-watts']) ? { powerWatts: { ...entry['power-watts']! } } : {}),
  };
}

const deviceAttributes = (device: WorkerDevice) => ({
  'device-type': device.type,
  'device-variant': device.variant ?? undefined,
});

/** The schemas of `workers:` and `slices:` entries; TPU chip paths not listed come from `probe`. */
export function workerSchemas(probe: MachineProbe) {
  const detected = new ChipPaths(probe);

  const tpuObject = object(
    {
      variant: tpuVariantOf('for example tpu: { variant: v5litepod-16 }', ''),
      chips: positiveInteger('TPU chips').nullish(),
      devices: devicePaths.nullish(),
    },
    'an object such as { variant: v5litepod-16 }',
  ).transform(
    resolving((tpu, ctx) => {
      const chips = tpu.chips ?? tpu.variant.chipsPerHost;
      const device: WorkerDevice = { type: 'tpu', variant: tpu.variant.name, count: chips };
      return { device, paths: chipPaths(ctx, tpu.devices, chips, ['devices'], detected) };
    }),
  );
  const tpu = z.union(
    [
      z
        .string()
        .transform((variant) => ({ variant }))
        .pipe(tpuObject),
      tpuObject,
    ],
    {
      error: (iss) => `expected an object such as { variant: v5litepod-16 }, got ${describeValue(iss.input)}`,
    },
  );

  const worker = object(
    {
      name: nameOf('worker'),
      ...workerSizeFields,
      gpu: gpu.nullish(),
      tpu: tpu.nullish(),
      hostname: hostname.nullish(),
      ...hostFields,
    },
    'a worker object with at least a name',
  ).transform(
    resolving((w, ctx): WorkerSpec[] => {
      const count = w.count ?? null;
      if (count !== null && count > MAX_POOL)
        fail(ctx, ['count'], `invalid worker count ${count}: at most ${MAX_POOL}`);
      if (count !== null) withSuffix(ctx, w.name, 'worker', `-${count - 1}`);
      if (given(w.gpu) && given(w.tpu))
        fail(ctx, [], 'a worker has at most one device: set either gpu or tpu, not both');
      const device: WorkerDevice = w.gpu ?? w.tpu?.device ?? { type: 'cpu', variant: null, count: 0 };
      const paths = w.tpu?.paths;
      const attrs = attributesWith(ctx, w.attributes, deviceAttributes(device), 'set the device with gpu: or tpu:');
      const one = (id: string): WorkerSpec => ({
        id,
        cpuMillis: w.cpu ?? DEFAULT_WORKER_CPU_MILLIS,
        memoryBytes: w.memory ?? DEFAULT_WORKER_MEMORY_BYTES,
        device: { ...device },
        attributes: { ...attrs },
        ...(paths !== undefined ? { devicePaths: [...paths] } : {}),
        ...(given(w.hostname) ? { hostname: w.hostname! } : {}),
        ...hostSettings(w),
      });
      return count === null ? [one(w.name)] : Array.from({ length: count }, (_, i) => one(`${w.name}-${i}`));
    }),
  );

  const slice = object(
    {
      name: nameOf('slice'),
      tpu: tpuVariantOf('for example tpu: v5litepod-16', ': expected a name such as v5litepod-16'),
      cpu: cpu.nullish(),
      memory: memory.nullish(),
      devices: devicePaths.nullish(),
      hostnames: list(hostname, 'host names').nullish(),
      ...hostFields,
    },
    'a slice object such as { name: slice-a, tpu: v5litepod-16 }',
  ).transform(
    resolving((s, ctx): WorkerSpec[] => {
      const variant = s.tpu;
      withSuffix(ctx, s.name, 'slice', `-${variant.hosts - 1}`);
      const paths = chipPaths(ctx, s.devices, variant.chipsPerHost, ['devices'], detected);
      const hostnames = s.hostnames ?? null;
      if (hostnames !== null && hostnames.length !== variant.hosts) {
        const n = hostnames.length;
        fail(
          ctx,
          ['hostnames'],
          `${n} host name${n === 1 ? '' : 's'} for ${variant.name}, which has ${variant.hosts} host` +
            `${variant.hosts === 1 ? '' : 's'}: list one per host, in tpu-worker-id order`,
        );
      }
      const device: WorkerDevice = { type: 'tpu', variant: variant.name, count: variant.chipsPerHost };
      return Array.from({ length: variant.hosts }, (_, i) => ({
        id: `${s.name}-${i}`,
        cpuMillis: s.cpu ?? DEFAULT_WORKER_CPU_MILLIS,
        memoryBytes: s.memory ?? DEFAULT_WORKER_MEMORY_BYTES,
        device: { ...device },
        attributes: attributesWith(
          ctx,
          s.attributes,
          { ...deviceAttributes(device), 'tpu-name': s.name, 'tpu-worker-id': String(i) },
          'a slice sets the device, tpu-name and tpu-worker-id of its hosts',
        ),
        devicePaths: [...paths],
        hostname: hostnames?.[i] ?? DEFAULT_HOSTNAME,
        ...hostSettings(s),
      }));
    }),
  );

  return { workers: list(worker, 'workers'), slices: list(slice, 'slices') };
}

/**
 * All workers of the config, `workers:` then `slices:`, checked together: at least one, names
 * unique across both keys, and a worker never claims the tpu-name of a slice.
 */
export function joinWorkers(
  ctx: Ctx,
  workers: WorkerSpec[][] | null,
  slices: WorkerSpec[][] | null,
  workersGiven: boolean,
): WorkerSpec[] {
  const entries: Array<[WorkerSpec, Path]> = [
    ...(workers ?? []).flatMap((specs, index) => specs.map((spec): [WorkerSpec, Path] => [spec, ['workers', index]])),
    ...(slices ?? []).flatMap((specs, index) => specs.map((spec): [WorkerSpec, Path] => [spec, ['slices', index]])),
  ];
  if (entries.length === 0) {
    fail(
      ctx,
      [workersGiven ? 'workers' : 'slices'],
      'a cluster needs at least one worker',
      'declare a worker or a slice, or remove "workers" and "slices" to get one worker with this machine\'s CPUs ' +
        'and memory',
    );
  }
  const seen = new Map<string, Path>();
  const sliceNames = new Map<string, Path>();
  for (const [spec, path] of entries) {
    if (path[0] === 'slices') sliceNames.set(spec.attributes['tpu-name']!, path);
  }
  for (const [spec, path] of entries) {
    const first = seen.get(spec.id);
    if (first !== undefined)
      fail(ctx, [...path, 'name'], `duplicate worker name "${spec.id}" (also ${formatKeyPath(first)})`);
    seen.set(spec.id, path);
    const slicePath = sliceNames.get(spec.attributes['tpu-name'] ?? '');
    if (path[0] === 'workers' && slicePath !== undefined) {
      fail(
        ctx,
        [...path, 'attributes', 'tpu-name'],
        `tpu-name "${spec.attributes['tpu-name']}" is the name of ${formatKeyPath(slicePath)}`,
        'a slice owns its tpu-name; give this worker another one',
      );
    }
  }
  return entries.map(([spec]) => spec);
}
