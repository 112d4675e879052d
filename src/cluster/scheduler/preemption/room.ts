/**
 * What victim selection is asked about, built from one pass (plan.ts): the running tasks with
 * their effective bands, the workers' free capacity after the pass's placements (arrays by worker
 * index), and each preemptor's view of the workers where it could make room.
 */
import { DEFAULT_BAND, bandOf, bandRank } from '../../../model/band.js';
import { checkWorker, NEVER_FILTERS } from '../placement/filters.js';
import { devicesNeeded } from '../placement/fit.js';
import { anyBorrowing, borrowedTasks, type RunningUse } from '../queue/shares.js';
import type { Plan, SchedulerJob, Snapshot } from '../types.js';
import type { Amount, PreemptorView, RunningTaskView } from './victims.js';

export const need = (job: SchedulerJob): Amount => ({
  cpuMillis: job.resources.cpuMillis,
  memoryBytes: job.resources.memoryBytes,
  devices: devicesNeeded(job.resources),
});

/**
 * Running tasks as victim selection sees them: a task its user holds beyond a soft quota
 * (queue/shares.ts borrowedTasks) is `batch`, whatever its job's band; tasks being stopped are left out.
 */
export function runningViews(snapshot: Snapshot): RunningTaskView[] {
  const running = snapshot.running ?? [];
  let borrowed: ReadonlyMap<string, string> | null = null;
  if (snapshot.quotas.size > 0 && anyBorrowing(snapshot.usage, snapshot.quotas)) {
    const uses: RunningUse[] = [];
    for (const r of running) {
      if (r.stopping || r.user === undefined) continue;
      const { task, user, cpuMillis, memoryBytes } = r;
      uses.push({ task, user, startedAt: r.startedAt ?? 0, cpuMillis, memoryBytes, accelerators: r.devices });
    }
    borrowed = borrowedTasks(uses, snapshot.quotas);
  }
  const out: RunningTaskView[] = [];
  for (const r of running) {
    if (r.stopping) continue;
    out.push({
      task: r.task,
      job: r.job,
      workerId: r.workerId,
      cpuMillis: r.cpuMillis,
      memoryBytes: r.memoryBytes,
      devices: r.devices,
      band: borrowed?.has(r.task) ? 'batch' : bandOf(r),
      startedAt: r.startedAt ?? 0,
      gang: r.gang ? r.job : null,
    });
  }
  return out;
}

/**
 * The pass's workers as arrays by worker index: free capacity after the plan's placements, and
 * which workers run a task below each band (a victim can only be there).
 */
export class Room {
  private readonly index = new Map<string, number>();
  private readonly cpu: Float64Array;
  private readonly memory: Float64Array;
  private readonly devices: Float64Array;
  /** below[rank][w]: worker w runs a task ranked below band rank `rank` (0: production, 1: interactive). */
  readonly below: readonly [Uint8Array, Uint8Array];

  constructor(snapshot: Snapshot, plan: Plan, running: readonly RunningTaskView[]) {
    const workers = snapshot.workers;
    const n = workers.length;
    this.cpu = new Float64Array(n);
    this.memory = new Float64Array(n);
    this.devices = new Float64Array(n);
    this.below = [new Uint8Array(n), new Uint8Array(n)];
    for (let w = 0; w < n; w++) {
      const worker = workers[w]!;
      this.index.set(worker.id, w);
      this.cpu[w] = worker.free.cpuMillis;
      this.memory[w] = worker.free.memoryBytes;
      this.devices[w] = worker.free.devices.length;
    }
    let lastJob: string | null = null;
    let taken: Amount | null = null;
    for (const p of plan.placements) {
      if (p.job !== lastJob) {
        lastJob = p.job;
        const job = snapshot.jobs.get(p.job);
        taken = job ? need(job) : null;
      }
      if (taken) this.move(p.workerId, taken, -1);
    }
    for (const r of running) {
      const w = this.index.get(r.workerId);
      if (w === undefined) continue;
      const rank = bandRank(r.band);
      if (rank > 0) this.below[0][w] = 1;
      if (rank > 1) this.below[1][w] = 1;
    }
  }

  amount(w: number): Amount {
    return { cpuMillis: this.cpu[w]!, memoryBytes: this.memory[w]!, devices: this.devices[w]! };
  }

  /** `sign` 1: `a` is freed on worker `id`; -1: it is taken there. */
  move(id: string, a: Amount, sign: 1 | -1): void {
    const w = this.index.get(id);
    if (w === undefined) return;
    this.cpu[w]! += sign * a.cpuMillis;
    this.memory[w]! += sign * a.memoryBytes;
    this.devices[w]! += sign * a.devices;
  }
}

/**
 * The preemptor as victim selection sees it: the workers that pass the static filters for it
 * (placement/filters.ts NEVER_FILTERS) and run a task below its band, with their free capacity
 * (an independent job's tasks did not fit the free capacity in the pass, so only such workers can
 * make room); for a gang, the whole groups that hold such a worker (free members count too).
 */
export function preemptorView(snapshot: Snapshot, job: SchedulerJob, tasks: number, room: Room): PreemptorView {
  const view = { workers: snapshot.workers };
  const below = room.below[bandRank(job.band ?? DEFAULT_BAND) === 0 ? 0 : 1];
  const gang = job.coschedule;
  const workers: Array<{ id: string; free: Amount }> = [];
  const groups = new Map<string, { ids: string[]; useful: boolean }>();
  snapshot.workers.forEach((worker, w) => {
    if (gang === null && below[w] === 0) return;
    if (checkWorker(job, view, w, false, NEVER_FILTERS).kind !== 'ok') return;
    workers.push({ id: worker.id, free: room.amount(w) });
    if (gang === null) return;
    const value = worker.attributes[gang]!;
    const group = groups.get(value);
    if (!group) groups.set(value, { ids: [worker.id], useful: below[w] === 1 });
    else {
      group.ids.push(worker.id);
      if (below[w] === 1) group.useful = true;
    }
  });
  const base = { job: job.name, band: job.band ?? DEFAULT_BAND, need: need(job), tasks, gang: gang !== null, workers };
  if (gang === null) return base;
  return { ...base, groups: [...groups.values()].filter((g) => g.useful).map((g) => g.ids), onePerWorker: true };
}
