/**
 * The running cluster's dashboard (POST /v1/dashboard): started on the first call, on the
 * config's `dashboard.listen` and `dashboard.port` (0: a free port, then kept), and kept until the
 * cluster stops (close()). Each call answers the same address with a fresh one-time login link.
 * Calls that come while it starts share the one start; a start that failed (a busy port) is tried
 * again by the next call. A non-loopback address is warned about in the cluster's log once, and
 * in every answer. The server's modules are loaded on the first call only.
 */
import type { DashboardResponse } from '../../api/types.js';
import type { DashboardConfig } from '../../config/schema/dashboard.js';
import { IrisError } from '../../model/errors.js';
import { formatHostPort } from '../../model/net-address.js';
import type { DashboardServer } from './server.js';

export interface ClusterDashboard {
  /** Starts the dashboard when it is not yet running; answers its address and a login link. */
  open(): Promise<DashboardResponse>;
  close(): Promise<void>;
}

export function clusterDashboard(
  socketPath: string,
  config: DashboardConfig,
  log: (line: string) => void,
  webRoot?: string,
): ClusterDashboard {
  let started: Promise<DashboardServer> | null = null;
  let closed = false;
  const start = async (): Promise<DashboardServer> => {
    // Loaded on the first call: a cluster whose owner never asks for the dashboard never loads it.
    const { createDashboardServer } = await import('./server.js');
    const server = createDashboardServer({
      socketPath,
      listen: { host: config.listen, port: config.port },
      log,
      ...(webRoot ? { webRoot } : {}),
    });
    const address = await server.listen();
    log(`dashboard on ${server.url()} (${formatHostPort(address)})`);
    const warning = server.warning();
    if (warning) log(`warning: ${warning}`);
    return server;
  };
  return {
    async open() {
      if (closed)
        throw new IrisError('unavailable', 'the iris cluster is stopping', 'start it again, then run `iris dashboard`');
      started ??= start().catch((error: unknown) => {
        started = null;
        throw error;
      });
      const server = await started;
      const warning = server.warning();
      return {
        url: server.url(),
        loginUrl: server.loginUrl(),
        listen: server.address(),
        ...(warning ? { warning } : {}),
      };
    },
    async close() {
      closed = true;
      const server = await started?.catch(() => null);
      await server?.close();
    },
  };
}
