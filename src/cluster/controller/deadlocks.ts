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
 *   deadlocked then; the pass loop arms one timer for that moment (`next`) beside the
 *   scheduling deadlines.
 * - A pass checks only the jobs it left pending (those it gave a reason) and the jobs that were
 *   deadlocked before; jobs of one shape under the same waiting ancestors are checked once.
 * Reads the store and the wait registry; the clock and timers are injected.
 */
import {
  deadlockReason,
  deadlockReasonBeside,
  waitingAncestors,
  type WaitingHold,
} from '../scheduler/placement/deadlock.js';
import { shapeKey } from '../scheduler/placement/fit.js';
import { schedulerJob } from '../lifecycle/scheduler-job.js';
import type { SchedulerJob, Snapshot, WorkerView } from '../scheduler/types.js';
import type { ClusterStore, StopOrder } from '../state/store.js';
import { workerView } from './snapshot.js';
import type { WaitRegistry } from './waits.js';

export { DEFAULT_DEADLOCK_GRACE_MS } from '../scheduler/placement/deadlock.js';

/** What every running attempt blocked in a wait holds meanwhile (its CPU not, when a wait released it). */
export function waitingHolds(store: ClusterStore, waits: WaitRegistry): WaitingHold[] {
  const out: WaitingHold[] = [];
  for (const { caller, waits: entries, releasesCpu } of waits.blocked()) {
    const live = store.attempt(caller.task, caller.attempt);
    const job = store.job(caller.job);
    if (live?.state !== 'RUNNING' || !job) continue;
    const res = job.spec.resources;
    out.push({
      task: caller.task,
      job: caller.job,
      // One wait's own list as it is (kept while the wait lasts; deadlock.ts indexes it once).
      waitingOn: entries.length === 1 ? entries[0]!.jobs : entries.flatMap((entry) => entry.jobs),
      worker: live.workerId,
      cpuMillis: releasesCpu ? 0 : res.cpuMillis,
      memoryBytes: res.memoryBytes,
      devices: live.devices,
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
}

export class DeadlockWatch {
  /** Deadlocked job -> since when, without a break. */
  private readonly since = new Map<string, number>();

  constructor(private readonly o: DeadlockWatchOptions) {}

  /** When the earliest grace period runs out, or null when no job is deadlocked. */
  next(): number | null {
    let earliest: number | null = null;
    for (const since of this.since.values())
      if (earliest === null || since + this.o.graceMs < earliest) earliest = since + this.o.graceMs;
    return earliest;
  }

  /**
   * After a pass on `snapshot`: put the deadlock reason of each deadlocked job the pass left
   * pending into `reasons` (the plan's, written to the store next), start or keep its clock, and
   * forget the others. A job that stops being deadlocked gets the scheduler's reason of that pass
   * back: whatever ends a deadlock (a wait ending, an attempt ending, a worker change) asks for
   * a pass that reconsiders every job.
   */
  observe(snapshot: Snapshot, reasons: Map<string, string>): void {
    const holds = waitingHolds(this.o.store, this.o.waits);
    if (holds.length === 0) {
      this.since.clear();
      return;
    }
    const candidates = new Set([...reasons.keys(), ...this.since.keys()]);
    const pending = new Map<string, number>();
    for (const task of snapshot.pending)
      if (candidates.has(task.job)) pending.set(task.job, (pending.get(task.job) ?? 0) + 1);
    const memo = new Map<string, string | null>();
    const still = new Set<string>();
    for (const [name, count] of pending) {
      const job = snapshot.jobs.get(name);
      const ancestors = job ? waitingAncestors(name, holds) : [];
      if (!job || ancestors.length === 0) continue;
      const size = groupCount(job, count);
      const key =
        `${shapeKey(job)}@${job.coschedule ?? ''}@${size}@` +
        `${ancestors.map(({ hold, on }) => `${hold.task}>${on}`).join('|')}`;
      let reason = memo.get(key);
      if (reason === undefined) memo.set(key, (reason = deadlockReasonBeside(job, size, snapshot.workers, ancestors)));
      if (reason === null) continue;
      reasons.set(name, reason);
      still.add(name);
      if (!this.since.has(name)) this.since.set(name, snapshot.now);
    }
    for (const name of this.since.keys()) if (!still.has(name)) this.since.delete(name);
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
        if (job?.state !== 'PENDING') continue;
        const pending = store.tasksOf(name).filter((task) => task.state === 'PENDING').length;
        const sched = schedulerJob(job);
        const reason = deadlockReason(sched, groupCount(sched, pending), workers, holds);
        if (reason !== null) out.push(...store.markUnschedulable(name, reason));
      }
      return out;
    });
  }
}
