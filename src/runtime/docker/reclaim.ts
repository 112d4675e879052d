/**
 * Reclaim after a restart: every container labelled `iris.cluster=<clusterId>` (running or not)
 * is stopped (SIGTERM, grace, SIGKILL) and removed; its key comes from its labels. Containers
 * of other clusters, and those the current runtime instance is running, are never touched.
 */
import type Docker from 'dockerode';
import type { TaskKey } from '../types.js';
import { EngineLostError, isConnectionError, unreachableMessage, engineMessage, type EngineAddress } from './engine.js';

export function keyFromLabels(labels: Record<string, string> | undefined): TaskKey | null {
  const job = labels?.['iris.job'];
  const task = labels?.['iris.task'];
  const attempt = Number(labels?.['iris.attempt']);
  if (!job || !task || !Number.isInteger(attempt)) return null;
  return { job, task, attempt };
}

async function stopAndRemove(docker: Docker, id: string, running: boolean, graceMs: number): Promise<void> {
  const container = docker.getContainer(id);
  if (running) {
    await container.kill({ signal: 'SIGTERM' }).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const stopped = (container.wait() as Promise<unknown>).catch(() => undefined);
    await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))))]);
    clearTimeout(timer);
  }
  // force: SIGKILL whatever still runs, then remove.
  await container.remove({ force: true, v: true }).catch((error: { statusCode?: number }) => {
    if (error.statusCode === 404 || error.statusCode === 409) return; // gone, or being removed already
    throw error;
  });
}

export async function reclaimContainers(
  docker: Docker,
  address: EngineAddress,
  clusterId: string,
  graceMs: number,
  exclude: ReadonlySet<string>,
): Promise<TaskKey[]> {
  let list: Docker.ContainerInfo[];
  try {
    list = await docker.listContainers({ all: true, filters: { label: [`iris.cluster=${clusterId}`] } });
  } catch (error) {
    if (isConnectionError(error)) throw new EngineLostError(unreachableMessage(address, error));
    throw new Error(`cannot list containers: ${engineMessage(error)}`);
  }
  const mine = list.filter((c) => !exclude.has(c.Id) && c.Labels?.['iris.cluster'] === clusterId);
  const results = await Promise.allSettled(
    mine.map((c) =>
      stopAndRemove(docker, c.Id, c.State === 'running' || c.State === 'paused' || c.State === 'restarting', graceMs),
    ),
  );
  const failed = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${mine[i]!.Names?.[0] ?? mine[i]!.Id}: ${engineMessage(r.reason)}`] : [],
  );
  if (failed.length > 0)
    throw new Error(`could not remove ${failed.length} container(s) of cluster ${clusterId}: ${failed.join('; ')}`);
  return mine.map((c) => keyFromLabels(c.Labels)).filter((k): k is TaskKey => k !== null);
}
