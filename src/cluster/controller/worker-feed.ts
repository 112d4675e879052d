/**
 * Workers that come from outside at run time (the kubernetes backend's Nodes, docs/kubernetes.md
 * "Nodes as workers"), applied through the store operations of the config's workers and of
 * `iris workers drain` / `disable`, so events, history and `iris workers` look the same.
 *
 * Guarantees, for each update (the complete list of workers now, and the ones that take no new
 * work with the reason):
 * - a new worker is added READY;
 * - a worker that became unavailable (cordoned, not Ready) has its running attempts preempted
 *   (stop orders go to the controller; reason `node <id>: <why>`) and is DISABLED by `node` with
 *   the reason: it takes no new work but still counts as part of the cluster, so a gang that
 *   needs it waits with a reason instead of being refused. Once available again it is enabled,
 *   but only when the node disabled it (a user's disable stays);
 * - a worker that disappeared is drained (its attempts preempted, like `iris workers drain`: its
 *   node is gone) and leaves the cluster as a worker the config drops does (the store's
 *   syncWorkers, worker-sync.ts): gone from every live view, its history kept; a Node of that
 *   name that comes back joins again READY;
 * - when anything changed, a scheduling pass is requested.
 */
import type { WorkerSpec } from '../../model/types.js';
import type { ClusterStore, StopOrder } from '../state/store.js';

export interface WorkerFeedOptions {
  store: ClusterStore;
  applyStopOrders: (orders: readonly StopOrder[]) => void;
  requestPass: () => void;
  log: (message: string) => void;
}

export class WorkerFeed {
  constructor(private readonly o: WorkerFeedOptions) {}

  /** Apply the current workers; `unavailable` maps a worker id to why it takes no new work. */
  update(specs: readonly WorkerSpec[], unavailable: ReadonlyMap<string, string>): void {
    const { store, log } = this.o;
    const ids = new Set(specs.map((s) => s.id));
    const orders: StopOrder[] = [];
    let changed = false;
    for (const w of store.workers()) {
      if (ids.has(w.id)) continue;
      if (w.state !== 'DRAINED') orders.push(...store.drainWorker(w.id));
      log(`worker ${w.id} is gone (its node was deleted): it left the cluster`);
      changed = true;
    }
    const before = new Map(store.workers().map((w) => [w.id, JSON.stringify(w)]));
    store.syncWorkers(specs, 'node');
    for (const spec of specs) {
      const w = store.worker(spec.id);
      if (!w) continue;
      if (!before.has(spec.id)) {
        changed = true;
        log(`worker ${spec.id} joined`);
      } else if (before.get(spec.id) !== JSON.stringify(w)) {
        changed = true;
      }
      const why = unavailable.get(spec.id);
      if (why !== undefined && w.state === 'READY') {
        const reason = `node ${spec.id}: ${why}`;
        store.transaction(() => {
          for (const a of store.activeAttempts())
            if (a.workerId === spec.id) orders.push(...store.preemptAttempt(a.task, a.attempt, reason));
          store.disableWorker(spec.id, 'node', why);
        });
        log(`worker ${spec.id} disabled: ${why}`);
        changed = true;
      } else if (why === undefined && w.state === 'DISABLED' && w.disabled?.by === 'node') {
        store.enableWorker(spec.id, 'node');
        log(`worker ${spec.id} enabled: its node takes work again`);
        changed = true;
      }
    }
    if (orders.length > 0) this.o.applyStopOrders(orders);
    if (changed) this.o.requestPass();
  }
}
