/**
 * The simulated workers' free capacity, kept incrementally as tasks start and end.
 *
 * Guarantees: a placement that would overcommit a worker's CPU or memory throws (the scheduler
 * must never do that); views() rebuilds only the views of workers that changed since the last
 * call, into a new array, so a snapshot handed out earlier keeps the views it was given.
 */
import { costPerHourOf } from '../model/types.js';
import type { WorkerView } from '../cluster/scheduler/types.js';
import type { SimWorker } from './workload.js';

interface WorkerState {
  spec: SimWorker;
  freeCpu: number;
  freeMemory: number;
  deviceBusy: boolean[];
  lastDispatchAt: number | null;
  /** Why it takes no placements now (elastic coordinator); null while enabled. */
  disabled: string | null;
}

export class WorkerPool {
  private readonly workers: WorkerState[];
  private readonly index = new Map<string, number>();
  private current: WorkerView[];
  private readonly dirty = new Set<number>();
  /** CPU millis of all workers together. */
  readonly totalCpu: number;
  private usedCpu = 0;

  constructor(specs: readonly SimWorker[]) {
    this.workers = specs.map((spec, i) => {
      this.index.set(spec.id, i);
      return {
        spec,
        freeCpu: spec.cpuMillis,
        freeMemory: spec.memoryBytes,
        deviceBusy: new Array<boolean>(spec.device.count).fill(false),
        lastDispatchAt: null,
        disabled: null,
      };
    });
    this.current = this.workers.map((_, i) => this.view(i));
    this.totalCpu = specs.reduce((sum, w) => sum + w.cpuMillis, 0);
  }

  has(workerId: string): boolean {
    return this.index.has(workerId);
  }

  /** Views with up-to-date free capacity (for a scheduling pass). */
  views(): WorkerView[] {
    if (this.dirty.size > 0) {
      this.current = this.current.slice();
      for (const i of this.dirty) this.current[i] = this.view(i);
      this.dirty.clear();
    }
    return this.current;
  }

  /** The last views built: capacity and attributes are exact, free amounts may lag (for feasibility checks). */
  capacityViews(): WorkerView[] {
    return this.current;
  }

  /** Allocated CPU over all CPU (0 for a pool without CPU). */
  utilization(): number {
    return this.totalCpu > 0 ? this.usedCpu / this.totalCpu : 0;
  }

  /** Takes a task's resources and device instances on a worker, placed at `now`. */
  take(workerId: string, cpuMillis: number, memoryBytes: number, devices: readonly number[], now: number): void {
    const w = this.index.get(workerId)!;
    const worker = this.workers[w]!;
    worker.freeCpu -= cpuMillis;
    worker.freeMemory -= memoryBytes;
    for (const d of devices) worker.deviceBusy[d] = true;
    worker.lastDispatchAt = now;
    if (worker.freeCpu < 0 || worker.freeMemory < 0) throw new Error(`scheduler overcommitted worker ${workerId}`);
    this.dirty.add(w);
    this.usedCpu += cpuMillis;
  }

  /** Gives back what take() took. */
  release(workerId: string, cpuMillis: number, memoryBytes: number, devices: readonly number[]): void {
    const w = this.index.get(workerId)!;
    const worker = this.workers[w]!;
    worker.freeCpu += cpuMillis;
    worker.freeMemory += memoryBytes;
    for (const d of devices) worker.deviceBusy[d] = false;
    this.dirty.add(w);
    this.usedCpu -= cpuMillis;
  }

  /** Disables a worker (it keeps what runs there, takes no placements) with a reason, or enables it (null). */
  setDisabled(workerId: string, reason: string | null): void {
    const w = this.index.get(workerId)!;
    this.workers[w]!.disabled = reason;
    this.dirty.add(w);
  }

  private view(i: number): WorkerView {
    const w = this.workers[i]!;
    const devices: number[] = [];
    for (let d = 0; d < w.deviceBusy.length; d++) if (!w.deviceBusy[d]) devices.push(d);
    return {
      id: w.spec.id,
      device: w.spec.device,
      attributes: w.spec.attributes,
      capacity: { cpuMillis: w.spec.cpuMillis, memoryBytes: w.spec.memoryBytes },
      free: { cpuMillis: w.freeCpu, memoryBytes: w.freeMemory, devices },
      schedulable: w.disabled === null,
      ...(w.disabled !== null ? { disabled: w.disabled } : {}),
      costPerHour: costPerHourOf(w.spec),
      lastDispatchAt: w.lastDispatchAt,
    };
  }
}
