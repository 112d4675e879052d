/**
 * When finished work leaves memory (the rule of which trees go: state/finished-trees.ts).
 *
 * Guarantees:
 * - After any change to the store, one check runs within `delayMs` (default 1 s): the finished
 *   trees beyond the store's limits are archived then, so the live model never holds more than
 *   the limits plus what finished during that second. Changes in between share the one check.
 * - A check archives at most one batch; when more is left it asks for another check at once.
 * - A tree with an attempt still stopping (`held`) stays until the attempt is gone: while any is
 *   held, another check follows within the delay.
 * - A check that fails (a full disk) is logged and tried again at the next change.
 */
import type { ClusterStore } from '../state/store.js';
import type { FinishedLimits } from '../state/finished-trees.js';
import type { HeldAttempt } from './snapshot.js';
import { realTimers, type Timers } from './timers.js';

export const ARCHIVE_DELAY_MS = 1000;

export interface FinishedArchiverOptions {
  store: ClusterStore;
  /**
   * Default: Node's timers, as the pass loop's coalescing delay (timers.ts): the delay decides no
   * outcome a user sees, so the controller's injected timers (tests count them) are not used.
   */
  timers?: Timers;
  held: () => readonly HeldAttempt[];
  log: (message: string) => void;
  /**
   * Told after a check that archived jobs and left nothing for another (the daemon gives the heap
   * back then if the cluster is quiet: at most one compaction per second of archiving).
   */
  onArchived?: () => void;
  /** Default: the store's FINISHED_KEPT. */
  limits?: FinishedLimits;
  delayMs?: number;
}

export class FinishedArchiver {
  private cancel: (() => void) | null = null;
  /** Until start(): no checks (a controller that was never started archives nothing). */
  private stopped = true;
  private failing = false;
  private readonly detach: () => void;

  constructor(private readonly o: FinishedArchiverOptions) {
    const onChange = (): void => this.request();
    o.store.events.on('change', onChange);
    this.detach = () => o.store.events.off('change', onChange);
  }

  /** Ask for a check within the delay (one pending check at a time). */
  request(delayMs = this.o.delayMs ?? ARCHIVE_DELAY_MS): void {
    if (this.cancel !== null || this.stopped) return;
    this.cancel = (this.o.timers ?? realTimers).after(delayMs, () => this.check(), true);
  }

  /** Archive now what is beyond the limits (one batch); the number of jobs archived. */
  check(): number {
    this.cancel?.();
    this.cancel = null;
    if (this.stopped) return 0;
    const busy = new Set(this.o.held().map((h) => h.job));
    try {
      const { jobs, more } = this.o.store.archiveFinished((job) => busy.has(job), this.o.limits);
      this.failing = false;
      if (more) this.request(0);
      else if (jobs > 0) this.o.onArchived?.();
      // A stopping attempt's end changes nothing in the store: look again while any is held.
      if (!more && busy.size > 0) this.request();
      return jobs;
    } catch (error) {
      if (!this.failing) this.o.log(`could not archive finished jobs: ${(error as Error).message}`);
      this.failing = true;
      return 0;
    }
  }

  /** Begin: one check now-ish (finished work loaded from an earlier life), then after changes. */
  start(): void {
    this.stopped = false;
    this.request();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    this.detach();
  }
}
