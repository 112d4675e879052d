/**
 * The transactional core of the cluster store (store.ts builds on it): one SQLite connection,
 * the in-memory model and the journal of what a transaction changed.
 *
 * Contracts:
 * - Every mutation runs in a transaction (its own, or the caller's via `transaction()`):
 *   all of it commits, durably (WAL + synchronous=FULL), or none of it does — memory included.
 * - Group commit for the controller's own bookkeeping: a transaction the caller marks `lazy`
 *   (launch marks, attempt exits, a pass's assignments — no answer to a client's request waits
 *   on it) commits atomically but without its own fsync (synchronous=NORMAL): it survives a
 *   crash of the controller, and reaches the disk with the next full commit (any other
 *   transaction, or the first commit LAZY_SYNC_MS after the oldest unsynced one), a WAL
 *   checkpoint or the kernel's writeback. Only an OS crash or power loss in that window can
 *   lose it; the attempts it concerned are then settled on start like any crash ("Crash
 *   safety" in docs/architecture.md). Every non-lazy commit still syncs, and with it all the
 *   lazy ones before it.
 * - Change events (`events.on('change', …)`) are emitted after COMMIT; see events.ts.
 * - A full disk (`storage`, docs/architecture.md "A full disk"): the store keeps a space reserve
 *   file beside the database (reserve.ts). When a COMMIT fails for lack of space, the reserve is
 *   deleted and the COMMIT tried again, so what already happened (an attempt that ended because
 *   its log filled the disk) is written. If it still fails, the change stays in memory, its
 *   events are emitted, and its rows wait in the journal for a later COMMIT. From the first
 *   such failure until `retryWrites()` has written everything and put the reserve back,
 *   `storage` is the `no space left on <database>` error (a `storage` event tells of each
 *   change), and every `durable` transaction — a submission, which is acknowledged — is
 *   refused: rolled back entirely, throwing that error. So no acknowledged submission is ever
 *   lost; changes made meanwhile are lost only if the controller dies before they are written.
 */
import { EventEmitter } from 'node:events';
import type { DatabaseSync } from 'node:sqlite';
import { dirname, join } from 'node:path';
import { IrisError } from '../../model/errors.js';
import { isNoSpace, noSpaceError } from '../../model/storage.js';
import type { Endpoint, Job } from '../../model/types.js';
import type { RequeueNotice, StoreEventMap } from './events.js';
import { Journal, type EventKey, type Mark } from './journal.js';
import { changeEvent } from './change-event.js';
import { StoreLifecycle } from './lifecycle.js';
import { ClusterModel } from './model.js';
import { Persistence } from './persist.js';
import type { SpaceReserve } from './reserve.js';
import { writeInTransaction } from './database.js';
import { asDamage } from './integrity.js';
import { ResultTable, current } from './results.js';

/** The longest a lazy commit waits for a later commit to sync it (see the header). */
export const LAZY_SYNC_MS = 200;

export abstract class StoreCore {
  readonly events = new EventEmitter<StoreEventMap>();
  protected readonly journal = new Journal();
  protected readonly model: ClusterModel;
  protected readonly life: StoreLifecycle;
  protected readonly persistence: Persistence;
  protected readonly results: ResultTable;
  private closed = false;
  protected problem: IrisError | null = null;
  protected reserveHeld = false;
  /** The connection's current `synchronous` setting: true for FULL (configure's), false for NORMAL. */
  private syncFull = true;
  /** performance.now() of the oldest lazy commit not yet synced by a full one; null when none. */
  private unsyncedSince: number | null = null;

  protected constructor(
    private readonly db: DatabaseSync,
    now: () => number,
    protected readonly path: string,
    private readonly reserve: SpaceReserve | null,
  ) {
    this.model = new ClusterModel(this.journal, now);
    this.life = new StoreLifecycle(this.model, (job) => this.currentResults(job));
    // The cluster keeps its logs beside its database (`<home>/logs`, stored-row.ts).
    this.persistence = new Persistence(db, path === ':memory:' ? null : join(dirname(path), 'logs'));
    this.results = new ResultTable(db);
  }

  /** The results of a live job's tasks, their latest attempts only: index -> key -> value. */
  private currentResults(job: Job): Map<number, Record<string, string>> {
    const attempts = new Map(
      (this.model.jobs.get(job.name)?.tasks ?? []).map((task) => [task.index, task.attempt] as const),
    );
    const out = new Map<number, Record<string, string>>();
    for (const row of current(this.results.ofRun(job.run), attempts)) {
      let task = out.get(row.index);
      if (!task) out.set(row.index, (task = {}));
      task[row.key] = row.value;
    }
    return out;
  }

  close(): void {
    if (this.closed) return;
    if (this.journal.depth > 0) throw new IrisError('internal', 'ClusterStore.close() inside a transaction');
    try {
      this.retryWrites(); // a last chance for what waits for space; lost if the disk is still full
    } catch {
      // closing anyway
    }
    this.closed = true;
    this.db.close();
  }

  /**
   * `read()`, or `fallback` when it fails while the store cannot write (the database cannot be
   * read back on a full disk); SQLite's damage errors become `<path> is damaged: …` (integrity.ts).
   */
  protected readBack<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      if (this.problem !== null) return fallback;
      throw asDamage(error, this.path) ?? error;
    }
  }

  /** Null while all is written and the space reserve is in place; else the `no space left on …` error. */
  get storage(): IrisError | null {
    return this.problem;
  }

  /**
   * Write what waits for space, then put the space reserve back. Returns true when both
   * succeeded (then `storage` is null again). Call outside transactions.
   */
  retryWrites(): boolean {
    if (this.problem === null) return true;
    if (this.closed || this.journal.depth > 0) return false;
    // Something is always written, so a retry with nothing waiting still proves there is space.
    this.model.putMeta('written_at', String(this.model.now()));
    const error = this.tryWrite();
    if (error !== null) {
      this.journal.keepWrites();
      if (isNoSpace(error)) return false;
      throw asDamage(error, this.path) ?? error;
    }
    this.journal.reset();
    if (this.reserve && !(this.reserveHeld = this.reserve.ensure())) return false;
    this.setProblem(null);
    return true;
  }

  /**
   * Write with `write` in its own SQLite transaction, outside the journal (rows never held in
   * memory, such as results), durably: refused while closed, inside a store transaction, or while
   * the store cannot write (`no space left on …`, like a submission).
   */
  protected writeDirect(what: string, write: () => void): void {
    if (this.closed) throw new IrisError('unavailable', 'the cluster store is closed');
    if (this.journal.depth > 0) throw new IrisError('internal', `ClusterStore.${what}() inside a transaction`);
    if (!this.retryWrites()) throw this.problem!;
    this.setSync(true);
    const error = writeInTransaction(this.db, write);
    if (error === null) return;
    if (isNoSpace(error)) throw noSpaceError(this.path);
    throw asDamage(error, this.path) ?? error;
  }

  private setProblem(problem: IrisError | null): void {
    if ((problem === null) === (this.problem === null)) return;
    this.problem = problem;
    this.events.emit('storage', problem);
  }

  /**
   * Write the journal's rows in one SQLite transaction (rolled back on failure); the error, or
   * null. `lazy`: without its own fsync, unless lazy commits have waited LAZY_SYNC_MS already.
   */
  private tryWrite(lazy = false): unknown {
    const full = !lazy || (this.unsyncedSince !== null && performance.now() - this.unsyncedSince >= LAZY_SYNC_MS);
    this.setSync(full);
    const error = writeInTransaction(this.db, () => this.persistence.flush(this.model, this.journal));
    if (error === null) {
      if (full) this.unsyncedSince = null;
      else this.unsyncedSince ??= performance.now();
    }
    return error;
  }

  /** Set the connection's `synchronous` to FULL (`full`) or NORMAL, outside a transaction. */
  private setSync(full: boolean): void {
    if (full === this.syncFull) return;
    this.db.exec(full ? 'PRAGMA synchronous = FULL' : 'PRAGMA synchronous = NORMAL');
    this.syncFull = full;
  }

  /**
   * Run `fn` atomically. Nested calls join the outer transaction; if a nested call throws, only
   * its own changes are undone (the error still propagates). Events are emitted after COMMIT;
   * if a listener throws, the remaining events are still emitted and the first error is then
   * rethrown (the change itself stays committed). `durable` (outer call only): the change must
   * reach the disk or not happen at all (see the header on a full disk). `lazy` (outer call
   * only, never with `durable`): group commit, no fsync of its own (see the header).
   */
  transaction<T>(fn: () => T, durable = false, lazy = false): T {
    if (this.closed) throw new IrisError('unavailable', 'the cluster store is closed');
    const j = this.journal;
    if (durable && j.depth === 0 && !this.retryWrites()) throw this.problem!;
    const mark = j.mark();
    j.depth++;
    let result: T;
    try {
      result = fn();
    } catch (error) {
      j.depth--;
      j.rollbackTo(mark);
      if (j.depth === 0) j.reset();
      throw error;
    }
    j.depth--;
    if (j.depth > 0) return result;
    this.commit(durable, mark, lazy && !durable);
    return result;
  }

  /**
   * Run `fn` as a transaction that is never written (a read-only store): its changes stay in memory,
   * no event is emitted; `transaction()` calls inside it nest (a failure undoes only its own part).
   */
  protected inMemory(fn: () => void): void {
    const j = this.journal;
    j.depth++;
    try {
      fn();
    } finally {
      j.depth--;
      if (j.depth === 0) j.reset();
    }
  }

  private commit(durable: boolean, mark: Mark, lazy: boolean): void {
    const j = this.journal;
    if (j.hasWrites) {
      let error = this.tryWrite(lazy);
      // What already happened (an attempt's end) is worth the reserve; a submission is not.
      if (error !== null && !durable && isNoSpace(error) && this.reserve && this.reserveHeld) {
        this.reserve.release();
        this.reserveHeld = false;
        error = this.tryWrite();
      }
      if (error !== null) {
        if (durable || !isNoSpace(error)) {
          // Undo this transaction in memory; rows waiting from earlier ones still wait.
          j.rollbackTo(mark);
          if (this.problem === null) j.reset();
          else j.keepWrites();
        }
        if (!isNoSpace(error)) throw asDamage(error, this.path) ?? error;
        this.setProblem(noSpaceError(this.path));
        if (durable) throw this.problem!;
        this.emitKept();
        return;
      }
      this.setProblem(this.reserve && !this.reserveHeld ? noSpaceError(this.path) : null);
    }
    const keys = j.events;
    const removed = new Map(j.removedEndpoints);
    const requeues = j.requeues;
    j.reset();
    this.emit(keys, removed, requeues);
  }

  /** Emit this transaction's events, keeping its rows for a later write. */
  private emitKept(): void {
    const j = this.journal;
    const keys = j.events;
    const removed = new Map(j.removedEndpoints);
    const requeues = j.requeues;
    j.keepWrites();
    this.emit(keys, removed, requeues);
  }

  private emit(keys: EventKey[], removed: Map<string, Endpoint>, requeues: readonly RequeueNotice[]): void {
    let failure: unknown = null;
    for (const key of keys) {
      const event = changeEvent(this.model, key, removed);
      if (!event) continue;
      try {
        this.events.emit('change', event);
      } catch (error) {
        failure ??= error;
      }
    }
    for (const notice of requeues) {
      try {
        this.events.emit('requeue', notice);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  }
}
