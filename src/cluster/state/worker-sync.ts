/**
 * The cluster's workers now (the config's at a start, the Kubernetes Nodes as they change) applied
 * to the model (ClusterStore.syncWorkers), inside a store transaction. Guarantees:
 * - a worker still named keeps a drain (DRAINED) or a disable (DISABLED, with who and why) across
 *   restarts and config changes, and is rewritten only when something about it changed;
 * - a worker no longer named leaves the cluster (lifecycle/workers.ts leaveWorker): DRAINING while
 *   attempts still run there (they go on; it takes no new work), DRAINED once none does, and from
 *   then on in no live view (ClusterStore.workers: `iris workers`, capacity, pending reasons, the
 *   metrics) while the history of what ran there keeps its name; it loses its disable and its
 *   context-reuse hints;
 * - a worker that had left and is named again comes back as new: READY.
 * The same rule for both sources: a worker the config drops and a Node that is deleted leave alike.
 */
import type { Worker, WorkerLeft, WorkerSpec } from '../../model/types.js';
import { leaveWorker, leftReason } from '../lifecycle/workers.js';
import { dropWorkerHints } from './cache-hints.js';
import type { ClusterModel } from './model.js';

export function syncWorkerRows(
  model: ClusterModel,
  specs: readonly WorkerSpec[],
  by: WorkerLeft['by'],
  now: number,
): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    seen.add(spec.id);
    const old = model.workers.get(spec.id);
    const next: Worker =
      old === undefined || old.left
        ? { ...spec, state: 'READY' }
        : old.state === 'DRAINED'
          ? { ...spec, state: 'DRAINED' }
          : old.state === 'DISABLED'
            ? { ...spec, state: 'DISABLED', disabled: old.disabled ?? null }
            : { ...spec, state: 'READY' };
    if (!old || JSON.stringify(old) !== JSON.stringify(next)) model.putWorker(next);
  }
  const busy = new Set<string>();
  for (const a of model.active.values()) busy.add(a.workerId);
  for (const w of [...model.workers.values()]) {
    if (seen.has(w.id)) continue;
    const next = leaveWorker(w, busy.has(w.id), by, now);
    if (JSON.stringify(next) === JSON.stringify(w)) continue;
    model.putWorker(next, w.left ? undefined : leftReason(next.left!));
    dropWorkerHints(model, w.id);
  }
}
