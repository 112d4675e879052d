/**
 * A job's named queue (docs/configuration.md, "Named queues"): the queue it asks for
 * (`--queue`), else its parent's (the submitting task's job, or a stored parent that has not
 * ended), else the config's `default-queue`. A cluster without `queues:` gives no job a queue,
 * and a request naming one is refused. An unknown name is refused with the known names and the
 * closest one (invalid_argument, exit 2). The queue's defaults (time limit; band, for a root job
 * that asks for none) fill what the request leaves out.
 */
import type { Band } from '../../model/band.js';
import type { TaskCaller } from '../../model/caller.js';
import { parentJob } from '../../model/names.js';
import { findQueue, unknownQueue, type QueueCatalog, type QueueDefaults } from '../../model/queues.js';
import { given } from './values.js';

/** The queue `name`'s job joins (null: the cluster has no named queues). */
export function jobQueue(
  requested: string | null | undefined,
  name: string,
  caller: TaskCaller | null,
  catalog: QueueCatalog | null | undefined,
  liveQueue: ((name: string) => string | undefined) | undefined,
): QueueDefaults | null {
  if (!catalog) {
    if (given(requested)) throw unknownQueue([], requested!);
    return null;
  }
  if (given(requested)) {
    const queue = findQueue(catalog, requested!);
    if (!queue) throw unknownQueue(catalog.queues, requested!);
    return queue;
  }
  const parent = caller ? caller.job : parentJob(name);
  const inherited = caller ? caller.queue : parent === null ? undefined : liveQueue?.(parent);
  const queue = inherited === undefined ? undefined : findQueue(catalog, inherited);
  return queue ?? findQueue(catalog, catalog.defaultQueue) ?? null;
}

/** The band a root job of `queue` gets when it asks for none; null: the usual default. */
export function queueBand(queue: QueueDefaults | null, root: boolean): Band | null {
  return root && queue?.band ? queue.band : null;
}
