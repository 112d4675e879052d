/**
 * `connections:` the bounds on the controller's doors (docs/configuration.md, "connections"):
 * how many connections each door keeps open, how many one peer may hold, and how long a request
 * may take to arrive. The caps of the doors are sized at start against the open-file limit
 * (src/server/connection-budget.ts); here only their shape is checked.
 *
 * Guarantees: every cap is a whole number ≥ 1 or absent (absent: the default, sized at start);
 * both timeouts are at least 100 ms and `header-timeout` ≤ `request-timeout`.
 */
import { invalid } from '../../model/errors.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { formatDuration } from '../../model/duration.js';
import { durationMs, object, positiveInteger, resolving } from './fields.js';

/** Connections the owner's socket keeps open, when the config gives none. */
export const DEFAULT_OWNER_CONNECTIONS = 1024;
/** Connections each task door (the socket, and the TCP door when on) keeps open, when the config gives none. */
export const DEFAULT_TASK_DOOR_CONNECTIONS = 4096;
/** Connections the metrics port keeps open, when the config gives none. */
export const DEFAULT_METRICS_CONNECTIONS = 64;
/** Connections of one address on the TCP door, and requests in flight of one task token on a task door. */
export const DEFAULT_PER_PEER = 256;
/** How long a connection may take to send a request's headers. */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;
/** How long a request may take to arrive whole (headers and body). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The shortest timeout accepted: below it a slow but honest machine would see its requests cut. */
export const MIN_TIMEOUT_MS = 100;

/** `connections` resolved: a null cap is the default, sized against the open-file limit at start. */
export interface ConnectionsConfig {
  owner: number | null;
  taskDoor: number | null;
  metrics: number | null;
  perPeer: number;
  headerTimeoutMs: number;
  requestTimeoutMs: number;
}

function timeout(what: string) {
  return parseWith<number, number | string>((value) => {
    const ms = durationMs(value, what);
    if (ms < MIN_TIMEOUT_MS) {
      const key = what.split('.')[1];
      throw invalid(
        `invalid ${what} ${describeValue(value)}: must be at least ${MIN_TIMEOUT_MS}ms`,
        `for example ${key}: 10s`,
      );
    }
    return ms;
  });
}

export const connections = object(
  {
    owner: positiveInteger('connections.owner').nullish(),
    'task-door': positiveInteger('connections.task-door').nullish(),
    metrics: positiveInteger('connections.metrics').nullish(),
    'per-peer': positiveInteger('connections.per-peer').nullish(),
    'header-timeout': timeout('connections.header-timeout').nullish(),
    'request-timeout': timeout('connections.request-timeout').nullish(),
  },
  'an object such as { task-door: 4096, per-peer: 256, header-timeout: 10s, request-timeout: 30s }',
)
  .nullish()
  .transform(
    resolving((file): ConnectionsConfig => {
      const headerTimeoutMs = file?.['header-timeout'] ?? DEFAULT_HEADER_TIMEOUT_MS;
      const requestTimeoutMs = file?.['request-timeout'] ?? Math.max(DEFAULT_REQUEST_TIMEOUT_MS, headerTimeoutMs);
      if (headerTimeoutMs > requestTimeoutMs) {
        throw invalid(
          `connections.header-timeout ${formatDuration(headerTimeoutMs)} is longer than ` +
            `connections.request-timeout ${formatDuration(requestTimeoutMs)}`,
          'the headers are part of the request: make request-timeout at least as long as header-timeout',
        );
      }
      return {
        owner: file?.owner ?? null,
        taskDoor: file?.['task-door'] ?? null,
        metrics: file?.metrics ?? null,
        perPeer: file?.['per-peer'] ?? DEFAULT_PER_PEER,
        headerTimeoutMs,
        requestTimeoutMs,
      };
    }),
  );
