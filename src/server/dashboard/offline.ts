/**
 * The dashboard of a stopped cluster (`iris dashboard` with no cluster running): the saved state,
 * read-only, served by the same dashboard server.
 *
 * Guarantees:
 * - nothing in the state directory changes: the saved state is opened by server/offline.ts (no
 *   lock taken, no file written), and that service's writes answer `unavailable` (cancel, retry,
 *   update), so the page can only read;
 * - the owner API over that service listens on a socket in a private temporary directory (0700,
 *   made here, removed by close()), never on the cluster's own socket path, so a cluster started
 *   meanwhile is not disturbed and nobody else can reach it;
 * - with no saved state the offline reader's own error is thrown (exit 6), and nothing listens.
 *
 * Loaded only by `iris dashboard` when no cluster answers (a dynamic import, .dependency-cruiser.cjs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DashboardResponse } from '../../api/types.js';
import { loadConfig } from '../../config/index.js';
import { createApiServer } from '../server.js';
import { createDashboardServer } from './server.js';

export interface OfflineDashboard extends DashboardResponse {
  /** Stops serving and removes the private directory. */
  close(): Promise<void>;
}

export interface OfflineDashboardOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  log?: (line: string) => void;
  /** The page's build (default dist/web). */
  webRoot?: string;
}

export async function serveOfflineDashboard(options: OfflineDashboardOptions): Promise<OfflineDashboard> {
  const config = await loadConfig({ cwd: options.cwd, env: options.env });
  const { openOffline } = await import('../offline.js');
  const saved = openOffline(options.home);
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-dashboard-'));
  const socketPath = path.join(dir, 'api.sock');
  const api = createApiServer(saved.service, {
    socketPath,
    door: 'owner',
    version: options.version,
    ...(options.log ? { log: (message: string) => options.log!(message.trimEnd()) } : {}),
  });
  const dashboard = createDashboardServer({
    socketPath,
    listen: { host: config.dashboard.listen, port: config.dashboard.port },
    readOnly: `cluster stopped: read-only view of the state saved in ${options.home}`,
    ...(options.log ? { log: options.log } : {}),
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
  });
  const close = async (): Promise<void> => {
    await dashboard.close();
    await api.close();
    saved.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await api.listen();
    const listen = await dashboard.listen();
    const warning = dashboard.warning();
    return { url: dashboard.url(), loginUrl: dashboard.loginUrl(), listen, ...(warning ? { warning } : {}), close };
  } catch (error) {
    await close();
    throw error;
  }
}
