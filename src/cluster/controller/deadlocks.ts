/**
 * Deadlocked jobs are named, then ended (docs/architecture.md, "Deadlocks").
 *
 * Guarantees:
 * - After every pass each pending job that is deadlocked (scheduler/placement/deadlock.ts: it
 *   can only run on what its own waiting ancestors hold) shows the deadlock reason in place of
 *   the scheduler's, and the time since which it has been deadlocked without a break is kept.
 *   A job that stops being deadlocked (its ancestor stopped waiting, a worker came) forgets that
 *   time and gets the scheduler's reason back.
 * - A job deadlocked for `graceMs` without a break is ended UNSCHEDULABLE with the deadlock
 *   reason at the start of the next pass, through the store's scheduling-timeout path
 *   (`markUnschedulable`: its waiting parent's wait returns), and only if it still is
 *   deadlocked then; one timer asks for that pass at the earliest such moment.
 * Reads the store and the wait registry; the clock and timers are injected.
 */
import { explainJob } from '../scheduler/placement/explain.js';
import { deadlockReason, waitingAncestors, type WaitingHold } from '../scheduler/placement/deadlock.js';
import { schedulerJob } from '../scheduler/job.js';
import type { SchedulerJob, Snapshot, WorkerView } from '../scheduler/types.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import { workerView } from './snapshot.js';
import type { Timers } from './timers.js';
import type { WaitRegistry } from './waits.js';

export { DEFAULT_DEADLOCK_GRACE_MS } from '../scheduler/placement/deadlock.js';

/** What every running attempt blocked in a wait holds meanwhile (its CPU not, when a wait released it). */
export function waitingHolds(store: ClusterStore, waits: WaitRegistry): WaitingHold[] {
  const out: WaitingHold[] = [];
  for (const { caller, waits: entries, releasesCpu } of waits.blocked()) {
    const live = store.attempt(caller.task, caller.attempt);
    const job = store.job(caller.job);
    if (!live || live.state !== 'RUNNING' || !job) continue;
    const res = job.spec.resources;
    out.push({
      task: caller.task, job: caller.job, waitingOn: entries.flatMap((entry) => entry.jobs), worker: live.workerId,
      cpuMillis: releasesCpu ? 0 : res.cpuMillis, memoryBytes: res.memoryBytes, devices: live.devices,
    });
  }
  return out;
}

/** Workers a gang of `job` needs at once for `pending` tasks; 1 for independent tasks. */
const groupCount = (job: SchedulerJob, pending: number): number => (job.coschedule !== null ? pending : 1);

export interface DeadlockWatchOptions {
  store: ClusterStore;
  waits: WaitRegistry;
  graceMs: number;
  now: () => number;
  timers: Timers;
  /** Ask for the pass that ends the jobs whose grace has run out. */
  onDue: () => void;
}

export class DeadlockWatch {
  /** Deadlocked job -> since when, without a break. */
  private readonly since = new Map<string, number>();
  private cancelTimer: (() => void) | null = null;
  private closed = false;

  constructor(private readonly o: DeadlockWatchOptions) {}

  /** Jobs deadlocked as of the last pass, with the time since which they are. */
  deadlocked(): ReadonlyMap<string, number> {
    return this.since;
  }

  /**
   * After a pass on `snapshot`: put the deadlock reason of each deadlocked pending job into
   * `reasons` (the plan's, written to the store next), start or keep its clock, and forget the
   * others (a job that was deadlocked and is not now gets the scheduler's reason back).
   */
  observe(snapshot: Snapshot, reasons: Map<string, string>): void {
    const holds = waitingHolds(this.o.store, this.o.waits);
    // Nothing waits and nothing was deadlocked: the common pass costs nothing here.
    if (holds.length === 0 && this.since.size === 0) return this.arm(snapshot.now);
    const pending = new Map<string, number>();
    for (const task of snapshot.pending) pending.set(task.job, (pending.get(task.job) ?? 0) + 1);
    const before = new Set(this.since.keys());
    for (const [name, count] of pending) {
      const job = snapshot.jobs.get(name);
      const reason = job && holds.length > 0 && waitingAncestors(name, holds).length > 0
        ? deadlockReason(job, groupCount(job, count), snapshot.workers, holds)
        : null;
      if (reason === null) continue;
      reasons.set(name, reason);
      before.delete(name);
      if (!this.since.has(name)) this.since.set(name, snapshot.now);
    }
    for (const name of before) {
      this.since.delete(name);
      const job = snapshot.jobs.get(name);
      if (!job || reasons.has(name)) continue;
      const free = { workers: snapshot.workers, free: (w: number) => snapshot.workers[w]!.free };
      reasons.set(name, explainJob(job, groupCount(job, pending.get(name) ?? 1), free) ?? 'waiting for capacity');
    }
    this.arm(snapshot.now);
  }

  /** End, as UNSCHEDULABLE, the jobs deadlocked for the whole grace period that still are; the store's stop orders. */
  expire(now: number): StopOrder[] {
    const due = [...this.since].filter(([, since]) => since + this.o.graceMs <= now).map(([name]) => name);
    if (due.length === 0) return [];
    const { store } = this.o;
    const holds = waitingHolds(store, this.o.waits);
    const workers: WorkerView[] = store.workers().map((worker) => workerView(worker, undefined));
    return store.transaction(() => {
      const out: StopOrder[] = [];
      for (const name of due) {
        this.since.delete(name);
        const job = store.job(name);
        if (!job || job.state !== 'PENDING') continue;
        const pending = store.tasksOf(name).filter((task) => task.state === 'PENDING').length;
        const sched = schedulerJob(job);
        const reason = deadlockReason(sched, groupCount(sched, pending), workers, holds);
        if (reason !== null) out.push(...store.markUnschedulable(name, reason));
      }
      return out;
    });
  }

  /** No more timers (shutdown). */
  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  /** One timer at the earliest end of a grace period. */
  private arm(now: number): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    if (this.closed || this.since.size === 0) return;
    let earliest = Infinity;
    for (const since of this.since.values()) earliest = Math.min(earliest, since + this.o.graceMs);
    this.cancelTimer = this.o.timers.after(Math.max(0, earliest - now), () => {
      this.cancelTimer = null;
      this.o.onDue();
    }, true);
  }
}
