// Builders for queue-policy tests and a small virtual-clock loop that drives a QueueScheduler
// the way the controller does: a pass per event time (arrivals, task ends), placements applied
// at once, each running task holding its worker until its actual end (<= its time limit).
import type { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  Plan,
  RunningAllocation,
  SchedulerJob,
  SchedulerTask,
  Snapshot,
  WorkerView,
} from '../../../../src/cluster/scheduler/types.js';
import { GiB, job, PLACEMENTS, tasksOf, worker, type JobOptions } from '../helpers.js';

export { GiB, job, PLACEMENTS, tasksOf, worker };

export const timed = (name: string, limit: number, o: JobOptions = {}): SchedulerJob => ({
  ...job(name, o),
  timeLimitMs: limit,
});

/** A running task holding `cpu` cores (and `devices`) on `workerId` until `endsAt`. */
export function hold(
  task: string,
  workerId: string,
  cpu: number,
  endsAt: number,
  o: { memGiB?: number; devices?: number } = {},
): RunningAllocation {
  return {
    task,
    job: task.replace(/\/task-\d+$/, ''),
    workerId,
    cpuMillis: cpu * 1000,
    memoryBytes: (o.memGiB ?? 0) * GiB,
    devices: o.devices ?? 0,
    endsAt,
  };
}

/** Workers with their free capacity derived from `running` (capacity minus what is held). */
export function withHolds(workers: WorkerView[], running: RunningAllocation[]): WorkerView[] {
  return workers.map((w) => {
    const mine = running.filter((r) => r.workerId === w.id);
    const devices = mine.reduce((n, r) => n + r.devices, 0);
    return {
      ...w,
      free: {
        cpuMillis: w.capacity.cpuMillis - mine.reduce((n, r) => n + r.cpuMillis, 0),
        memoryBytes: w.capacity.memoryBytes - mine.reduce((n, r) => n + r.memoryBytes, 0),
        devices: Array.from({ length: w.device.count }, (_, i) => i).slice(devices),
      },
    };
  });
}

let seq = 0;
/** Tasks of each job, submitted in the order given (the queue order for jobs of one depth). */
export function queued(jobs: SchedulerJob[]): SchedulerTask[] {
  return jobs.flatMap((j) => tasksOf(j, j.rootSubmittedAt).map((t) => ({ ...t, seq: seq++ })));
}

export function snap(
  jobs: SchedulerJob[],
  workers: WorkerView[],
  running: RunningAllocation[],
  now = 1000,
  extra: Partial<Snapshot> = {},
): Snapshot {
  return {
    now,
    jobs: new Map(jobs.map((j) => [j.name, j])),
    pending: queued(jobs),
    workers: withHolds(workers, running),
    usage: new Map(),
    quotas: new Map(),
    running,
    ...extra,
  };
}

/** Placed task -> worker id. */
export const where = (plan: Plan): Record<string, string> =>
  Object.fromEntries(plan.placements.map((p) => [p.task, p.workerId]));
export const startedJobs = (plan: Plan): string[] => [...new Set(plan.placements.map((p) => p.job))];

// ---- virtual clock -------------------------------------------------------------------------

export interface SimJob {
  job: SchedulerJob;
  submit: number;
  /** Actual run time of each task (<= the time limit). */
  runtime: number;
}

interface Live {
  alloc: RunningAllocation;
  actualEnd: number;
  deviceIndices: number[];
}

export interface SimOutcome {
  /** Job -> time its last task started. */
  started: Map<string, number>;
  /** Job -> the first reserved start any pass gave it. */
  firstReservation: Map<string, number>;
  /** Job -> its tasks still pending after the pass that first reserved it. */
  reservedTasks: Map<string, string[]>;
  /** Task -> start time. */
  taskStarts: Map<string, number>;
  /** Every pass: its time, whether resources changed, the snapshot and the plan. */
  passes: Array<{ now: number; changed: boolean; snapshot: Snapshot; plan: Plan }>;
  /** Jobs still pending at the end. */
  pending: string[];
}

/**
 * Run `jobs` to completion (or `horizon`) on `workers` (capacity only). Checks on every pass
 * that placements are valid: the task is pending and the worker has the capacity free.
 */
export function simulate(
  scheduler: Pick<QueueScheduler, 'pass' | 'options'>,
  workers: WorkerView[],
  jobs: SimJob[],
  horizon = Infinity,
): SimOutcome {
  const arrivals = [...jobs].sort((a, b) => a.submit - b.submit);
  const runtime = new Map(jobs.map((j) => [j.job.name, j.runtime]));
  const known = new Map<string, SchedulerJob>();
  const pending = new Map<string, SchedulerTask>();
  const live: Live[] = [];
  const out: SimOutcome = {
    started: new Map(),
    firstReservation: new Map(),
    reservedTasks: new Map(),
    taskStarts: new Map(),
    passes: [],
    pending: [],
  };
  let next = 0;
  let taskSeq = 0;
  let first = true;
  for (let guard = 0; ; guard++) {
    if (guard > 100_000) throw new Error('simulation does not end');
    let t = next < arrivals.length ? arrivals[next]!.submit : Infinity;
    for (const l of live) if (l.actualEnd < t) t = l.actualEnd;
    if (t === Infinity || t > horizon) break;
    let changed = first;
    first = false;
    for (let i = live.length - 1; i >= 0; i--) {
      if (live[i]!.actualEnd <= t) {
        live.splice(i, 1);
        changed = true;
      }
    }
    while (next < arrivals.length && arrivals[next]!.submit <= t) {
      const a = arrivals[next++]!;
      known.set(a.job.name, a.job);
      for (let index = 0; index < a.job.replicas; index++) {
        const id = `${a.job.name}/task-${index}`;
        pending.set(id, { id, job: a.job.name, index, submittedAt: a.submit, seq: taskSeq++ });
      }
    }
    if (pending.size === 0) continue;
    const running = live.map((l) => l.alloc);
    const views = workers.map((w) => {
      const mine = live.filter((l) => l.alloc.workerId === w.id);
      const usedDevices = new Set(mine.flatMap((l) => l.deviceIndices));
      return {
        ...w,
        free: {
          cpuMillis: w.capacity.cpuMillis - mine.reduce((n, l) => n + l.alloc.cpuMillis, 0),
          memoryBytes: w.capacity.memoryBytes - mine.reduce((n, l) => n + l.alloc.memoryBytes, 0),
          devices: Array.from({ length: w.device.count }, (_, i) => i).filter((i) => !usedDevices.has(i)),
        },
      };
    });
    const jobsNow = new Map<string, SchedulerJob>();
    for (const task of pending.values()) jobsNow.set(task.job, known.get(task.job)!);
    const snapshot: Snapshot = {
      now: t,
      jobs: jobsNow,
      pending: [...pending.values()],
      workers: views,
      usage: new Map(),
      quotas: new Map(),
      running,
    };
    const plan = scheduler.pass(snapshot, changed);
    out.passes.push({ now: t, changed, snapshot, plan });
    for (const p of plan.placements) {
      const task = pending.get(p.task);
      if (!task) throw new Error(`placement of ${p.task}, which is not pending`);
      const j = known.get(task.job)!;
      const view = views.find((w) => w.id === p.workerId)!;
      const res = j.resources;
      if (view.free.cpuMillis < res.cpuMillis || view.free.memoryBytes < res.memoryBytes)
        throw new Error(`${p.task} overcommits ${p.workerId}`);
      view.free = {
        ...view.free,
        cpuMillis: view.free.cpuMillis - res.cpuMillis,
        memoryBytes: view.free.memoryBytes - res.memoryBytes,
      };
      pending.delete(p.task);
      const limit = j.timeLimitMs ?? scheduler.options.defaultTimeLimitMs;
      live.push({
        alloc: {
          task: p.task,
          job: j.name,
          workerId: p.workerId,
          cpuMillis: res.cpuMillis,
          memoryBytes: res.memoryBytes,
          devices: p.deviceIndices.length,
          endsAt: t + limit,
        },
        actualEnd: t + Math.min(runtime.get(j.name)!, limit),
        deviceIndices: p.deviceIndices,
      });
      out.started.set(j.name, t);
      out.taskStarts.set(p.task, t);
    }
    for (const [name, start] of plan.reservations ?? []) {
      if (out.firstReservation.has(name)) continue;
      out.firstReservation.set(name, start);
      out.reservedTasks.set(
        name,
        [...pending.values()].filter((task) => task.job === name).map((task) => task.id),
      );
    }
  }
  out.pending = [...new Set([...pending.values()].map((task) => task.job))];
  return out;
}
