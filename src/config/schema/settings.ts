/**
 * Cluster-wide settings of the config file: home, quotas, job defaults (`stop-grace`,
 * `max-preemptions`, `time-limit`), the queue policy and the task runtime (`runtime`, `image`,
 * `network`).
 */
import os from 'node:os';
import path from 'node:path';
import { checkImageReference } from '../../model/image.js';
import type { Quota } from '../../model/types.js';
import { DEFAULT_MAX_PREEMPTIONS, DEFAULT_QUEUE, DEFAULT_RUNTIME, DEFAULT_STOP_GRACE_MS, DEFAULT_TIME_LIMIT_MS } from '../defaults.js';
import { QUEUE_POLICIES, type ContainerNetwork, type IrisConfig, type QueueConfig, type RuntimeConfig, type RuntimeKind } from '../types.js';
import { Validator, describe, parseConfigDuration, type KeyPath, type Obj } from './validator.js';

const QUOTA_KEYS = ['cpu', 'memory', 'accelerators', 'pending-tasks'];
const QUEUE_KEYS = ['policy', 'depth', 'reservation-depth', 'max-reservation-depth'];
const RUNTIMES: readonly RuntimeKind[] = ['process', 'docker'];
const NETWORKS: readonly ContainerNetwork[] = ['host', 'bridge'];

const given = Validator.given;

function expandHome(value: string): string {
  if (value === '~') return os.homedir();
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2));
  return value;
}

export function home(v: Validator, value: unknown, keys: KeyPath): string | null {
  if (!given(value)) return null;
  if (typeof value !== 'string' || value.trim() === '') throw v.fail(keys, `invalid home ${describe(value)}: expected a directory path`);
  const expanded = expandHome(value.trim());
  if (path.isAbsolute(expanded)) return path.normalize(expanded);
  return path.isAbsolute(v.source) ? path.resolve(path.dirname(v.source), expanded) : expanded;
}

function quota(v: Validator, value: unknown, keys: KeyPath): Quota {
  const out: Quota = { maxRunningCpuMillis: null, maxRunningMemoryBytes: null, maxRunningAccelerators: null, maxPendingTasks: null };
  if (!given(value)) return out;
  const obj = v.object(value, keys, 'an object such as { cpu: 8, memory: 32GiB, accelerators: 8, pending-tasks: 100 }');
  v.knownKeys(obj, QUOTA_KEYS, keys);
  if (given(obj.cpu)) out.maxRunningCpuMillis = v.cpu(obj.cpu, [...keys, 'cpu']);
  if (given(obj.memory)) out.maxRunningMemoryBytes = v.memory(obj.memory, [...keys, 'memory']);
  if (given(obj.accelerators)) out.maxRunningAccelerators = v.positiveInteger(obj.accelerators, [...keys, 'accelerators'], 'accelerators');
  if (given(obj['pending-tasks'])) out.maxPendingTasks = v.positiveInteger(obj['pending-tasks'], [...keys, 'pending-tasks'], 'pending-tasks');
  return out;
}

export function quotas(v: Validator, value: unknown, keys: KeyPath): Map<string, Quota> {
  const out = new Map<string, Quota>();
  if (!given(value)) return out;
  const obj = v.object(value, keys, 'an object of user: { cpu, memory, accelerators, pending-tasks }');
  for (const [user, limits] of Object.entries(obj)) {
    if (user.trim() === '' || /\s/.test(user)) throw v.fail([...keys, user], `invalid user name ${JSON.stringify(user)}`);
    out.set(user, quota(v, limits, [...keys, user]));
  }
  return out;
}

export function jobDefaults(v: Validator, obj: Obj): IrisConfig['defaults'] {
  const stopGraceMs = given(obj['stop-grace']) ? v.at(['stop-grace'], () => parseConfigDuration(obj['stop-grace'])) : DEFAULT_STOP_GRACE_MS;
  const maxPreemptions = given(obj['max-preemptions'])
    ? v.nonNegativeInteger(obj['max-preemptions'], ['max-preemptions'], 'max-preemptions')
    : DEFAULT_MAX_PREEMPTIONS;
  let timeLimitMs: number = DEFAULT_TIME_LIMIT_MS;
  if (given(obj['time-limit'])) {
    timeLimitMs = v.at(['time-limit'], () => parseConfigDuration(obj['time-limit']));
    if (timeLimitMs <= 0) throw v.fail(['time-limit'], `invalid time-limit ${describe(obj['time-limit'])}: must be longer than 0`, 'for example time-limit: 24h');
  }
  return { maxPreemptions, stopGraceMs, timeLimitMs };
}

export function queue(v: Validator, value: unknown, keys: KeyPath): QueueConfig {
  if (!given(value)) return { ...DEFAULT_QUEUE };
  const obj = v.object(value, keys, 'an object such as { policy: easy, depth: 32 }');
  v.knownKeys(obj, QUEUE_KEYS, keys);
  const policy = given(obj.policy) ? v.oneOf(obj.policy, QUEUE_POLICIES, [...keys, 'policy'], 'queue policy') : DEFAULT_QUEUE.policy;
  const depth = given(obj.depth) ? v.positiveInteger(obj.depth, [...keys, 'depth'], 'queue depth') : DEFAULT_QUEUE.depth;
  const maxReservationDepth = given(obj['max-reservation-depth'])
    ? v.nonNegativeInteger(obj['max-reservation-depth'], [...keys, 'max-reservation-depth'], 'max-reservation-depth')
    : DEFAULT_QUEUE.maxReservationDepth;
  const explicit = given(obj['reservation-depth']);
  const reservationDepth = explicit
    ? v.nonNegativeInteger(obj['reservation-depth'], [...keys, 'reservation-depth'], 'reservation-depth')
    : Math.min(DEFAULT_QUEUE.reservationDepth, maxReservationDepth);
  if (reservationDepth > maxReservationDepth) {
    throw v.fail(
      [...keys, 'reservation-depth'],
      `reservation-depth ${reservationDepth} is larger than max-reservation-depth ${maxReservationDepth}`,
      'lower reservation-depth or raise max-reservation-depth',
    );
  }
  return { policy, depth, reservationDepth, maxReservationDepth };
}

export function runtime(v: Validator, obj: Obj): RuntimeConfig {
  const kind = given(obj.runtime) ? v.oneOf(obj.runtime, RUNTIMES, ['runtime'], 'runtime') : DEFAULT_RUNTIME.kind;
  const network = given(obj.network) ? v.oneOf(obj.network, NETWORKS, ['network'], 'network') : DEFAULT_RUNTIME.network;
  let image: string | null = null;
  if (given(obj.image)) {
    const text = v.string(obj.image, ['image'], 'image');
    image = v.at(['image'], () => checkImageReference(text));
  }
  if (kind === 'docker' && image === null) {
    throw v.fail(['runtime'], 'runtime: docker needs a default image', 'add image: IMAGE (used by jobs submitted without --image), or use runtime: process');
  }
  if (kind === 'process' && image !== null) {
    throw v.fail(['image'], 'a default image is only used with runtime: docker', 'add runtime: docker, or give the image per job with --image');
  }
  return { kind, image, network };
}
