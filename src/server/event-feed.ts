/**
 * The cluster's event stream (GET /v1/events, docs/api.md): one ClusterEvent per change of a job,
 * task, attempt, worker or endpoint, built from the store's committed change events.
 *
 * Guarantees:
 * - The stream subscribes to the store and takes its picture of current states in the same
 *   synchronous step, so no change committed after that is missed and `previous` is exact: the
 *   state the entity had when the stream opened, or in the last event of this stream about it.
 *   An entity new to the stream (a job submitted later) has no `previous`.
 * - An event whose state equals its `previous` is a change of something else (a reason, a
 *   worker's tasks); state-change readers (`iris watch --stream`) skip those.
 * - With `current`, the stream first lists every unfinished job as it is now (no `previous`),
 *   then one `{type: "cluster", state: "SYNCED"}` event, then the changes, like a list + watch.
 * - It ends quietly when the signal aborts.
 */
import { on } from 'node:events';
import type { ClusterStore, StoreEvent } from '../cluster/state/store.js';
import type { ClusterEvent } from '../model/events.js';
import { isFinalJobState } from '../model/states.js';

export interface EventFeedOptions {
  /** Open with the unfinished jobs as they are now, then a SYNCED marker. */
  current?: boolean;
}

function keyOf(event: ClusterEvent): string {
  return event.attempt === undefined ? `${event.type}:${event.name}` : `attempt:${event.name}#${event.attempt}`;
}

function toClusterEvent(event: StoreEvent, time: number): ClusterEvent {
  switch (event.type) {
    case 'job':
      return withReason({ type: 'job', name: event.job.name, state: event.job.state, time }, event.job.reason);
    case 'task':
      return withReason({ type: 'task', name: event.task.id, state: event.task.state, time }, event.task.reason);
    case 'attempt':
      return withReason(
        { type: 'task', name: event.attempt.task, attempt: event.attempt.attempt, state: event.attempt.state, time },
        event.attempt.reason,
      );
    case 'worker':
      return { type: 'worker', name: event.worker.id, state: event.worker.state, time };
    case 'endpoint':
      return { type: 'endpoint', name: event.endpoint.name, state: event.removed ? 'removed' : 'registered', time };
  }
}

function withReason(event: ClusterEvent, reason: string | null): ClusterEvent {
  return reason ? { ...event, reason } : event;
}

export async function* clusterEvents(
  store: ClusterStore,
  signal: AbortSignal,
  now: () => number,
  options: EventFeedOptions = {},
): AsyncIterable<ClusterEvent> {
  // Subscribe and take the picture of states in one synchronous step (see the header).
  const changes = on(store.events, 'change', { signal }) as AsyncIterable<[StoreEvent]>;
  const seen = new Map<string, string>();
  const unfinished: ClusterEvent[] = [];
  for (const job of store.jobs()) {
    seen.set(`job:${job.name}`, job.state);
    for (const task of store.tasksOf(job.name)) {
      seen.set(`task:${task.id}`, task.state);
      for (const attempt of store.attemptsOf(task.id)) seen.set(`attempt:${task.id}#${attempt.attempt}`, attempt.state);
    }
    if (options.current && !isFinalJobState(job.state))
      unfinished.push(withReason({ type: 'job', name: job.name, state: job.state, time: 0 }, job.reason));
  }
  for (const worker of store.workers()) seen.set(`worker:${worker.id}`, worker.state);
  try {
    if (options.current) {
      const time = now();
      unfinished.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const event of unfinished) yield { ...event, time };
      yield { type: 'cluster', name: '/', state: 'SYNCED', time };
    }
    for await (const [change] of changes) {
      const event = toClusterEvent(change, now());
      const key = keyOf(event);
      const previous = seen.get(key);
      if (event.state !== undefined) seen.set(key, event.state);
      yield previous === undefined ? event : { ...event, previous };
    }
  } catch (error) {
    if ((error as { name?: string }).name !== 'AbortError') throw error;
  }
}
