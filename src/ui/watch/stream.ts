/**
 * `iris watch --stream`: the state changes of jobs and tasks as lines, like `kubectl get -w`.
 *
 * Guarantees:
 * - One line (or, for --json, one JSON object) per change of a job's or task's state; events that
 *   change something else (a reason, a worker's tasks), attempt events, workers and endpoints
 *   are left out. The stream's opening listing of unfinished jobs is shown as one line each,
 *   without an arrow (`initial: true` in JSON).
 * - A text line is `TIME  NAME  OLD → NEW  (REASON)`; a job or task new to the stream shows
 *   `(new)` as its old state; an instant in the reason is in the time style as of the change
 *   (format.ts formatReason). JSON objects are `{time, type, name, previous, state, reason}`
 *   with `time` in ISO 8601 and null for an unknown `previous` or no reason.
 */
import type { ClusterEvent } from '../../model/events.js';
import { formatClock, formatReason } from '../format.js';

export interface StateChange {
  time: string;
  type: 'job' | 'task';
  name: string;
  /** null: new to the stream, or part of the opening listing. */
  previous: string | null;
  state: string;
  reason: string | null;
  /** Part of the opening listing (the state then), not a change. */
  initial?: true;
}

/**
 * The change an event reports, or null when it is not a state change of a job or task.
 * `listing` is true while the stream is still sending its opening listing (before SYNCED).
 */
export function stateChange(event: ClusterEvent, listing: boolean): StateChange | null {
  if ((event.type !== 'job' && event.type !== 'task') || event.attempt !== undefined || event.state === undefined)
    return null;
  if (event.previous === event.state) return null;
  const change: StateChange = {
    time: new Date(event.time).toISOString(),
    type: event.type,
    name: event.name,
    previous: event.previous ?? null,
    state: event.state,
    reason: event.reason ?? null,
  };
  if (listing) change.initial = true;
  return change;
}

/** `12:00:01.500  /train/task-0  PENDING → RUNNING`, with `  (reason)` when there is one. */
export function formatStateChange(change: StateChange): string {
  const what = change.initial ? change.state : `${change.previous ?? '(new)'} → ${change.state}`;
  const time = Date.parse(change.time);
  const why = change.reason ? `  (${formatReason(change.reason, time)})` : '';
  return `${formatClock(time)}  ${change.name}  ${what}${why}`;
}
