/**
 * Keep accelerators for accelerator work (issue 31 §3; docs/configuration.md, "Placement"): a job
 * that asks for no GPU or TPU goes to a worker without accelerators whenever one of its
 * candidates without accelerators can hold it now; only when none can does it take an
 * accelerator worker. Config `placement.keep-accelerators: false` turns the rule off.
 *
 * The rule is a scorer on the one scoring path (scoring.ts): KEEP_ACCELERATORS `prefer`s the
 * plain candidates, so the task's pool is those alone when any of them is feasible (and every
 * other score, normalisation included, is taken over that pool), else every candidate. The fast
 * paths do the same: the AdaptiveSelector tries the plain tier first, and first-fit's FreePool
 * lists the plain workers first for a plain job (candidates.ts).
 *
 * Guarantees: pure; a job that asks for a device, and a candidate list with no accelerator worker
 * or only accelerator workers, are left exactly as without the rule. The split of a candidate
 * list is computed once per list per pass (`PlainTier`), so the rule costs one map lookup per
 * task and O(candidates) once per candidate list.
 */
import type { PassScorer, ScoringPass, WorkerScorer } from './scoring.js';
import type { SchedulerJob, WorkerView } from '../types.js';

/** True when the job asks for no GPU and no TPU. */
export function asksNoAccelerator(job: SchedulerJob): boolean {
  return job.resources.device === null;
}

/** True when the worker has GPUs or TPU chips. */
export function hasAccelerators(worker: WorkerView): boolean {
  return worker.device.type !== 'cpu' && worker.device.count > 0;
}

/** `members` with the workers without accelerators first, each part in its own order. */
export function plainFirst(members: readonly number[], workers: readonly WorkerView[]): number[] {
  const plain: number[] = [];
  const accel: number[] = [];
  for (const w of members) (hasAccelerators(workers[w]!) ? accel : plain).push(w);
  return accel.length === 0 || plain.length === 0 ? [...members] : plain.concat(accel);
}

/** One pass's split of candidate lists into their plain workers (null: nothing to prefer). */
export class PlainTier {
  private readonly accel: Uint8Array;
  private readonly any: boolean;
  private readonly split = new Map<ArrayLike<number>, Int32Array | null>();

  constructor(workers: readonly WorkerView[]) {
    this.accel = Uint8Array.from(workers, (w) => (hasAccelerators(w) ? 1 : 0));
    this.any = this.accel.includes(1);
  }

  /**
   * The candidates (snapshot order kept) without accelerators when `job` asks for none and the
   * list holds both kinds; otherwise null (the rule changes nothing for it).
   */
  of(job: SchedulerJob, candidates: ArrayLike<number>): Int32Array | null {
    if (!this.any || !asksNoAccelerator(job)) return null;
    let plain = this.split.get(candidates);
    if (plain === undefined) {
      const accel = this.accel;
      let n = 0;
      for (let i = 0; i < candidates.length; i++) if (accel[candidates[i]!] === 0) n++;
      if (n === 0 || n === candidates.length) plain = null;
      else {
        plain = new Int32Array(n);
        let k = 0;
        for (let i = 0; i < candidates.length; i++) if (accel[candidates[i]!] === 0) plain[k++] = candidates[i]!;
      }
      this.split.set(candidates, plain);
    }
    return plain;
  }
}

export const KEEP_ACCELERATORS: WorkerScorer = Object.freeze({
  name: 'keep-accelerators',
  begin: ({ snapshot }: ScoringPass): PassScorer => {
    const tier = new PlainTier(snapshot.workers);
    return {
      prefer: (job, _task, candidates) => tier.of(job, candidates),
      // It acts on the pool, not on the total.
      score: () => 0,
    };
  },
});
