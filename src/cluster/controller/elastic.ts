/**
 * The elastic coordinator's loop (config `elastic`, docs/configuration.md "Elastic workers"):
 * every `poll` it reads the workers and the ready-queue length from the store, asks the pure
 * decision (scheduler/elastic.ts) what to toggle, applies it through the store (history and change
 * events, like a drain) and writes one controller log line per toggle. Re-enabling asks for a
 * scheduling pass at once.
 *
 * What it tracks in memory (not persisted; after a restart every worker counts as idle from the
 * start and no cooldown runs, except that a worker still disabled keeps its `disabledAt` as its last
 * toggle): when each worker last ended an attempt or became READY, and when it was last toggled
 * by anyone (a manual toggle starts the cooldown too).
 */
import type { ClusterStore, StoreEvent } from '../state/store.js';
import { costPerHourOf, type WorkerState } from '../../model/types.js';
import { decideElastic, type ElasticSettings, type ElasticWorker } from '../scheduler/elastic.js';
import type { ClockedPart } from './timers.js';

export interface ElasticOptions extends ClockedPart {
  store: ClusterStore;
  settings: ElasticSettings & { pollMs: number };
  /** A worker was enabled again: ask for a pass. */
  onEnabled: () => void;
}

export class ElasticCoordinator {
  private readonly lastEnd = new Map<string, number>();
  private readonly lastToggle = new Map<string, number>();
  private readonly seen = new Map<string, WorkerState>();
  private readonly startedAt: number;
  private cancel: (() => void) | null = null;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly o: ElasticOptions) {
    this.startedAt = o.now();
    for (const w of o.store.workers()) {
      this.seen.set(w.id, w.state);
      if (w.state === 'DISABLED' && w.disabled) this.lastToggle.set(w.id, w.disabled.disabledAt);
    }
    const listener = (event: StoreEvent) => {
      if (event.type === 'attempt' && event.attempt.finishedAt !== null) {
        const at = event.attempt.finishedAt;
        if (at > (this.lastEnd.get(event.attempt.workerId) ?? 0)) this.lastEnd.set(event.attempt.workerId, at);
      } else if (event.type === 'worker') {
        const before = this.seen.get(event.worker.id);
        const after = event.worker.state;
        this.seen.set(event.worker.id, after);
        if (before !== after && (before === 'DISABLED' || after === 'DISABLED'))
          this.lastToggle.set(event.worker.id, this.o.now());
        // Becoming READY (enabled, resumed) starts its idle time afresh.
        if (before !== after && after === 'READY') this.lastEnd.set(event.worker.id, this.o.now());
      }
    };
    o.store.events.on('change', listener);
    this.unsubscribe = () => o.store.events.off('change', listener);
  }

  start(): void {
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.cancel?.();
    this.unsubscribe();
  }

  /** One poll: decide and apply. Returns how many workers were toggled. */
  poll(): number {
    const { store, settings, log } = this.o;
    const now = this.o.now();
    const busy = new Set(store.activeAttempts().map((a) => a.workerId));
    const workers: ElasticWorker[] = store.workers().map((w) => ({
      id: w.id,
      state: w.state,
      disabledBy: w.state === 'DISABLED' ? (w.disabled?.by ?? 'user') : null,
      busy: busy.has(w.id),
      idleSince: Math.max(this.startedAt, this.lastEnd.get(w.id) ?? 0),
      lastToggleAt: this.lastToggle.get(w.id) ?? null,
      costPerHour: costPerHourOf(w),
    }));
    const actions = decideElastic({ workers, queueLength: store.queuedTasks().size, now, settings });
    let toggled = 0;
    let enabled = false;
    for (const action of actions) {
      try {
        if (action.kind === 'disable') {
          if (!store.disableWorker(action.workerId, 'elastic', action.reason)) continue;
          log(`elastic: disabled worker ${action.workerId} (${action.why})`);
        } else {
          if (!store.enableWorker(action.workerId, 'elastic')) continue;
          log(`elastic: enabled worker ${action.workerId} (${action.why})`);
          enabled = true;
        }
        toggled++;
      } catch (error) {
        log(`elastic: could not ${action.kind} worker ${action.workerId}: ${(error as Error).message}`);
      }
    }
    if (enabled) this.o.onEnabled();
    return toggled;
  }

  private arm(): void {
    if (this.closed) return;
    this.cancel = this.o.timers.after(
      this.o.settings.pollMs,
      () => {
        this.cancel = null;
        this.poll();
        this.arm();
      },
      true,
    );
  }
}
