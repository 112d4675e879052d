/**
 * Candidate workers per static key (device type/variant/gpu memory + constraints): the workers that pass
 * the chain's indexed filters (filters.ts INDEXED_FILTERS: schedulable, device type, device
 * variant, gpu memory, constraints, sticky) for a job of that key, in snapshot order. Built once per key per pass,
 * so jobs that share a key share the O(workers) filtering and one FreePool for first-fit (whose
 * members are in snapshot order, or, for the first-fit fast path keeping accelerators, with the
 * workers without accelerators first for a job that asks for none).
 */
import { asksNoAccelerator, plainFirst } from './accelerators.js';
import { filtersFor, INDEXED_FILTERS, type PlacementView } from './filters.js';
import { staticKey } from './fit.js';
import type { FreePool } from './pool.js';
import type { ScratchCapacity } from './scratch.js';
import type { SchedulerJob } from '../types.js';

export interface Candidates {
  members: number[];
  isMember: Uint8Array;
  /** Lazily built first-fit index over `members`. */
  pool: FreePool | null;
}

export class CandidateIndex {
  private readonly byKey = new Map<string, Candidates>();

  /**
   * `plainFirst`: the first-fit fast path under placement.keep-accelerators (accelerators.ts):
   * the FreePool of a job that asks for no accelerator lists the workers without them first.
   */
  constructor(
    private readonly scratch: ScratchCapacity,
    private readonly plainFirstPools = false,
  ) {}

  of(job: SchedulerJob, key: string = staticKey(job)): Candidates {
    let found = this.byKey.get(key);
    if (!found) {
      const workers = this.scratch.workers;
      const members: number[] = [];
      const isMember = new Uint8Array(workers.length);
      const filters = filtersFor(job, INDEXED_FILTERS);
      const view: PlacementView = { workers };
      for (let w = 0; w < workers.length; w++) {
        let ok = true;
        for (let f = 0; f < filters.length && ok; f++) ok = filters[f]!.check(job, view, w, false).kind === 'ok';
        if (ok) {
          members.push(w);
          isMember[w] = 1;
        }
      }
      found = { members, isMember, pool: null };
      this.byKey.set(key, found);
    }
    return found;
  }

  poolOf(job: SchedulerJob, key?: string): FreePool {
    const candidates = this.of(job, key);
    candidates.pool ??= this.scratch.pool(
      this.plainFirstPools && asksNoAccelerator(job)
        ? plainFirst(candidates.members, this.scratch.workers)
        : candidates.members,
    );
    return candidates.pool;
  }
}
