/**
 * GET /v1/timeline's answer (docs/api.md, "Timeline"): the attempts that ran on any worker during
 * a window, from the store's indexed window read (cluster/state/timeline.ts), newest start first,
 * at most TIMELINE_MAX_ATTEMPTS of them (`truncated: true` when more overlapped the window; those
 * left out are the ones that ended earliest).
 */
import { parseTaskName } from '../model/names.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { TIMELINE_MAX_ATTEMPTS, type TimelineResponse } from '../api/timeline.js';

export function timelineOf(
  store: ClusterStore,
  from: number,
  to: number,
  limit: number = TIMELINE_MAX_ATTEMPTS,
): TimelineResponse {
  const found = store.attemptsDuring(from, to, limit);
  const attempts = found.attempts.map((a) => ({
    task: a.task,
    job: parseTaskName(a.task)?.job ?? a.task,
    attempt: a.attempt,
    worker: a.workerId,
    start: a.startedAt,
    end: a.finishedAt,
    state: a.state,
  }));
  return { from, to, attempts, ...(found.truncated ? { truncated: true as const } : {}) };
}
