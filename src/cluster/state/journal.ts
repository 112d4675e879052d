/**
 * Bookkeeping of one store transaction: the undo log that restores the in-memory model on
 * rollback, the sets of rows to write at COMMIT, the history rows to append and the change
 * events to emit after COMMIT.
 *
 * Invariants:
 * - Memory is the source of truth during a transaction; SQLite is written only at the outer
 *   COMMIT, from the current in-memory objects of every dirty key (a dirty key with no object
 *   in memory means "delete the row").
 * - Dirty sets are never truncated: after an inner rollback, rewriting a row from memory is
 *   still correct. Undo log, history and events are truncated back to the inner mark.
 * - While the store cannot write (a full disk, store.ts), dirty sets and history accumulate
 *   across transactions (`keepWrites`) until a COMMIT succeeds.
 */
import type { Endpoint } from '../../model/types.js';
import type { ArchivedRun } from './archive.js';
import type { HistoryEntry, RequeueNotice } from './events.js';

export type EventKey =
  | `job:${string}`
  | `task:${string}`
  | `attempt:${string}`
  | `worker:${string}`
  | `endpoint:${string}`;

export interface Mark {
  undo: number;
  history: number;
  events: number;
  archived: number;
  pruned: number;
  requeues: number;
}

export class Journal {
  depth = 0;
  undo: (() => void)[] = [];
  readonly dirtyJobs = new Set<string>();
  readonly dirtyTasks = new Set<string>();
  /** attemptKey()s (keys.ts). */
  readonly dirtyAttempts = new Set<string>();
  readonly dirtyWorkers = new Set<string>();
  /** endpointKey()s (keys.ts). */
  readonly dirtyEndpoints = new Set<string>();
  readonly dirtyMeta = new Set<string>();
  /** hintKey()s (keys.ts) of cache hints (cache-hints.ts). */
  readonly dirtyHints = new Set<string>();
  /** Tasks whose rows (task, attempts, endpoints) must be deleted before the upserts. */
  readonly deletedTasks = new Set<string>();
  readonly deletedJobs = new Set<string>();
  /** Last value of endpoints removed in this transaction, for their `removed` events. */
  readonly removedEndpoints = new Map<string, Endpoint>();
  history: Omit<HistoryEntry, 'id'>[] = [];
  /** Runs to write to the archive (archive.ts), in order. */
  archived: ArchivedRun[] = [];
  /** Run ids whose archive row and events are deleted (retention), in order. */
  pruned: number[] = [];
  events: EventKey[] = [];
  /** Requeue events of this transaction (model/requeue.ts), emitted after COMMIT like the change events. */
  requeues: RequeueNotice[] = [];
  private readonly eventSet = new Set<EventKey>();

  mark(): Mark {
    return {
      undo: this.undo.length,
      history: this.history.length,
      events: this.events.length,
      archived: this.archived.length,
      pruned: this.pruned.length,
      requeues: this.requeues.length,
    };
  }

  /** Undo memory changes made since `mark` (newest first) and forget their history/events. */
  rollbackTo(mark: Mark): void {
    for (let i = this.undo.length - 1; i >= mark.undo; i--) this.undo[i]!();
    this.undo.length = mark.undo;
    this.history.length = mark.history;
    this.archived.length = mark.archived;
    this.pruned.length = mark.pruned;
    this.requeues.length = mark.requeues;
    for (let i = mark.events; i < this.events.length; i++) this.eventSet.delete(this.events[i]!);
    this.events.length = mark.events;
  }

  event(key: EventKey): void {
    if (this.eventSet.has(key)) return;
    this.eventSet.add(key);
    this.events.push(key);
  }

  get hasWrites(): boolean {
    return (
      this.dirtyJobs.size +
        this.dirtyTasks.size +
        this.dirtyAttempts.size +
        this.dirtyWorkers.size +
        this.dirtyEndpoints.size +
        this.dirtyMeta.size +
        this.dirtyHints.size +
        this.deletedTasks.size +
        this.deletedJobs.size +
        this.history.length +
        this.archived.length +
        this.pruned.length >
      0
    );
  }

  /**
   * After a COMMIT that could not be written (a full disk): forget the undo log and the events
   * (memory stays as it is and its events are emitted), but keep the rows to write and the
   * history, so the next successful COMMIT writes them too.
   */
  keepWrites(): void {
    this.undo = [];
    this.removedEndpoints.clear();
    this.events = [];
    this.requeues = [];
    this.eventSet.clear();
  }

  /** Forget everything (after COMMIT or a full rollback). */
  reset(): void {
    this.undo = [];
    this.dirtyJobs.clear();
    this.dirtyTasks.clear();
    this.dirtyAttempts.clear();
    this.dirtyWorkers.clear();
    this.dirtyEndpoints.clear();
    this.dirtyMeta.clear();
    this.dirtyHints.clear();
    this.deletedTasks.clear();
    this.deletedJobs.clear();
    this.removedEndpoints.clear();
    this.history = [];
    this.archived = [];
    this.pruned = [];
    this.events = [];
    this.requeues = [];
    this.eventSet.clear();
  }
}
