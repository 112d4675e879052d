/**
 * The kubernetes backend's part of the composition root (docs/kubernetes.md): loaded by the
 * daemon with a dynamic import only when the config's backend is kubernetes, so a local cluster
 * never loads the Kubernetes client.
 *
 * Guarantees:
 * - openKube connects (a bad kubeconfig or context is a user error before anything answers) and
 *   starts the Pod watch.
 * - recoverKube settles the attempts an earlier life left RUNNING: a Pod that ended keeps its
 *   exit (and log); a Pod that still runs is re-adopted and supervised again (a crash of the
 *   controller loses nothing); only attempts without a Pod are recorded as preempted (they run
 *   again); Pods of the cluster that no attempt owns are deleted.
 * - startNodes keeps the store's workers equal to the cluster's Nodes (WorkerFeed) from before
 *   the first scheduling pass on.
 */
import { isMergedMember } from '../model/types.js';
import type { Controller } from '../cluster/controller/controller.js';
import type { AdoptedAttempt } from '../cluster/controller/supervisor.js';
import { settleRecovered, startedRecords } from '../cluster/controller/recovery.js';
import { WorkerFeed } from '../cluster/controller/worker-feed.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { attemptKey } from '../cluster/state/keys.js';
import type { BackendConfig } from '../config/types.js';
import { connectKube, messageOf, type KubeConnection } from '../kube/client.js';
import { IrisError } from '../model/errors.js';
import { NodeWatch } from '../kube/node-watch.js';
import { KubeRuntime } from '../kube/runtime.js';
import type { RunningTask, TaskLaunch } from '../runtime/types.js';

export interface KubeBackend {
  conn: KubeConnection;
  runtime: KubeRuntime;
  nodes: NodeWatch | null;
}

export async function openKube(
  backend: Extract<BackendConfig, { kind: 'kubernetes' }>,
  clusterId: string,
  log: (m: string) => void,
): Promise<KubeBackend> {
  const conn = await connectKube(backend);
  const runtime = new KubeRuntime(conn, { clusterId, image: backend.image, log });
  try {
    await runtime.start();
  } catch (error) {
    throw new IrisError(
      'unavailable',
      `cannot reach the Kubernetes API server ${conn.server}: ${messageOf(error)}`,
      'check backend.kubeconfig and backend.context, and that the server answers (kubectl get nodes)',
    );
  }
  log(`kubernetes backend: ${conn.server}, namespace ${conn.namespace}`);
  return { conn, runtime, nodes: null };
}

/** Attempts to hand to the controller (Controller.resumeRunning) before it starts. */
export type ResumedAttempt = AdoptedAttempt & { handle: RunningTask };

export async function recoverKube(
  store: ClusterStore,
  kube: KubeBackend,
  clusterId: string,
  graceMs: number,
  log: (m: string) => void,
): Promise<ResumedAttempt[]> {
  const leftovers = store.activeAttempts().filter((a) => !isMergedMember(a));
  const records = startedRecords(store, leftovers);
  const ended = await kube.runtime.recover(clusterId, records);
  const endedKeys = new Set(ended.map((r) => attemptKey(r.key.task, r.key.attempt)));
  const launches: TaskLaunch[] = [];
  for (const a of leftovers) {
    const task = store.task(a.task);
    const job = task ? store.job(task.job) : undefined;
    if (!task || !job || endedKeys.has(attemptKey(a.task, a.attempt))) continue;
    launches.push({
      key: { job: job.name, task: a.task, attempt: a.attempt },
      argv: job.spec.command,
      env: {},
      cwd: '',
      logPath: a.logPath,
      resources: job.spec.resources,
      deviceIndices: a.devices ?? [],
      labels: {},
      workerId: a.workerId,
    });
  }
  const resumed = await kube.runtime.resume(clusterId, launches);
  const resumedKeys = new Set(resumed.map((r) => attemptKey(r.task.key.task, r.task.key.attempt)));
  await kube.runtime.reclaim(clusterId, records, graceMs);
  await settleRecovered(
    store,
    ended,
    leftovers.filter((a) => !resumedKeys.has(attemptKey(a.task, a.attempt))),
  );
  if (leftovers.length > 0) {
    log(
      `recovered ${leftovers.length} attempt(s) left by an earlier cluster: ${ended.length} had ended (exit kept), ` +
        `${resumed.length} still run (re-adopted), ${leftovers.length - ended.length - resumed.length} will run again`,
    );
  }
  return resumed.map(({ task, launch, node }) => ({
    identity: { task: task.key.task, job: task.key.job, attempt: task.key.attempt },
    workerId: node ?? launch.workerId ?? '',
    launch,
    token: launch.env.IRIS_TASK_TOKEN ?? '',
    handle: task,
  }));
}

/** Watch the Nodes into the store's workers; resolves after the first complete list was applied. */
export async function startNodes(
  kube: KubeBackend,
  store: ClusterStore,
  controller: Controller,
  log: (m: string) => void,
): Promise<void> {
  const feed = new WorkerFeed({
    store,
    applyStopOrders: (orders) => controller.applyStopOrders(orders),
    requestPass: () => controller.requestPass(true),
    log,
  });
  kube.nodes = new NodeWatch(
    kube.conn,
    (workers, unavailable) => {
      try {
        feed.update(workers, unavailable);
      } catch (error) {
        log(`kubernetes: could not apply the nodes: ${(error as Error).message}`);
      }
    },
    log,
  );
  await kube.nodes.start();
}
