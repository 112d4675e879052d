/**
 * The values of a submit request, from the user's strings to canonical data: resources,
 * devices, env, constraints, durations, user, cwd, image. Every refusal names the field.
 */
import { IrisError, describeValue, invalid, relabel } from '../../model/errors.js';
import { parseConstraint, type Constraint } from '../../model/constraints.js';
import { parseCpu, parseGpu, parseMemory, type DeviceRequest } from '../../model/resources.js';
import { tpuVariant } from '../../model/tpu.js';
import { parseDuration } from '../../model/duration.js';
import { parseCategory, parseUses, type JobCategory } from '../../model/workload.js';
import { checkContainerNetwork, checkContainerUser, checkImageReference, checkJobRuntime, type ContainerNetwork, type JobRuntime } from '../../model/image.js';

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Env names iris sets itself for every task. */
export const RESERVED_ENV_PREFIX = 'IRIS_';
const ATTRIBUTE = /^[A-Za-z0-9][A-Za-z0-9_.\/-]*$/;

/** null and undefined both mean "not given" on the wire. */
export function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}


/** Re-throw a parser's IrisError so its message names the request field (unless it already does). */
export function withField<T>(field: string, mention: string, parse: () => T): T {
  return relabel(field, parse, mention);
}

export function quantity(field: string, value: number | string | null | undefined, parse: (input: string | number) => number, fallback: number): number {
  return given(value) ? withField(field, field, () => parse(value)) : fallback;
}

export const cpuMillis = (value: number | string | null | undefined, fallback: number) => quantity('cpu', value, parseCpu, fallback);
export const memoryBytes = (value: number | string | null | undefined, fallback: number) => quantity('memory', value, parseMemory, fallback);

/** The device request: `gpu` (with `gpuMemory`, the least memory of each GPU) or `tpu`. */
export function device(gpu: string | null | undefined, tpu: string | null | undefined, gpuMemory?: number | string | null): DeviceRequest | null {
  if (given(gpu) && given(tpu)) throw invalid('gpu and tpu cannot be requested together: a task uses one kind of device');
  if (given(gpuMemory) && !given(gpu)) {
    throw invalid(`gpuMemory: applies only to a gpu request, got ${describeValue(gpuMemory)} without one`, 'ask for GPUs too: --gpu 1 --gpu-memory 40GiB (gpu and gpuMemory in the API)');
  }
  if (given(gpu)) {
    const request = withField('gpu', 'gpu', () => parseGpu(gpu));
    if (!given(gpuMemory)) return request;
    const memoryBytes = withField('gpuMemory', 'gpumemory:', () => parseMemory(gpuMemory, 'gpu memory'));
    return { ...request, memoryBytes } as DeviceRequest;
  }
  if (given(tpu)) {
    const variant = withField('tpu', 'tpu', () => tpuVariant(tpu));
    return { type: 'tpu', variant: variant.name, chips: variant.chipsPerHost };
  }
  return null;
}

export function env(value: Record<string, string> | null | undefined): Record<string, string> {
  if (!given(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!ENV_KEY.test(key)) throw invalid(`env: invalid variable name ${describeValue(key)}`, 'names must match [A-Za-z_][A-Za-z0-9_]*');
    if (key.toUpperCase().startsWith(RESERVED_ENV_PREFIX)) {
      throw new IrisError('invalid_argument', `env: "${key}" is not allowed: IRIS_ variables are reserved`, 'iris sets IRIS_* variables itself for every task');
    }
    out[key] = v;
  }
  return out;
}

export function constraints(value: string[] | null | undefined): Constraint[] {
  if (!given(value)) return [];
  return value.map((item, i) => withField(`constraints[${i}]`, 'constraint', () => parseConstraint(item)));
}

export function category(value: string | null | undefined): JobCategory | null {
  return given(value) ? withField('category', 'category', () => parseCategory(value)) : null;
}

export function uses(value: string[] | null | undefined): string[] {
  return given(value) ? withField('uses', 'uses', () => parseUses(value)) : [];
}

export function coschedule(value: string | null | undefined): string | null {
  if (!given(value)) return null;
  if (!ATTRIBUTE.test(value)) {
    throw invalid(`coschedule: invalid attribute name ${describeValue(value)}`, 'give a worker attribute such as tpu-name; letters, digits, "_", "-", ".", "/"');
  }
  return value;
}

export function duration(field: string, value: number | string | null | undefined): number | null {
  if (!given(value)) return null;
  const ms = withField(field, field.toLowerCase(), () => parseDuration(value));
  // `field: …` so that the CLI names the flag instead (`--retry-backoff: must be longer than 0`).
  if (ms <= 0) throw invalid(`${field}: must be longer than 0, got ${describeValue(value)}`);
  return ms;
}

/** `retryBackoff` (else the cluster's default) and `retryBackoffMax`: the first wait and the cap of a failed task's retry. */
export function retryBackoff(
  request: { retryBackoff?: number | string | null; retryBackoffMax?: number | string | null },
  fallbackMs: number | null,
): { retryBackoffMs: number | null; retryBackoffMaxMs: number | null } {
  const retryBackoffMs = duration('retryBackoff', request.retryBackoff) ?? fallbackMs;
  const retryBackoffMaxMs = duration('retryBackoffMax', request.retryBackoffMax);
  if (retryBackoffMaxMs !== null && retryBackoffMs === null) {
    throw invalid('retryBackoffMax: a cap without a retry backoff', 'give --retry-backoff (retryBackoff) too, or set retry-backoff in the cluster config');
  }
  if (retryBackoffMaxMs !== null && retryBackoffMs !== null && retryBackoffMaxMs < retryBackoffMs) {
    throw invalid(`retryBackoffMax: ${describeValue(request.retryBackoffMax)} is shorter than the backoff itself`, 'the cap must be at least the first wait');
  }
  return { retryBackoffMs, retryBackoffMaxMs };
}

/** `timeLimit`, or its older name `timeout` (not both). */
export function timeLimit(request: { timeLimit?: number | string | null; timeout?: number | string | null }): number | null {
  if (request.timeLimit !== undefined && request.timeout !== undefined) throw invalid('give timeLimit or its older name timeout, not both');
  return request.timeout !== undefined ? duration('timeout', request.timeout) : duration('timeLimit', request.timeLimit);
}

export function user(value: string | null | undefined, fallback: string): string {
  if (!given(value)) return fallback;
  if (value.trim() === '' || /[\s\u0000-\u001f]/.test(value)) throw invalid(`user must be a non-empty name without spaces, got ${describeValue(value)}`);
  return value;
}

export function cwd(value: string | null | undefined, fallback: string | null): string | null {
  if (!given(value)) return fallback;
  if (!value.startsWith('/')) throw invalid(`cwd must be an absolute path, got ${describeValue(value)}`);
  if (value.includes('\u0000')) throw invalid('cwd may not contain NUL characters');
  return value;
}

export function image(value: string | null | undefined): string | null {
  return given(value) ? withField('image', 'image:', () => checkImageReference(value)) : null;
}

export function containerUser(value: string | null | undefined): string | null {
  return given(value) ? withField('userInContainer', 'user-in-container:', () => checkContainerUser(value)) : null;
}

export function network(value: string | null | undefined): ContainerNetwork | null {
  return given(value) ? withField('network', 'network:', () => checkContainerNetwork(value)) : null;
}

export function runtime(value: string | null | undefined): JobRuntime | null {
  return given(value) ? withField('runtime', 'runtime:', () => checkJobRuntime(value)) : null;
}
