/**
 * The `sticky_worker_busy` requeue events (model/requeue.ts): a sticky stage that waits for its
 * worker is recorded once when the wait starts, however many passes it lasts.
 *
 * - A wait starts when a pass gives the job a sticky-wait reason and the job is not already
 *   waiting so; it ends when a pass gives it another reason or the job has no PENDING task left
 *   (placed, ended, gone). A new wait after that (a retry of the stage) is a new event.
 * - Memory only, like the pass reasons: after a restart of the controller a wait still going on
 *   is recorded again. Changes are undone with the store transaction they were made in.
 */
import { isStickyWait } from '../../model/requeue.js';
import type { ClusterModel } from './model.js';

export class StickyWaits {
  private readonly waiting = new Set<string>();

  constructor(private readonly model: ClusterModel) {}

  /** Within a store transaction: take in one pass's reasons (job name -> pending reason). */
  observe(reasons: ReadonlyMap<string, string>): void {
    for (const [name, reason] of reasons) {
      if (isStickyWait(reason)) this.start(name, reason);
      else this.end(name);
    }
    for (const name of [...this.waiting]) {
      const entry = this.model.jobs.get(name);
      if (!entry || entry.counts.PENDING === 0) this.end(name);
    }
  }

  private start(name: string, reason: string): void {
    const entry = this.model.jobs.get(name);
    if (!entry || this.waiting.has(name)) return;
    this.waiting.add(name);
    this.model.journal.undo.push(() => this.waiting.delete(name));
    this.model.recordRequeue(
      name,
      name,
      'sticky_worker_busy',
      reason.slice(reason.indexOf(':') + 1).trim(),
      entry.job.run,
    );
  }

  private end(name: string): void {
    if (!this.waiting.delete(name)) return;
    this.model.journal.undo.push(() => this.waiting.add(name));
  }
}
