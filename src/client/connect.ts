/**
 * How commands reach a cluster: `connect` builds the socket client for this environment;
 * `ensureCluster` also starts a detached local cluster with default settings when none answers
 * (used by `iris submit` and `iris run`), once the request has passed the check a cluster started
 * then would make (server/preflight.ts, through the caller's `beforeStart`). Inside a task
 * (IRIS_CONTROLLER_ADDRESS set: the task door's socket, or its `http://HOST:PORT` on TCP) it never
 * starts one: the task's cluster is the one to talk to.
 * The launcher is imported only when a cluster must be started: every other command's start
 * skips it and what it loads (docs/benchmarks.md, "CLI start").
 */
import type { IrisClient } from './types.js';
import type { HealthResponse } from '../api/types.js';
import { SocketClient } from './socket-client.js';
import { resolveAddress, resolveHome } from '../api/address.js';
import { IrisError } from '../model/errors.js';

export type ConnectedClient = IrisClient & { ping(): Promise<boolean>; health(): Promise<HealthResponse> };

export function connect(env: NodeJS.ProcessEnv = process.env): ConnectedClient {
  return new SocketClient({ socketPath: resolveAddress(env), env });
}

/**
 * `beforeStart`: run when a cluster would be started, before anything is: a refusal it throws
 * (an invalid request, a job no configured worker could run) starts nothing.
 */
export async function ensureCluster(
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
  beforeStart?: () => Promise<void>,
): Promise<ConnectedClient> {
  const client = connect(env);
  if (await client.ping()) return client;
  if (env.IRIS_CONTROLLER_ADDRESS) {
    // A cluster that answers but refuses (no or a stale task token on the task door) says why.
    await client.health().catch((error: unknown) => {
      if (error instanceof IrisError && error.code === 'forbidden') throw error;
    });
    throw new IrisError(
      'unavailable',
      `the iris cluster at ${env.IRIS_CONTROLLER_ADDRESS} does not answer`,
      'this task was started by a cluster that has stopped',
    );
  }
  await beforeStart?.();
  const { startDetached } = await import('./launcher.js');
  const { pid, socket } = await startDetached(resolveHome(env), { env });
  log(`Started a local iris cluster (pid ${pid}, socket ${socket})`);
  return connect(env);
}
