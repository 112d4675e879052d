/**
 * The optional metrics port (`iris cluster start --metrics-port N`, config `metrics.port`): a
 * plain HTTP server on 127.0.0.1 only that answers GET /metrics with the exposition text, so a
 * Prometheus server on the same machine can scrape it. Nothing else is served there.
 *
 * A port that is in use (or not allowed) is a startup error with a hint (exit 6, unavailable, so the
 * detached launcher reports it at once), never a silent skip.
 *
 * Every local user can connect here, so the port is bounded like the doors (server/connection-guard.ts):
 * at most `limits.maxConnections` connections (config `connections.metrics`), the longest idle one
 * closed for room; a request's headers within `limits.headerTimeoutMs`, all of it within
 * `limits.requestTimeoutMs`; a failed accept is logged, never thrown.
 */
import type { Server } from 'node:http';
import { IrisError } from '../../model/errors.js';
import type { ClusterMetrics } from './cluster-metrics.js';
import { guardConnections, serverTimeouts, type DoorLimits } from '../connection-guard.js';
import {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_METRICS_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../../config/schema/connections.js';

// Not an ESM import of node:http: that would load undici in the cluster (server.ts says why).
const { createServer } = process.getBuiltinModule('node:http');

export const METRICS_HOST = '127.0.0.1';

/** Where the metrics port serves the exposition: `http://127.0.0.1:PORT/metrics`. */
export function metricsUrl(port: number): string {
  return `http://${METRICS_HOST}:${port}/metrics`;
}

export interface MetricsPort {
  /** The port it listens on (the one asked for, or the one given for 0). */
  port: number;
  close(): Promise<void>;
}

export interface MetricsPortOptions {
  limits?: Partial<Omit<DoorLimits, 'perPeer'>>;
  /** Where the bounds' log lines go (default: stderr). */
  log?: (message: string) => void;
}

export async function listenMetrics(
  metrics: ClusterMetrics,
  port: number,
  opts: MetricsPortOptions = {},
): Promise<MetricsPort> {
  const limits = {
    maxConnections: DEFAULT_METRICS_CONNECTIONS,
    headerTimeoutMs: DEFAULT_HEADER_TIMEOUT_MS,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    ...opts.limits,
  };
  const server: Server = createServer(serverTimeouts(limits), (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('use GET /metrics\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, text }) =>
        res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: Error) =>
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${error.message}\n`),
    );
  });
  const log = opts.log ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const name = `the metrics port (${METRICS_HOST}:${port})`;
  guardConnections(server, { name, cap: limits.maxConnections, capKey: 'connections.metrics', log });
  // No 'clientError' listener: node:http's own answers 400 or 408 and closes the connection.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new IrisError(
            'unavailable',
            `the metrics port ${port} on ${METRICS_HOST} is already in use`,
            'choose another with --metrics-port N (or metrics.port in the config), or stop what listens there',
          ),
        );
      } else if (error.code === 'EACCES') {
        reject(
          new IrisError(
            'forbidden',
            `no permission to listen on ${METRICS_HOST}:${port} for metrics`,
            'use a port above 1023',
          ),
        );
      } else {
        reject(error);
      }
    });
    server.listen(port, METRICS_HOST, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
