/**
 * Resource requests and worker capacity. CPU is kept in integer millicores and memory in bytes
 * so sums never drift. A device request is GPU (count, optional variant) or TPU (variant,
 * chips per host). "No device" means the task runs on any worker (CPU is universal: docs/architecture.md, "Placement").
 */
import { describeValue, invalid } from './errors.js';
import { NAME_COMPONENT_CHARS } from './names.js';

export type DeviceType = 'cpu' | 'gpu' | 'tpu';

export type DeviceRequest =
  /** `memoryBytes`: the least memory each GPU must have (`--gpu-memory`); absent or null: any. */
  | { type: 'gpu'; variant: string | null; count: number; memoryBytes?: number | null }
  | { type: 'tpu'; variant: string; chips: number };

export interface ResourceSpec {
  cpuMillis: number;
  memoryBytes: number;
  device: DeviceRequest | null;
}

/** The device a worker offers. `count` is GPUs or TPU chips on this worker; 0 for cpu. */
export interface WorkerDevice {
  type: DeviceType;
  variant: string | null;
  count: number;
  /** Memory of each device (GPUs: config `gpu.memory`, or probed); absent or null: unknown. */
  memoryBytes?: number | null;
}

export const DEFAULT_RESOURCES: ResourceSpec = { cpuMillis: 1000, memoryBytes: 256 * 1024 ** 2, device: null };

/** The most CPU one request or one worker may name (a million cores): sums of them stay exact. */
export const MAX_CPU_CORES = 1_000_000;

/**
 * A number as text: decimal digits with an optional fraction (`2`, `0.5`, `.5`), spaces around
 * allowed. No sign, exponent (`1e3`), hex (`0x10`), `Infinity` or empty text, which `Number()`
 * would all take.
 */
export const DECIMAL = /^\s*(?:\d+(?:\.\d+)?|\.\d+)\s*$/;

/**
 * CPU cores (`0.5`, `2`, or a JSON number) -> millicores; at least 0.001 and at most
 * MAX_CPU_CORES cores. Text must be DECIMAL.
 */
export function parseCpu(input: string | number): number {
  const value = typeof input === 'number' ? input : DECIMAL.test(String(input)) ? Number(input) : NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw invalid(`invalid cpu ${describeValue(input)}: expected a positive decimal number of cores such as 0.5 or 2`);
  }
  if (value > MAX_CPU_CORES)
    throw invalid(
      `invalid cpu ${describeValue(input)}: at most ${MAX_CPU_CORES} cores`,
      'give a number of cores such as 0.5 or 8',
    );
  const millis = Math.round(value * 1000);
  if (millis < 1) throw invalid(`invalid cpu ${describeValue(input)}: the smallest request is 0.001 cores`);
  return millis;
}

const MEMORY_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * The one byte-size parser: `512M`, `4GiB`, `1.5g`, `1048576` -> bytes. Plain K/M/G are taken as
 * powers of 1024, like Docker and Slurm. `what` names the value in messages (default "memory").
 */
export function parseMemory(input: string | number, what = 'memory'): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input <= 0) throw invalid(`invalid ${what} ${describeValue(input)}`);
    return boundedBytes(input, Math.round(input), what);
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(input);
  const unitKey = match?.[2]?.toLowerCase() ?? '';
  const short = unitKey.length === 1 && unitKey !== 'b' ? unitKey + 'i' : unitKey;
  const unit = match ? MEMORY_UNITS[short] : undefined;
  if (!match || unit === undefined)
    throw invalid(`invalid ${what} ${describeValue(input)}: expected a size such as 512M, 4GiB or 2G`);
  const bytes = Math.round(Number(match[1]) * unit);
  if (bytes <= 0) throw invalid(`invalid ${what} ${describeValue(input)}: must be more than 0`);
  return boundedBytes(input, bytes, what);
}

/** Byte counts stay exact integers (at most 2^53-1 bytes, about 8 PiB). */
function boundedBytes(input: string | number, bytes: number, what: string): number {
  if (!Number.isSafeInteger(bytes))
    throw invalid(`invalid ${what} ${describeValue(input)}: too large`, 'give a size such as 512M, 4GiB or 2T');
  return bytes;
}

/** `VARIANT` or `VARIANTxCOUNT`: a variant is a name component, the shortest that leaves `xN` to the count. */
const GPU_REQUEST = new RegExp(`^(${NAME_COMPONENT_CHARS}?)(?:x(\\d+))?$`);

/** `H100x8`, `8`, `H100` -> a GPU request. */
export function parseGpu(input: string): DeviceRequest {
  const text = input.trim();
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    if (!Number.isSafeInteger(count)) throw invalid(`invalid gpu ${describeValue(input)}: count is too large`);
    if (count < 1) throw invalid(`invalid gpu ${describeValue(input)}: count must be at least 1`);
    return { type: 'gpu', variant: null, count };
  }
  const match = GPU_REQUEST.exec(text);
  if (!match)
    throw invalid(
      `invalid gpu ${describeValue(input)}: expected COUNT, VARIANT or VARIANTxCOUNT such as 8, H100 or H100x8`,
    );
  const count = match[2] === undefined ? 1 : Number(match[2]);
  if (!Number.isSafeInteger(count)) throw invalid(`invalid gpu ${describeValue(input)}: count is too large`);
  if (count < 1) throw invalid(`invalid gpu ${describeValue(input)}: count must be at least 1`);
  return { type: 'gpu', variant: match[1]!, count };
}

export interface FormatBytesOptions {
  /** Drop a fraction that rounds to `.0` (`1.0GiB` -> `1GiB`), as the Docker runtime's notes print sizes. */
  trimZero?: boolean;
}

/**
 * The one byte-size formatter: binary units, one decimal when not whole: `512B`, `256MiB`,
 * `1.5GiB`. `parseMemory` reads every output back to within the rounding of that decimal.
 */
export function formatBytes(bytes: number, options: FormatBytesOptions = {}): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  let text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  if (options.trimZero) text = text.replace(/\.0$/, '');
  return `${text}${units[i]}`;
}

export function formatCpu(millis: number): string {
  return String(millis / 1000);
}

/**
 * A device in words: `cpu`, `gpu H100x8`, `tpu v5litepod-16 (4 chips)`; a GPU with a known
 * (worker) or requested (job) memory per device adds it: `gpu H100x8 (80GiB each)`.
 */
export function describeDevice(device: DeviceRequest | WorkerDevice | null): string {
  if (!device || device.type === 'cpu') return 'cpu';
  if (device.type === 'gpu') {
    const count = 'count' in device ? device.count : 1;
    const memory = device.memoryBytes != null ? ` (${formatBytes(device.memoryBytes)} each)` : '';
    return `gpu ${device.variant ?? 'any'}x${count}${memory}`;
  }
  const chips = 'chips' in device ? device.chips : device.count;
  return `tpu ${device.variant} (${chips} chips)`;
}
