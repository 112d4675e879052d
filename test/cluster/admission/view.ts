/** A ClusterView for admission tests: `workers`, no quotas, nothing pending, taken or waited on. */
import type { ClusterView } from '../../../src/cluster/admission/index.js';

export function clusterView(workers: ClusterView['workers'], over: Partial<ClusterView> = {}): ClusterView {
  return {
    workers,
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: () => false,
    generateName: () => 'gen',
    jobState: () => undefined,
    dependenciesOf: () => [],
    ...over,
  };
}
