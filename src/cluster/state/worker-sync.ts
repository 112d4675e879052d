/**
 * The configured workers applied to the model (ClusterStore.syncWorkers), inside a store
 * transaction. Guarantees: a worker still configured keeps a drain (DRAINED) or a disable
 * (DISABLED, with who and why) across restarts and config changes, and is rewritten only when
 * something about it changed; a worker no longer configured becomes DRAINED (its disable
 * dropped) and loses its context-reuse hints.
 */
import type { Worker, WorkerSpec } from '../../model/types.js';
import { dropWorkerHints } from './cache-hints.js';
import type { ClusterModel } from './model.js';

export function syncWorkerRows(model: ClusterModel, specs: readonly WorkerSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    seen.add(spec.id);
    const old = model.workers.get(spec.id);
    const next: Worker =
      old?.state === 'DRAINED'
        ? { ...spec, state: 'DRAINED' }
        : old?.state === 'DISABLED'
          ? { ...spec, state: 'DISABLED', disabled: old.disabled ?? null }
          : { ...spec, state: 'READY' };
    if (!old || JSON.stringify(old) !== JSON.stringify(next)) model.putWorker(next);
  }
  for (const w of [...model.workers.values()]) {
    if (seen.has(w.id)) continue;
    if (w.state !== 'DRAINED') model.putWorker({ ...w, state: 'DRAINED', disabled: null });
    dropWorkerHints(model, w.id);
  }
}
