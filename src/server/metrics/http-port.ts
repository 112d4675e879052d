/**
 * The optional metrics port (`iris cluster start --metrics-port N`, config `metrics.port`): a
 * plain HTTP server on 127.0.0.1 only that answers GET /metrics with the exposition text, so a
 * Prometheus server on the same machine can scrape it. Nothing else is served there.
 *
 * A port that is in use (or not allowed) is a startup error with a hint (exit 6, unavailable, so the
 * detached launcher reports it at once), never a silent skip.
 */
import type { Server } from 'node:http';
import { IrisError } from '../../model/errors.js';
import type { ClusterMetrics } from './cluster-metrics.js';

// Not an ESM import of node:http: that would load undici in the cluster (server.ts says why).
const { createServer } = process.getBuiltinModule('node:http');

export const METRICS_HOST = '127.0.0.1';

export interface MetricsPort {
  /** The port it listens on (the one asked for, or the one given for 0). */
  port: number;
  close(): Promise<void>;
}

export async function listenMetrics(metrics: ClusterMetrics, port: number): Promise<MetricsPort> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('use GET /metrics\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, text }) => res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${error.message}\n`),
    );
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new IrisError('unavailable', `the metrics port ${port} on ${METRICS_HOST} is already in use`,
          'choose another with --metrics-port N (or metrics.port in the config), or stop what listens there'));
      } else if (error.code === 'EACCES') {
        reject(new IrisError('forbidden', `no permission to listen on ${METRICS_HOST}:${port} for metrics`, 'use a port above 1023'));
      } else {
        reject(error);
      }
    });
    server.listen(port, METRICS_HOST, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
