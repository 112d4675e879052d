/**
 * Typed change events of the cluster store.
 *
 * Contract: events are emitted only after the transaction that caused them has committed
 * (never for a rolled-back change). Within one committed transaction each changed entity is
 * reported once, in the order it was first changed, carrying a copy of its state at commit
 * time (so listeners may keep the object). A job that was deleted (replaced by a new
 * submission of the same name) reports the new job, if any. Endpoint removals carry the
 * endpoint as it was and `removed: true`.
 */
import type { IrisError } from '../../model/errors.js';
import type { RequeueReason } from '../../model/requeue.js';
import type { Attempt, Endpoint, Job, Task, Worker } from '../../model/types.js';

export type StoreEvent =
  | { type: 'job'; job: Job }
  | { type: 'task'; task: Task }
  | { type: 'attempt'; attempt: Attempt }
  | { type: 'worker'; worker: Worker }
  | { type: 'endpoint'; endpoint: Endpoint; removed: boolean };

/** A requeue event (model/requeue.ts) as the store announces it: `job` is the job of the task or the sticky stage. */
export interface RequeueNotice {
  reason: RequeueReason;
  job: string;
}

/**
 * `storage`: the store could not write its changes (the error, `insufficient_storage`), or could
 * again (null). Emitted on each transition only. `requeue`: one per requeue event, after the
 * change events of its transaction (metrics count them).
 */
export type StoreEventMap = { change: [StoreEvent]; storage: [IrisError | null]; requeue: [RequeueNotice] };

/** An attempt the controller must stop in the runtime; the store already recorded its end. */
export type { StopOrder } from '../lifecycle/changes.js';

/** One row of the persisted state-change history (`iris status` history). */
export interface HistoryEntry {
  id: number;
  time: number;
  /**
   * `requeue`: a requeue event (model/requeue.ts); its `state` is the RequeueReason. `exec`: an
   * `iris exec` into the attempt `name` (`task#attempt`); its `reason` is what ran, as JSON (ExecRecord).
   */
  kind: 'job' | 'task' | 'attempt' | 'worker' | 'requeue' | 'exec';
  /**
   * Job name, task id, `task#attempt` for attempts, worker id. A requeue: the attempt that ended
   * (`task#attempt`), or the job for `sticky_worker_busy`.
   */
  name: string;
  state: string;
  reason: string | null;
  /** Run id of the job the entry belongs to; null for workers (and entries older than run ids). */
  run: number | null;
}

export const attemptHistoryName = (task: string, attempt: number): string => `${task}#${attempt}`;

/** The task and attempt of an attemptHistoryName(); null for a name without `#` (a job, task or worker). */
export function parseAttemptHistoryName(name: string): { task: string; attempt: number } | null {
  const at = name.lastIndexOf('#');
  if (at < 0) return null;
  return { task: name.slice(0, at), attempt: Number(name.slice(at + 1)) };
}

/** What an `exec` history entry records (its `reason`, as JSON): who ran which command, with a terminal or not. */
export interface ExecRecord {
  by: { kind: 'owner'; user: string } | { kind: 'task'; task: string };
  command: string[];
  tty: boolean;
}
