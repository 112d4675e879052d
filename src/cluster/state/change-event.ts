/** The change event of one journal event key: a plain copy of the entity as it is now (events.ts). */
import type { Endpoint } from '../../model/types.js';
import type { StoreEvent } from './events.js';
import type { EventKey } from './journal.js';
import { splitKey } from './keys.js';
import type { ClusterModel } from './model.js';
import { plainTask } from './task-record.js';

/** Null when the entity is gone (deleted in the same transaction), except removed endpoints. */
export function changeEvent(
  model: ClusterModel,
  key: EventKey,
  removed: ReadonlyMap<string, Endpoint>,
): StoreEvent | null {
  const cut = key.indexOf(':');
  const kind = key.slice(0, cut);
  const id = key.slice(cut + 1);
  switch (kind) {
    case 'job': {
      const job = model.jobs.get(id)?.job;
      return job ? { type: 'job', job: { ...job } } : null;
    }
    case 'task': {
      const task = model.tasks.get(id);
      return task ? { type: 'task', task: plainTask(task) } : null;
    }
    case 'attempt': {
      const [task, n] = splitKey(id);
      const attempt = model.attempts.get(task)?.[Number(n)];
      return attempt ? { type: 'attempt', attempt: { ...attempt } } : null;
    }
    case 'worker': {
      const worker = model.workers.get(id);
      return worker ? { type: 'worker', worker: { ...worker } } : null;
    }
    default: {
      const endpoint = model.endpoints.get(id);
      if (endpoint) return { type: 'endpoint', endpoint: { ...endpoint }, removed: false };
      const gone = removed.get(id);
      return gone ? { type: 'endpoint', endpoint: { ...gone }, removed: true } : null;
    }
  }
}
