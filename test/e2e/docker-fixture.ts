/** A private cluster for Docker e2e tests, and its clean-up: the cluster, then every container labelled with its id. */
import type { ClusterInfo } from '../../src/api/types.js';
import { containersWithLabel, removeContainers } from '../helpers/docker.js';
import { E2ECluster } from './harness.js';

export async function startDockerCluster(config: string): Promise<{ c: E2ECluster; clusterId: string }> {
  const c = await E2ECluster.create({ config });
  const clusterId = (await c.json<ClusterInfo>(['cluster', 'status'])).clusterId;
  return { c, clusterId };
}

export async function stopDockerCluster(c: E2ECluster | undefined, clusterId: string): Promise<void> {
  await c?.dispose();
  if (clusterId) removeContainers(containersWithLabel('iris.cluster', clusterId));
}
