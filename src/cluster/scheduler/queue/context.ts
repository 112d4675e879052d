/**
 * Everything one queue-policy pass works on: the free capacity now (ScratchCapacity, the same
 * structure first-fit uses, so placements carry valid device indices) and one WorkerCalendar per
 * worker holding what is planned from now on — running tasks until their planned end, tasks
 * started by this pass, and reservations. A placement is only made when both agree: the worker
 * has the capacity free now (scratch) and keeps it for the job's whole duration without
 * overlapping any reservation (calendar).
 *
 * Running holds come from `snapshot.running` ([now, endsAt), aggregated per worker and end
 * time). A hold past its planned end (the task is being stopped) is taken to end one clock unit
 * from now. Without `snapshot.running`, whatever a worker holds (capacity minus free) is held
 * with no known end, so nothing can be reserved behind it.
 *
 * A QueueScheduler passes in calendars it keeps across passes (kept.ts) already holding the
 * running tasks; they are used as they are, and the scheduler takes this pass's spans out again.
 */
import { WorkerCalendar, type Amounts, type WorkerSlot } from '../planner/index.js';
import { CandidateIndex } from '../placement/candidates.js';
import { TOTAL_CAPACITY, type PlacementView } from '../placement/filters.js';
import { FIRST_FIT_PLACEMENT, keepsAccelerators, passSelector } from '../placement/registry.js';
import type { PassSelector, PlacementProfile } from '../placement/scoring.js';
import { devicesNeeded, shapeKey, staticKey } from '../placement/fit.js';
import { GangPlacer } from '../placement/gang.js';
import { QuotaTracker } from './quota.js';
import { ScratchCapacity } from '../placement/scratch.js';
import { StartCache } from './start-cache.js';
import type { SchedulerJob, Snapshot } from '../types.js';
import type { QueueOptions } from './options.js';

/** A job's slot key (its shape and coschedule attribute), kept across passes: scheduler jobs are immutable. */
const slotKeys = new WeakMap<SchedulerJob, string>();

export function amountsOf(job: SchedulerJob): Amounts {
  const r = job.resources;
  return { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: devicesNeeded(r) };
}

export function times(a: Amounts, k: number): Amounts {
  return k === 1 ? a : { cpuMillis: a.cpuMillis * k, memoryBytes: a.memoryBytes * k, devices: a.devices * k };
}

/** A job's planned duration: its predicted runtime, else its own time limit, else `defaultMs`. */
export function plannedDuration(job: SchedulerJob, defaultMs: number): number {
  const predicted = job.predictedMs;
  if (typeof predicted === 'number' && predicted > 0) return predicted;
  const limit = job.timeLimitMs;
  return typeof limit === 'number' && limit > 0 ? limit : defaultMs;
}

export class PassContext {
  readonly now: number;
  readonly scratch: ScratchCapacity;
  readonly candidates: CandidateIndex;
  readonly gangs: GangPlacer;
  readonly quota: QuotaTracker;
  readonly calendars: WorkerCalendar[];
  readonly indexById = new Map<string, number>();
  /** Some capacity is held with no planned end (unlimited tasks, or no `running` given). */
  unboundedHolds = false;
  private readonly slotCache = new Map<string, WorkerSlot[]>();

  /** What the scorers see: the workers and the free capacity left so far in this pass. */
  readonly view: PlacementView;
  /** The pass's scored chooser; null: the first-fit fast path. */
  readonly selector: PassSelector | null;
  /** Which jobs provably cannot start now (start-cache.ts); told when spans are released. */
  readonly starts: StartCache = new StartCache(this);

  constructor(
    readonly snapshot: Snapshot,
    readonly options: QueueOptions,
    readonly placement: PlacementProfile = FIRST_FIT_PLACEMENT,
    /** Calendars already holding the running tasks (kept.ts); absent: built here. */
    kept?: { calendars: WorkerCalendar[]; unboundedHolds: boolean } | null,
  ) {
    const now = snapshot.now;
    this.now = now;
    this.scratch = new ScratchCapacity(snapshot.workers);
    const scratch = this.scratch;
    this.view = { workers: snapshot.workers, free: (w) => scratch.free(w), gangTaken: scratch.gangTaken };
    this.selector = passSelector(placement, snapshot, this.view);
    this.candidates = new CandidateIndex(this.scratch, !this.selector && keepsAccelerators(placement));
    this.gangs = new GangPlacer(this.scratch, this.candidates);
    this.quota = new QuotaTracker(snapshot.usage, snapshot.quotas);
    const workers = snapshot.workers;
    if (kept) {
      this.calendars = kept.calendars;
      this.unboundedHolds = kept.unboundedHolds;
      for (let w = 0; w < workers.length; w++) this.indexById.set(workers[w]!.id, w);
      return;
    }
    this.calendars = new Array<WorkerCalendar>(workers.length);
    for (let w = 0; w < workers.length; w++) {
      const worker = workers[w]!;
      this.indexById.set(worker.id, w);
      this.calendars[w] = new WorkerCalendar({
        cpuMillis: worker.capacity.cpuMillis,
        memoryBytes: worker.capacity.memoryBytes,
        devices: worker.device.count,
      });
    }
    if (snapshot.running) this.addRunning(snapshot);
    else this.addUnknownHolds(snapshot);
  }

  private addRunning(snapshot: Snapshot): void {
    const now = this.now;
    // worker index -> end time -> summed amounts: one span per distinct end keeps the trees small.
    const byWorker = new Map<number, Map<number, Amounts>>();
    for (const r of snapshot.running!) {
      const w = this.indexById.get(r.workerId);
      if (w === undefined) continue;
      if (r.startsAt !== undefined && r.startsAt > now) {
        const amounts = { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices };
        if (r.endsAt > r.startsAt) this.calendars[w]!.add(r.startsAt, r.endsAt, amounts);
        continue;
      }
      const end = r.endsAt > now ? r.endsAt : now + 1;
      if (end === Infinity) this.unboundedHolds = true;
      let ends = byWorker.get(w);
      if (!ends) byWorker.set(w, (ends = new Map()));
      const sum = ends.get(end);
      if (sum) {
        sum.cpuMillis += r.cpuMillis;
        sum.memoryBytes += r.memoryBytes;
        sum.devices += r.devices;
      } else {
        ends.set(end, { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, devices: r.devices });
      }
    }
    for (const [w, ends] of byWorker) {
      const cal = this.calendars[w]!;
      for (const [end, amounts] of ends) cal.add(now, end, amounts);
    }
  }

  private addUnknownHolds(snapshot: Snapshot): void {
    const workers = snapshot.workers;
    for (let w = 0; w < workers.length; w++) {
      const worker = workers[w]!;
      const held: Amounts = {
        cpuMillis: Math.max(0, worker.capacity.cpuMillis - worker.free.cpuMillis),
        memoryBytes: Math.max(0, worker.capacity.memoryBytes - worker.free.memoryBytes),
        devices: Math.max(0, worker.device.count - worker.free.devices.length),
      };
      if (held.cpuMillis > 0 || held.memoryBytes > 0 || held.devices > 0) {
        this.calendars[w]!.add(this.now, Infinity, held);
        this.unboundedHolds = true;
      }
    }
  }

  /** The job's planned duration: its predicted runtime, else its own time limit, else the queue's default. */
  duration(job: SchedulerJob): number {
    return plannedDuration(job, this.options.defaultTimeLimitMs);
  }

  /**
   * Workers that could ever run one task of `job` (every never filter of the chain passes), as
   * planner slots in placement order: for an independent job the candidate workers in snapshot
   * order; for a gang the workers having the coschedule attribute, grouped by its value (groups
   * by value, members by tpu-worker-id), each slot of a host-ordered group carrying its group
   * index (`host`: the gang's task of that index runs there and nowhere else).
   */
  slots(job: SchedulerJob): WorkerSlot[] {
    let key = slotKeys.get(job);
    if (key === undefined) slotKeys.set(job, (key = `${shapeKey(job)}@${job.coschedule ?? ''}`));
    let slots = this.slotCache.get(key);
    if (slots) return slots;
    const { members, isMember } = this.candidates.of(job, staticKey(job));
    const workers = this.snapshot.workers;
    const view = { workers };
    const covers = (w: number): boolean => TOTAL_CAPACITY.check(job, view, w, false).kind === 'ok';
    slots = [];
    if (job.coschedule === null) {
      for (const w of members)
        if (covers(w)) slots.push({ id: workers[w]!.id, calendar: this.calendars[w]!, group: null });
    } else {
      for (const group of this.gangs.groups(job.coschedule)) {
        group.members.forEach((w, host) => {
          if (!isMember[w] || !covers(w)) return;
          const slot: WorkerSlot = { id: workers[w]!.id, calendar: this.calendars[w]!, group: group.value };
          if (group.hostOrdered) slot.host = host;
          slots.push(slot);
        });
      }
    }
    this.slotCache.set(key, slots);
    return slots;
  }
}
