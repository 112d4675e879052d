/**
 * How many connections each door may keep open, sized against the process's open-file limit.
 *
 * Guarantee: the caps of the doors that listen, added up, plus a reserve for the controller's own
 * files (the database, log files, the pipes of running tasks, the Docker engine's connections)
 * never exceed the soft limit on open files. So no flood of a door, however large, can take the
 * descriptors the controller needs to launch a task or write a log. Caps the config leaves out
 * are the defaults, scaled down (each at least 1) when the limit is too small for them; caps the
 * config gives are kept as given, and refused (exit 2, naming the keys and the limit) when they do
 * not fit.
 *
 * The soft limit is read from /proc/self/limits: Node has no setrlimit, but it raises its soft
 * limit to the hard limit itself when it starts (so `ulimit -Sn 1024` before `iris cluster start`
 * still gives the controller the hard limit); where the file cannot be read, FALLBACK_SOFT_LIMIT
 * is assumed.
 */
import { readFileSync } from 'node:fs';
import { IrisError } from '../model/errors.js';
import {
  DEFAULT_METRICS_CONNECTIONS,
  DEFAULT_OWNER_CONNECTIONS,
  DEFAULT_TASK_DOOR_CONNECTIONS,
  type ConnectionsConfig,
} from '../config/schema/connections.js';

/** What is assumed when /proc/self/limits cannot be read (the limit macOS gives Node). */
export const FALLBACK_SOFT_LIMIT = 10_240;

/** The caps of the doors that listen (null: that door is off), and what is left for the controller. */
export interface ConnectionPlan {
  softLimit: number;
  /** Descriptors no door may take: the controller's own files. */
  reserve: number;
  owner: number;
  taskDoor: number;
  tcpTaskDoor: number | null;
  metrics: number | null;
}

/** The soft and hard limits on open files in the text of /proc/self/limits; null when absent. */
export function parseOpenFileLimit(text: string): { soft: number; hard: number } | null {
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  const match = line && /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(line);
  if (!match) return null;
  const value = (word: string) => (word === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(word));
  return { soft: value(match[1]!), hard: value(match[2]!) };
}

/** This process's soft limit on open files. */
export function readSoftLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number {
  try {
    return parseOpenFileLimit(read())?.soft ?? FALLBACK_SOFT_LIMIT;
  } catch {
    return FALLBACK_SOFT_LIMIT;
  }
}

/**
 * Descriptors kept for the controller's own files: a quarter of the limit, and at least 1024
 * (at least half of a limit under 2048).
 */
export function reserveFor(softLimit: number): number {
  return Math.max(Math.min(1024, Math.floor(softLimit / 2)), Math.floor(softLimit / 4));
}

interface Door {
  key: string;
  given: number | null;
  fallback: number;
}

/**
 * The caps of the doors: `tcp` and `metrics` say whether those doors listen. Throws IrisError
 * (invalid_argument) when the caps the config gives do not fit beside the reserve.
 */
export function planConnections(
  softLimit: number,
  config: ConnectionsConfig,
  on: { tcp: boolean; metrics: boolean },
): ConnectionPlan {
  const reserve = reserveFor(softLimit);
  const budget = softLimit - reserve;
  const doors: Door[] = [
    { key: 'owner', given: config.owner, fallback: DEFAULT_OWNER_CONNECTIONS },
    { key: 'task-door', given: config.taskDoor, fallback: DEFAULT_TASK_DOOR_CONNECTIONS },
  ];
  if (on.tcp) doors.push({ key: 'task-door', given: config.taskDoor, fallback: DEFAULT_TASK_DOOR_CONNECTIONS });
  if (on.metrics) doors.push({ key: 'metrics', given: config.metrics, fallback: DEFAULT_METRICS_CONNECTIONS });
  const given = doors.reduce((sum, d) => sum + (d.given ?? 0), 0);
  const defaults = doors.filter((d) => d.given === null);
  const wanted = defaults.reduce((sum, d) => sum + d.fallback, 0);
  const left = budget - given - defaults.length; // every default door gets at least 1
  if (left < 0) {
    const keys = [...new Set(doors.filter((d) => d.given !== null).map((d) => `connections.${d.key}`))].join(', ');
    throw new IrisError(
      'invalid_argument',
      `${keys}: the doors would hold ${given + defaults.length} connections, ` +
        `and the open-file limit ${softLimit} leaves them ${budget} (${reserve} are kept for the controller's own ` +
        `files)`,
      `lower ${keys}, or raise the hard limit on open files (ulimit -Hn) of the user that starts the cluster`,
    );
  }
  const scale = wanted === 0 ? 1 : Math.min(1, left / (wanted - defaults.length || 1));
  const cap = (door: Door): number => door.given ?? Math.max(1, Math.floor(1 + (door.fallback - 1) * scale));
  return {
    softLimit,
    reserve,
    owner: cap(doors[0]!),
    taskDoor: cap(doors[1]!),
    tcpTaskDoor: on.tcp ? cap(doors[2]!) : null,
    metrics: on.metrics ? cap(doors[doors.length - 1]!) : null,
  };
}
