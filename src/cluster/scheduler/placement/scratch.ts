/**
 * Scratch capacity for one scheduling pass: a private copy of every worker's free cpu, memory
 * and free device indices (sorted ascending). Placements consume from it, never from the
 * snapshot, so the snapshot is not mutated. Device instances are taken lowest index first,
 * which keeps two tasks on one worker on disjoint indices. `fits` is the chain's free-capacity
 * test (filters.ts `covers`) on these numbers. Every FreePool built from this
 * scratch is kept in sync on each consume.
 */
import type { ResourceSpec } from '../../../model/resources.js';
import { covers } from './filters.js';
import { devicesNeeded } from './fit.js';
import { FreePool } from './pool.js';
import type { FreeCapacity, WorkerView } from '../types.js';

const NO_DEVICES: readonly number[] = Object.freeze([]);

export class ScratchCapacity {
  readonly cpu: Float64Array;
  readonly mem: Float64Array;
  /** Free device count per worker (mirror of devices[w].length, for FreePool). */
  readonly devCount: Float64Array;
  private readonly devices: number[][];
  /** Workers already given to a gang in this pass; no second gang may use them. */
  readonly gangTaken: Uint8Array;
  private readonly memberships: Array<Array<{ pool: FreePool; position: number }> | undefined>;

  constructor(readonly workers: readonly WorkerView[]) {
    const n = workers.length;
    this.cpu = new Float64Array(n);
    this.mem = new Float64Array(n);
    this.devCount = new Float64Array(n);
    this.devices = new Array<number[]>(n);
    this.gangTaken = new Uint8Array(n);
    this.memberships = new Array(n);
    for (let w = 0; w < n; w++) {
      const free = workers[w]!.free;
      this.cpu[w] = free.cpuMillis;
      this.mem[w] = free.memoryBytes;
      this.devices[w] = free.devices.length === 0 ? (NO_DEVICES as number[]) : [...free.devices].sort((a, b) => a - b);
      this.devCount[w] = free.devices.length;
    }
  }

  fits(w: number, res: ResourceSpec): boolean {
    return covers(this.cpu[w]!, this.mem[w]!, this.devCount[w]!, res);
  }

  /** Take one task's resources from worker `w`; returns the device indices it now holds. */
  consume(w: number, res: ResourceSpec): number[] {
    const count = devicesNeeded(res);
    const taken = count > 0 ? this.devices[w]!.splice(0, count) : [];
    this.cpu[w] = this.cpu[w]! - res.cpuMillis;
    this.mem[w] = this.mem[w]! - res.memoryBytes;
    this.devCount[w] = this.devCount[w]! - count;
    const pools = this.memberships[w];
    if (pools)
      for (const { pool, position } of pools) pool.update(position, this.cpu[w]!, this.mem[w]!, this.devCount[w]!);
    return taken;
  }

  /** A FreePool over `members` (worker indices), kept in sync with later consumes. */
  pool(members: readonly number[]): FreePool {
    const pool = new FreePool(members, this.cpu, this.mem, this.devCount);
    for (let position = 0; position < members.length; position++) {
      const w = members[position]!;
      (this.memberships[w] ??= []).push({ pool, position });
    }
    return pool;
  }

  free(w: number): FreeCapacity {
    return { cpuMillis: this.cpu[w]!, memoryBytes: this.mem[w]!, devices: this.devices[w]! };
  }
}
