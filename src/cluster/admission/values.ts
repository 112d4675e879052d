/**
 * The values of a submit request, from the user's strings to canonical data: resources,
 * devices, env, constraints, durations, user, cwd, image. Every refusal names the field, in its
 * message and as its `field` (IrisError), so the CLI can name the flag instead.
 */
import { IrisError, describeValue, relabel, type ErrorCode } from '../../model/errors.js';
import { ATTRIBUTE_KEY, ATTRIBUTE_KEY_RULE, ENV_KEY, ENV_KEY_RULE, parseUserName } from '../../model/names.js';
import { parseConstraint, type Constraint } from '../../model/constraints.js';
import { parseCpu, parseGpu, parseMemory, type DeviceRequest } from '../../model/resources.js';
import { tpuVariant } from '../../model/tpu.js';
import { parseDuration } from '../../model/duration.js';
import { parseCategory, parseMergeKey, parseUses, type JobCategory } from '../../model/workload.js';
import {
  checkContainerNetwork,
  checkContainerUser,
  checkImageReference,
  checkJobRuntime,
  type ContainerNetwork,
  type JobRuntime,
} from '../../model/image.js';

/** Env names iris sets itself for every task. */
export const RESERVED_ENV_PREFIX = 'IRIS_';

/** null and undefined both mean "not given" on the wire. */
export function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** A refusal about the request field `field` (its key path); `message` begins with it or names the value. */
export function fieldError(
  field: string,
  message: string,
  hint?: string,
  code: ErrorCode = 'invalid_argument',
): IrisError {
  return new IrisError(code, message, hint, field);
}

/**
 * Re-throw a parser's IrisError so its message names the request field (unless it already
 * mentions `mention`) and it carries the field.
 */
export function withField<T>(field: string, mention: string, parse: () => T): T {
  try {
    return relabel(field, parse, mention);
  } catch (error) {
    if (error instanceof IrisError && error.field === undefined)
      throw fieldError(field, error.message, error.hint, error.code);
    throw error;
  }
}

export function quantity(
  field: string,
  value: number | string | null | undefined,
  parse: (input: string | number) => number,
  fallback: number,
): number {
  return given(value) ? withField(field, field, () => parse(value)) : fallback;
}

export const cpuMillis = (value: number | string | null | undefined, fallback: number) =>
  quantity('cpu', value, parseCpu, fallback);
export const memoryBytes = (value: number | string | null | undefined, fallback: number) =>
  quantity('memory', value, parseMemory, fallback);

/** The device request: `gpu` (with `gpuMemory`, the least memory of each GPU) or `tpu`. */
export function device(
  gpu: string | null | undefined,
  tpu: string | null | undefined,
  gpuMemory?: number | string | null,
): DeviceRequest | null {
  if (given(gpu) && given(tpu))
    throw fieldError('tpu', 'gpu and tpu cannot be requested together: a task uses one kind of device');
  if (given(gpuMemory) && !given(gpu)) {
    throw fieldError(
      'gpuMemory',
      `gpuMemory: applies only to a gpu request, got ${describeValue(gpuMemory)} without one`,
      'ask for GPUs too: --gpu 1 --gpu-memory 40GiB (gpu and gpuMemory in the API)',
    );
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
    if (!ENV_KEY.test(key)) {
      throw fieldError('env', `env: invalid variable name ${describeValue(key)}: it ${ENV_KEY_RULE}`);
    }
    if (key.toUpperCase().startsWith(RESERVED_ENV_PREFIX)) {
      throw fieldError(
        'env',
        `env: "${key}" is not allowed: IRIS_ variables are reserved`,
        'iris sets IRIS_* variables itself for every task',
      );
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

/** `--merge-key` (model/workload.ts parseMergeKey); null when not given. */
export function mergeKey(value: string | null | undefined): string | null {
  return given(value) ? withField('mergeKey', 'merge key', () => parseMergeKey(value)) : null;
}

export function coschedule(value: string | null | undefined): string | null {
  if (!given(value)) return null;
  if (!ATTRIBUTE_KEY.test(value)) {
    const message = `coschedule: invalid attribute name ${describeValue(value)}: it ${ATTRIBUTE_KEY_RULE}`;
    throw fieldError('coschedule', message, 'give a worker attribute such as tpu-name');
  }
  return value;
}

export function duration(field: string, value: number | string | null | undefined): number | null {
  if (!given(value)) return null;
  const ms = withField(field, field.toLowerCase(), () => parseDuration(value));
  // `field: …` so that the CLI names the flag instead (`--retry-backoff: must be longer than 0`).
  if (ms <= 0) throw fieldError(field, `${field}: must be longer than 0, got ${describeValue(value)}`);
  return ms;
}

/**
 * `retryBackoff` (else the cluster's default) and `retryBackoffMax`: the first wait and the cap of a failed task's
 * retry.
 */
export function retryBackoff(
  request: { retryBackoff?: number | string | null; retryBackoffMax?: number | string | null },
  fallbackMs: number | null,
): { retryBackoffMs: number | null; retryBackoffMaxMs: number | null } {
  const retryBackoffMs = duration('retryBackoff', request.retryBackoff) ?? fallbackMs;
  const retryBackoffMaxMs = duration('retryBackoffMax', request.retryBackoffMax);
  if (retryBackoffMaxMs !== null && retryBackoffMs === null) {
    throw fieldError(
      'retryBackoffMax',
      'retryBackoffMax: a cap without a retry backoff',
      'give --retry-backoff too, or set retry-backoff in the cluster config',
    );
  }
  if (retryBackoffMaxMs !== null && retryBackoffMs !== null && retryBackoffMaxMs < retryBackoffMs) {
    throw fieldError(
      'retryBackoffMax',
      `retryBackoffMax: ${describeValue(request.retryBackoffMax)} is shorter than the backoff itself`,
      'the cap must be at least the first wait',
    );
  }
  return { retryBackoffMs, retryBackoffMaxMs };
}

/** `timeLimit`, or its older name `timeout` (not both). */
export function timeLimit(request: {
  timeLimit?: number | string | null;
  timeout?: number | string | null;
}): number | null {
  if (request.timeLimit !== undefined && request.timeout !== undefined) {
    throw fieldError('timeLimit', 'give timeLimit or its older name timeout, not both');
  }
  return request.timeout !== undefined
    ? duration('timeout', request.timeout)
    : duration('timeLimit', request.timeLimit);
}

/** The user a job runs for: a user name (src/model/names.ts), else `fallback` (the caller's or the OS user). */
export function user(value: string | null | undefined, fallback: string): string {
  return given(value) ? withField('user', 'user', () => parseUserName(value)) : fallback;
}

/** An absolute path (a NUL character is refused with every string of the request, src/model/nul.ts). */
export function cwd(value: string | null | undefined, fallback: string | null, field = 'cwd'): string | null {
  if (!given(value)) return fallback;
  if (!value.startsWith('/')) throw fieldError(field, `${field} must be an absolute path, got ${describeValue(value)}`);
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
