/**
 * What the queues of one scheduling pass share (queue-set.ts): the workers' free capacity, the
 * users' usage and the running tasks, with the placements of the queues run so far, and each
 * queue's reservations as future holds on the worker calendars.
 *
 * Guarantees:
 * - A placement of one queue is out of the free capacity, in the running tasks (until its planned
 *   end, never a preemption victim in this pass) and in its user's usage for every later queue.
 * - What a queue reserves is, for every other queue, a hold from the reservation's start to its
 *   end on each worker it names (RunningAllocation.startsAt), so their plans keep off it.
 */
import type { Placement, RunningAllocation, SchedulerJob, Snapshot, UserUsage, WorkerView } from '../types.js';
import { PART, type Reservation } from './allocate.js';
import { plannedDuration } from './context.js';
import { acceleratorsOf } from './quota.js';
import { devicesNeeded } from '../placement/fit.js';

/** A queue as the shared state knows it: its name and what it reserved in its last pass. */
export interface SharingQueue {
  name: string | null;
  scheduler: { state: { reserved: ReadonlyMap<string, { reservation: Reservation | null }> } };
}

/**
 * What the queues of one pass share: the workers' free capacity, the users' usage and the running
 * tasks (with the placements of the queues run so far), and each queue's reservations as holds.
 */
export class SharedState<Member extends SharingQueue> {
  workers: WorkerView[];
  usage: Map<string, UserUsage>;
  private readonly running: RunningAllocation[];
  private readonly holds = new Map<Member, RunningAllocation[]>();
  private readonly starts = new Map<Member, Map<string, number>>();

  constructor(
    private readonly snapshot: Snapshot,
    members: readonly Member[],
    /** The planned duration of a task of `job` without a limit or prediction (its queue's default). */
    private readonly defaultOf: (job: SchedulerJob) => number,
  ) {
    this.workers = [...snapshot.workers];
    this.usage = new Map(snapshot.usage);
    this.running = [...(snapshot.running ?? [])];
    // A queue not run yet in this pass holds what it reserved in the last one.
    for (const m of members) this.reservedBy(m, m.scheduler.state.reserved);
  }

  /** Placements of this pass: out of the free capacity (`takeFree`), into running and usage. */
  place(placements: readonly Placement[], jobs: ReadonlyMap<string, SchedulerJob>, takeFree = true): void {
    if (placements.length === 0) return;
    const index = new Map(this.workers.map((w, i) => [w.id, i]));
    const now = this.snapshot.now;
    for (const p of placements) {
      const job = jobs.get(p.job) ?? this.snapshot.jobs.get(p.job);
      const at = index.get(p.workerId);
      if (!job || at === undefined) continue;
      const r = job.resources;
      const w = this.workers[at]!;
      const used = new Set(p.deviceIndices);
      if (takeFree)
        this.workers[at] = {
          ...w,
          free: {
            cpuMillis: Math.max(0, w.free.cpuMillis - r.cpuMillis),
            memoryBytes: Math.max(0, w.free.memoryBytes - r.memoryBytes),
            devices: w.free.devices.filter((d) => !used.has(d)),
          },
        };
      const duration = plannedDuration(job, this.defaultOf(job));
      this.running.push({
        task: p.task,
        job: p.job,
        workerId: p.workerId,
        cpuMillis: r.cpuMillis,
        memoryBytes: r.memoryBytes,
        devices: devicesNeeded(r),
        endsAt: now + duration,
        startedAt: now,
        user: job.user,
        ...(job.band ? { band: job.band } : {}),
        // Not started yet: no preemption may pick it in this pass.
        stopping: true,
      });
      const u = this.usage.get(job.user) ?? { cpuMillis: 0, memoryBytes: 0, accelerators: 0, pendingTasks: 0 };
      this.usage.set(job.user, {
        cpuMillis: u.cpuMillis + r.cpuMillis,
        memoryBytes: u.memoryBytes + r.memoryBytes,
        accelerators: u.accelerators + acceleratorsOf(r),
        pendingTasks: Math.max(0, u.pendingTasks - 1),
      });
    }
  }

  /** `m`'s reservations now: the future holds the other queues plan around. */
  reservedBy(m: Member, reserved: ReadonlyMap<string, { reservation: Reservation | null }>): void {
    const holds: RunningAllocation[] = [];
    const starts = new Map<string, number>();
    for (const [job, b] of reserved) {
      if (!b.reservation) continue;
      holds.push(...reservationHolds(job, b.reservation));
      starts.set(job, b.reservation.start);
    }
    this.holds.set(m, holds);
    this.starts.set(m, starts);
  }

  /** The reservations of the queues other than `m`: job -> start and queue (Snapshot.otherReservations). */
  reservationsFor(m: Member): Map<string, { start: number; queue: string }> {
    const out = new Map<string, { start: number; queue: string }>();
    for (const [other, starts] of this.starts) {
      if (other === m) continue;
      for (const [job, start] of starts) out.set(job, { start, queue: other.name ?? '' });
    }
    return out;
  }

  /** What queue `m`'s pass sees running: every running task, this pass's placements, the other queues' holds. */
  runningFor(m: Member): RunningAllocation[] {
    const out = [...this.running];
    for (const [other, holds] of this.holds) if (other !== m) out.push(...holds);
    return out;
  }
}

/** A reservation's spans as future holds, one per part (width tasks at once, back to back `repeats` times). */
export function reservationHolds(job: string, r: Reservation): RunningAllocation[] {
  const holds: RunningAllocation[] = [];
  for (let k = 0; k < r.parts.length; k += PART) {
    const workerId = r.workers[r.parts[k]!]!;
    const start = r.parts[k + 1]!;
    const width = r.parts[k + 2]!;
    const repeats = r.parts[k + 3]!;
    holds.push({
      task: `${job}/reserved-${k / PART}`,
      job,
      workerId,
      cpuMillis: r.req.cpuMillis * width,
      memoryBytes: r.req.memoryBytes * width,
      devices: r.req.devices * width,
      startsAt: start,
      endsAt: start + r.duration * repeats,
      stopping: true,
    });
  }
  return holds;
}
