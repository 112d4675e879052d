/**
 * SubmitRequest (wire, user-level strings) -> JobSpec (canonical, parsed). Pure: the caller,
 * defaults and the name generator are inputs. Every rule lives here so the CLI, tasks using
 * curl and tests get the same answers; every error message names the offending field.
 *
 * Naming with a task caller (a request carrying a valid task token):
 *   - no name            -> `<caller.job>/<generated>`
 *   - relative (`eval`)  -> `<caller.job>/eval`
 *   - absolute (`/x/y`)  -> must lie strictly under caller.job, else forbidden
 * The child runs as caller.user and inherits caller.env under the request's own env.
 * Without a caller every name is a root-relative path (`eval` == `/eval`).
 */
import { IrisError, invalid } from '../model/errors.js';
import { parseConstraint, type Constraint } from '../model/constraints.js';
import { isWithin, parseJobName } from '../model/names.js';
import { DEFAULT_RESOURCES, parseCpu, parseGpu, parseMemory, type DeviceRequest } from '../model/resources.js';
import { knownTpuVariants, tpuVariant } from '../model/tpu.js';
import type { JobSpec } from '../model/types.js';
import { parseDuration } from '../model/duration.js';
import type { TaskCaller } from '../model/caller.js';
import type { SubmitRequest } from './types.js';
import { checkImageReference } from '../model/image.js';

export interface SubmitContext {
  caller: TaskCaller | null;
  defaultUser: string;
  defaultCwd: string;
  /** Returns one fresh name component such as `brisk-otter-4821`. */
  generateName: () => string;
  /** Optional: lets toJobSpec retry generated names that are already taken (full canonical name). */
  isNameTaken?: (name: string) => boolean;
}

export const MAX_REPLICAS = 10_000;
export const DEFAULT_MAX_PREEMPTIONS = 100;
const GENERATE_ATTEMPTS = 50;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_ENV_PREFIX = 'IRIS_';
const ATTRIBUTE = /^[A-Za-z0-9][A-Za-z0-9_.\/-]*$/;

const KNOWN_FIELDS = new Set<keyof SubmitRequest>([
  'name', 'command', 'replicas', 'cpu', 'memory', 'gpu', 'tpu', 'env', 'constraints', 'coschedule',
  'maxRetries', 'maxTaskFailures', 'maxPreemptions', 'timeout', 'timeLimit', 'schedulingTimeout', 'user', 'cwd', 'image',
]);

/** Re-throw a parser's IrisError so its message names the request field. */
function withField<T>(field: string, mention: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof IrisError) {
      const message = error.message.toLowerCase().includes(mention) ? error.message : `${field}: ${error.message}`;
      throw new IrisError(error.code, message, error.hint);
    }
    throw error;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `"${value}"` : typeof value === 'object' ? 'an object' : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** null and undefined both mean "not given" on the wire. */
function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

function optionalString(field: string, value: unknown): string | undefined {
  if (!given(value)) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} must be a string, got ${describe(value)}`);
  return value;
}

function integerField(field: string, value: unknown, min: number, max: number, fallback: number): number {
  if (!given(value)) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${field} must be an integer, got ${describe(value)}`);
  if (value < min || value > max) {
    throw invalid(max === Number.MAX_SAFE_INTEGER ? `${field} must be ${min} or more, got ${value}` : `${field} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function parseCommand(value: unknown): string[] {
  if (!given(value)) throw invalid('command is required: a non-empty array of strings such as ["python", "train.py"]');
  if (!Array.isArray(value) || value.length === 0) throw invalid(`command must be a non-empty array of strings, got ${describe(value)}`);
  value.forEach((arg, i) => {
    if (typeof arg !== 'string') throw invalid(`command[${i}] must be a string, got ${describe(arg)}`);
  });
  if ((value[0] as string).trim() === '') throw invalid('command[0] (the program) may not be empty');
  return [...(value as string[])];
}

function parseEnv(value: unknown): Record<string, string> {
  if (!given(value)) return {};
  if (!isPlainObject(value)) throw invalid(`env must be an object of string values, got ${describe(value)}`);
  const env: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!ENV_KEY.test(key)) throw invalid(`env: invalid variable name "${key}"`, 'names must match [A-Za-z_][A-Za-z0-9_]*');
    if (key.toUpperCase().startsWith(RESERVED_ENV_PREFIX)) {
      throw new IrisError('invalid_argument', `env: "${key}" is not allowed: IRIS_ variables are reserved`, 'iris sets IRIS_* variables itself for every task');
    }
    if (typeof v !== 'string') throw invalid(`env.${key} must be a string, got ${describe(v)}`);
    env[key] = v;
  }
  return env;
}

function parseConstraints(value: unknown): Constraint[] {
  if (!given(value)) return [];
  if (!Array.isArray(value)) throw invalid(`constraints must be an array of strings, got ${describe(value)}`);
  return value.map((item, i) => {
    if (typeof item !== 'string') throw invalid(`constraints[${i}] must be a string, got ${describe(item)}`);
    return withField(`constraints[${i}]`, 'constraint', () => parseConstraint(item));
  });
}

function parseQuantity(field: string, value: unknown, expected: string, parse: (input: string | number) => number, fallback: number): number {
  if (!given(value)) return fallback;
  if (typeof value !== 'number' && typeof value !== 'string') throw invalid(`${field} must be ${expected}, got ${describe(value)}`);
  return withField(field, field, () => parse(value));
}

function parseDevice(gpu: unknown, tpu: unknown): DeviceRequest | null {
  const gpuText = optionalString('gpu', gpu);
  const tpuText = optionalString('tpu', tpu);
  if (gpuText !== undefined && tpuText !== undefined) throw invalid('gpu and tpu cannot be requested together: a task uses one kind of device');
  if (gpuText !== undefined) return withField('gpu', 'gpu', () => parseGpu(gpuText));
  if (tpuText !== undefined) {
    const variant = withField('tpu', 'tpu', () => tpuVariant(tpuText));
    return { type: 'tpu', variant: variant.name, chips: variant.chipsPerHost };
  }
  return null;
}

/** The slice attribute a multi-host TPU job is co-scheduled by. */
export const TPU_SLICE_ATTRIBUTE = 'tpu-name';

/**
 * A multi-host TPU variant is one program over all hosts of one slice: one task per host
 * (replicas default to, and must equal, the variant's hosts), co-scheduled by tpu-name so task i
 * runs on tpu-worker-id i. Null for anything else (single-host variants keep replicas as given).
 */
function tpuGang(device: DeviceRequest | null, replicas: number | null, coschedule: string | null): { replicas: number; coschedule: string } | null {
  if (device?.type !== 'tpu') return null;
  const variant = tpuVariant(device.variant);
  if (variant.hosts === 1) return null;
  const sized = (hosts: number) => knownTpuVariants().find((v) => v.generation === variant.generation && v.hosts === hosts)?.name;
  if (replicas !== null && replicas !== variant.hosts) {
    const other = sized(replicas);
    const instead = other ? `, or use a variant with ${replicas} hosts such as ${other}` : '';
    const message =
      replicas > variant.hosts
        ? `replicas: ${variant.name} has ${variant.hosts} hosts; --replicas ${replicas} would need a slice of ${replicas} hosts`
        : `replicas: ${variant.name} has ${variant.hosts} hosts and a multi-host TPU job runs one task on each; --replicas ${replicas} would leave ${variant.hosts - replicas} idle`;
    throw invalid(message, `a multi-host TPU job runs one task per host: leave --replicas out or give ${variant.hosts}${instead}`);
  }
  if (coschedule !== null && coschedule !== TPU_SLICE_ATTRIBUTE) {
    throw invalid(
      `coschedule: a multi-host TPU job (${variant.name}) is co-scheduled by ${TPU_SLICE_ATTRIBUTE}, got "${coschedule}"`,
      `its tasks are the hosts of one slice; leave --coschedule out`,
    );
  }
  return { replicas: variant.hosts, coschedule: TPU_SLICE_ATTRIBUTE };
}

function parseOptionalDuration(field: string, value: unknown): number | null {
  if (!given(value)) return null;
  if (typeof value !== 'string' && typeof value !== 'number') throw invalid(`${field} must be a duration string such as "10m", got ${describe(value)}`);
  const ms = withField(field, field.toLowerCase(), () => parseDuration(value));
  if (ms <= 0) throw invalid(`${field} must be longer than 0, got ${describe(value)}`);
  return ms;
}

function parseUser(value: unknown, fallback: string): string {
  const user = optionalString('user', value);
  if (user === undefined) return fallback;
  if (user.trim() === '' || /[\s\u0000-\u001f]/.test(user)) throw invalid(`user must be a non-empty name without spaces, got ${describe(user)}`);
  return user;
}

function parseCwd(value: unknown, fallback: string | null): string | null {
  const cwd = optionalString('cwd', value);
  if (cwd === undefined) return fallback;
  if (!cwd.startsWith('/')) throw invalid(`cwd must be an absolute path, got ${describe(cwd)}`);
  if (cwd.includes('\u0000')) throw invalid('cwd may not contain NUL characters');
  return cwd;
}

function parseCoschedule(value: unknown): string | null {
  const attribute = optionalString('coschedule', value);
  if (attribute === undefined) return null;
  if (!ATTRIBUTE.test(attribute)) {
    throw invalid(`coschedule: invalid attribute name "${attribute}"`, 'give a worker attribute such as tpu-name; letters, digits, "_", "-", ".", "/"');
  }
  return attribute;
}

function resolveName(value: unknown, ctx: SubmitContext): { name: string; generated: boolean } {
  const requested = optionalString('name', value);
  const caller = ctx.caller;
  if (requested === undefined || requested.trim() === '') {
    if (requested !== undefined && requested.length > 0) throw invalid('name may not be blank');
    return { name: generate(caller?.job ?? null, ctx), generated: true };
  }
  const trimmed = requested.trim();
  if (!caller) return { name: withField('name', 'name', () => parseJobName(trimmed)), generated: false };
  if (trimmed.startsWith('/')) {
    const name = withField('name', 'name', () => parseJobName(trimmed));
    if (name === caller.job || !isWithin(name, caller.job)) {
      throw new IrisError('forbidden', `name "${name}": a task may only create children under its own job ${caller.job}`,
        `use a relative name such as "eval" to create ${caller.job}/eval`);
    }
    return { name, generated: false };
  }
  return { name: withField('name', 'name', () => parseJobName(`${caller.job}/${trimmed}`)), generated: false };
}

function parseImage(value: unknown): string | null {
  const image = optionalString('image', value);
  if (image === undefined) return null;
  return withField('image', 'image:', () => checkImageReference(image));
}

function generate(parent: string | null, ctx: SubmitContext): string {
  for (let i = 0; i < GENERATE_ATTEMPTS; i++) {
    const component = ctx.generateName();
    const name = withField('name', 'name', () => parseJobName(parent ? `${parent}/${component}` : component));
    if (!ctx.isNameTaken?.(name)) return name;
  }
  throw new IrisError('conflict', 'name: could not generate an unused job name', 'give the job a name with --name');
}

/** Validate a submit request and build the JobSpec the controller stores. Throws IrisError. */
export function toJobSpec(req: SubmitRequest, ctx: SubmitContext): { spec: JobSpec; generated: boolean } {
  const body: unknown = req;
  if (!isPlainObject(body)) throw invalid(`the submit request must be a JSON object, got ${describe(body)}`);
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key as keyof SubmitRequest)) throw invalid(`unknown field "${key}"`, `known fields: ${[...KNOWN_FIELDS].join(', ')}`);
  }
  const command = parseCommand(body.command);
  const replicas = integerField('replicas', body.replicas, 1, MAX_REPLICAS, 1);
  const cpuMillis = parseQuantity('cpu', body.cpu, 'a number of cores such as 0.5 or "2"', parseCpu, DEFAULT_RESOURCES.cpuMillis);
  const memoryBytes = parseQuantity('memory', body.memory, 'a size such as "4GiB" or a number of bytes', parseMemory, DEFAULT_RESOURCES.memoryBytes);
  const device = parseDevice(body.gpu, body.tpu);
  const requestEnv = parseEnv(body.env);
  const constraints = parseConstraints(body.constraints);
  const coschedule = parseCoschedule(body.coschedule);
  const maxRetries = integerField('maxRetries', body.maxRetries, 0, Number.MAX_SAFE_INTEGER, 0);
  const maxTaskFailures = integerField('maxTaskFailures', body.maxTaskFailures, 0, Number.MAX_SAFE_INTEGER, 0);
  const maxPreemptions = integerField('maxPreemptions', body.maxPreemptions, 0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_PREEMPTIONS);
  if (body.timeLimit !== undefined && body.timeout !== undefined) throw invalid('give timeLimit or its older name timeout, not both');
  const timeoutMs = body.timeout !== undefined ? parseOptionalDuration('timeout', body.timeout) : parseOptionalDuration('timeLimit', body.timeLimit);
  const schedulingTimeoutMs = parseOptionalDuration('schedulingTimeout', body.schedulingTimeout);
  const image = parseImage(body.image);
  const cwd = parseCwd(body.cwd, image === null ? ctx.defaultCwd : null);

  const caller = ctx.caller;
  let user = parseUser(body.user, caller?.user ?? ctx.defaultUser);
  let env = requestEnv;
  if (caller) {
    if (user !== caller.user) {
      throw new IrisError('forbidden', `user "${user}": a task's children run as its own user "${caller.user}"`, 'leave user out of the request');
    }
    user = caller.user;
    const inherited: Record<string, string> = {};
    for (const [key, value] of Object.entries(caller.env)) {
      if (!key.toUpperCase().startsWith(RESERVED_ENV_PREFIX)) inherited[key] = value;
    }
    env = { ...inherited, ...requestEnv };
  }
  const { name, generated } = resolveName(body.name, ctx);
  const gang = tpuGang(device, body.replicas === undefined || body.replicas === null ? null : replicas, coschedule);

  const spec: JobSpec = {
    name,
    user,
    command,
    env,
    cwd,
    image,
    replicas: gang?.replicas ?? replicas,
    resources: { cpuMillis, memoryBytes, device },
    constraints,
    coschedule: gang?.coschedule ?? coschedule,
    maxRetries,
    maxTaskFailures,
    maxPreemptions,
    timeoutMs,
    schedulingTimeoutMs,
  };
  return { spec, generated };
}
