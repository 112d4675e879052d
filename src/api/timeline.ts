/**
 * The protocol of GET /v1/timeline (docs/api.md, "Timeline"): which attempt ran on which worker
 * over a window, for the dashboard's Gantt. Types and bounds only.
 */

/** The window when the query gives no `since`. */
export const DEFAULT_TIMELINE_SINCE = '1h';
/**
 * Most attempts one answer lists; past it the answer says `truncated: true` and leaves out the
 * attempts that ended earliest (the live ones are always kept first).
 */
export const TIMELINE_MAX_ATTEMPTS = 5000;

/** One attempt in the window. Instants are epoch milliseconds. */
export interface TimelineAttempt {
  /** The task (`/job/task-3`). */
  task: string;
  job: string;
  attempt: number;
  worker: string;
  start: number;
  /** Null while the attempt still runs. */
  end: number | null;
  /** The attempt's state (ASSIGNED, RUNNING, SUCCEEDED, FAILED, …). */
  state: string;
}

/** The answer of GET /v1/timeline. */
export interface TimelineResponse {
  /** The window: from `now - since` to now. */
  from: number;
  to: number;
  /** The attempts that ran during the window, newest start first, at most TIMELINE_MAX_ATTEMPTS. */
  attempts: TimelineAttempt[];
  /** Present (true) when more attempts overlapped the window than the answer lists. */
  truncated?: true;
}
