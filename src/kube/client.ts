/**
 * The connection to a Kubernetes API server: kubeconfig loading and the official client
 * (`@kubernetes/client-node`), imported lazily so that nothing of it is loaded unless the
 * cluster's backend is kubernetes (docs/kubernetes.md). Guarantees: a kubeconfig that cannot be
 * read, or a context it does not have, is a user error naming the file and the contexts there;
 * the namespace is the configured one.
 */
import type { CoreV1Api, KubeConfig, Log, Watch } from '@kubernetes/client-node';
import { IrisError } from '../model/errors.js';
import { InFlightLimit } from './in-flight.js';

export interface KubeSettings {
  /** Kubeconfig file; null: KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
  kubeconfig: string | null;
  context: string | null;
  namespace: string;
}

export interface KubeConnection {
  config: KubeConfig;
  core: CoreV1Api;
  watch: Watch;
  log: Log;
  namespace: string;
  /** The API server's URL, for messages. */
  server: string;
  /** Bounds the short requests (Pod creates, Bindings, deletes) open at once (in-flight.ts). */
  limit: InFlightLimit;
}

/** Loads the kubeconfig and builds the clients. Throws IrisError('invalid_argument') for a bad file or context. */
export async function connectKube(settings: KubeSettings): Promise<KubeConnection> {
  const k8s = await import('@kubernetes/client-node');
  const config = new k8s.KubeConfig();
  const where = settings.kubeconfig ?? 'the default kubeconfig';
  try {
    if (settings.kubeconfig) config.loadFromFile(settings.kubeconfig);
    else config.loadFromDefault();
  } catch (error) {
    throw new IrisError(
      'invalid_argument',
      `cannot read the kubeconfig ${where}: ${(error as Error).message}`,
      'set backend.kubeconfig in the cluster config to a readable kubeconfig file',
    );
  }
  if (settings.context) {
    const names = config.getContexts().map((c) => c.name);
    if (!names.includes(settings.context)) {
      throw new IrisError(
        'invalid_argument',
        `the kubeconfig ${where} has no context ${settings.context}`,
        names.length > 0 ? `contexts there: ${names.join(', ')}` : 'it defines no contexts',
      );
    }
    config.setCurrentContext(settings.context);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster)
    throw new IrisError(
      'invalid_argument',
      `the kubeconfig ${where} names no cluster for its current context`,
      'set backend.context to a context with a cluster',
    );
  shareDispatcher(config);
  return {
    config,
    core: config.makeApiClient(k8s.CoreV1Api),
    watch: new k8s.Watch(config),
    log: new k8s.Log(config),
    namespace: settings.namespace,
    server: cluster.server,
    limit: new InFlightLimit(),
  };
}

/**
 * One HTTP dispatcher (connection pool) for every request of this connection. client-node 2.0.1
 * builds a new undici Agent for each API request (KubeConfig's private createDispatcher), so each
 * request opened its own TLS connection and kept it alive: creating and binding 1,000 Pods held
 * ~840 MB in the controller (docs/benchmarks.md, "Kubernetes binding"). The connection has one
 * cluster and one user, so the first dispatcher serves them all. The client is pinned to 2.0.1;
 * without that method (another version) nothing is changed.
 */
function shareDispatcher(config: KubeConfig): void {
  const target = config as unknown as { createDispatcher?: (...args: unknown[]) => unknown };
  const make = target.createDispatcher;
  if (typeof make !== 'function') return;
  let shared: unknown;
  target.createDispatcher = (...args: unknown[]) => (shared ??= make.apply(config, args));
}

/** The HTTP status of a client error (ApiException's `code`), or null. */
export function statusOf(error: unknown): number | null {
  const code =
    (error as { code?: unknown; statusCode?: unknown } | null)?.code ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : null;
}

/** A short message of a client error (the API's Status message when there is one). */
export function messageOf(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      // not JSON
    }
  }
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
