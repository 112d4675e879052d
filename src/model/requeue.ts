/**
 * Requeue events (docs/cli.md, "Requeue events"): why a task went back to the queue, or why a
 * pipeline stage waits for its sticky worker. The store records one event per requeue in its
 * event history (kind `requeue`, under the run's id); `iris status JOB` counts them by reason
 * and lists the latest.
 *
 * - `retry`: an attempt failed and the job has retries left (`--max-retries`).
 * - `preemption`: an attempt was preempted (a drained or lost worker, a restart of the cluster,
 *   a higher-priority job) and the job has preemptions left.
 * - `gang_restart`: a gang member was stopped and requeued because another member failed or was
 *   preempted (a gang starts whole or not at all).
 * - `sticky_worker_busy`: a sticky stage (docs/pipelines.md, "Stickiness") waits for the worker
 *   its parent stage ran on. Recorded once per wait, when the wait starts, not once per pass.
 */

export const REQUEUE_REASONS = ['retry', 'preemption', 'gang_restart', 'sticky_worker_busy'] as const;
export type RequeueReason = (typeof REQUEUE_REASONS)[number];

/** The pending reason of a sticky stage that waits for its worker starts with this code. */
export const STICKY_WORKER_BUSY: RequeueReason = 'sticky_worker_busy';

/** A pending reason that says a sticky stage waits for its worker. */
export const isStickyWait = (reason: string | null | undefined): boolean =>
  reason?.startsWith(`${STICKY_WORKER_BUSY}:`) === true;
