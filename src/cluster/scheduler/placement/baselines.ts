/**
 * The baseline placement modes (docs/configuration.md, "Placement modes"; issue 15 §3), pure: the
 * dispatchers adaptive placement is compared against. One BaselineSelector per pass; it reads
 * what earlier passes decided from `snapshot.placementMemory` and gives the next memory out
 * (`memory()`, put in Plan.placementMemory). Nothing else is kept: the scheduler stays a function.
 *
 * static-worker: a submission — its root, the first component of the job name (`/train/eval`
 *   belongs to `/train`) — runs on one worker.
 *   - Bound: the memory's binding holds while its worker takes work or the root still runs
 *     there; else a root with a task running on W (snapshot.running) is bound to W. Otherwise the
 *     root binds at its first placement: the first open feasible worker (selection first-fit) or
 *     the smallest (min-satisfying, throughput proxy μ of adaptive.ts).
 *   - Closed: while a root has a task running on W (or placed there in this pass), W takes no
 *     task of any other root: it has left the general pool.
 *   - Lifetime: a binding lasts while its root has a task pending or running in the snapshot;
 *     the first pass that sees neither drops it, and later work under that root binds anew. (A
 *     pipeline's next stage is released in the store when the previous one ends, so a pipeline
 *     keeps its worker from stage to stage.)
 *   - A task of a bound root goes only to its worker; when that has no room it waits with the
 *     reason `static-worker: bound to w1, which is busy`. A job its worker can never hold (too
 *     big, another device, a constraint or stickiness naming another worker, e.g. a GPU child of
 *     a TPU gang) is placed as if unbound, on a worker no other submission runs on; the binding
 *     stays. (Otherwise it would wait forever.)
 * fixed-pipeline: a task type — the last component of the job name without instance numbers
 *   (typeOf): a pipeline stage's name (`/demo/train` -> `train`, the same in every run of the
 *   pipeline), a plain job's name (`/infer-17` -> `infer`) — is bound to
 *   the first worker that takes one of its tasks (by selection among the feasible workers) and
 *   stays bound; its tasks wait while that worker has no room or takes no work
 *   (`fixed-pipeline: type train runs only on w1, which is busy`). A binding whose worker is no
 *   longer in the cluster is dropped (the type binds anew); a job of the type that the worker can
 *   never hold is placed as if unbound, and the binding stays.
 * round-robin: each task goes to the next worker after the one that took the last task, in
 *   snapshot order and wrapping around, that can hold it now. The seed's dispatcher does not check
 *   task requirements; iris does (the feasibility filters and free capacity), so it never
 *   overfills a worker or sends a GPU task to a CPU worker. Selection does not apply: order only.
 *
 * Gangs are placed as in every mode (the first group that fits, gang.ts). Each placement records
 * its mode and pool (the feasible workers it was chosen from; 1 for a bound task), score 0 and no
 * runner-up.
 */
import type { PlacementDecision } from '../../../model/types.js';
import type { PlacementMemory, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { throughput } from './adaptive-score.js';
import { covers } from './filters.js';
import type { BaselineMode, PlacementOptions } from './modes.js';

export const EMPTY_PLACEMENT_MEMORY: PlacementMemory = Object.freeze({ roots: new Map(), types: new Map(), cursor: null });

/** The submission a job belongs to: `/train/eval` -> `/train`. */
export function rootOf(name: string): string {
  const slash = name.indexOf('/', 1);
  return slash < 0 ? name : name.slice(0, slash);
}

/**
 * A job's task type for fixed-pipeline: the last component of its name without instance numbers
 * (`-` followed by digits only): `/demo/train` -> `train`, `/infer-17` -> `infer`,
 * `/ft-3-eval-a` -> `ft-eval-a`, `/sweep/trial-2` -> `trial`. A component of nothing but such
 * parts (`/42`) is its own type.
 */
export function typeOf(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  const type = last.split('-').filter((part) => !/^\d+$/.test(part)).join('-');
  return type === '' ? last : type;
}

/** Position of the first entry of ascending `sorted` above `w`. */
function upperBound(sorted: ArrayLike<number>, w: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function contains(sorted: ArrayLike<number>, w: number): boolean {
  const i = upperBound(sorted, w) - 1;
  return i >= 0 && sorted[i] === w;
}

export class BaselineSelector {
  decision: PlacementDecision | undefined;
  /** A failed select says nothing about other jobs of the same shape: they may be bound elsewhere. */
  readonly perJob: boolean;
  private readonly mode: BaselineMode;
  private readonly modeName: string;
  private readonly index = new Map<string, number>();
  /** static-worker: root -> worker index. */
  private readonly roots = new Map<string, number>();
  /** static-worker: worker index -> the root running there (the worker is closed to others). */
  private readonly closedBy: Array<string | undefined>;
  /** fixed-pipeline: type -> worker id. */
  private readonly types: Map<string, string>;
  /** round-robin: index of the worker that took the last task; -1: none. */
  private cursor = -1;
  private readonly mu: Float64Array | null;
  private readonly reasons = new Map<string, string>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly options: PlacementOptions,
  ) {
    this.mode = options.mode as BaselineMode;
    this.modeName = this.mode === 'round-robin' || options.selection === 'first-fit' ? this.mode : `${this.mode}+${options.selection}`;
    this.perJob = this.mode !== 'round-robin';
    const workers = snapshot.workers;
    workers.forEach((worker, w) => this.index.set(worker.id, w));
    this.closedBy = new Array<string | undefined>(workers.length);
    this.mu = options.selection === 'min-satisfying' ? Float64Array.from(workers, throughput) : null;
    const memory = snapshot.placementMemory ?? EMPTY_PLACEMENT_MEMORY;
    this.types = new Map([...memory.types].filter(([, id]) => this.index.has(id)));
    if (memory.cursor !== null) this.cursor = this.index.get(memory.cursor) ?? -1;
    if (this.mode === 'static-worker') this.bindRunning(memory);
  }

  private bindRunning(memory: PlacementMemory): void {
    const runningOn = new Map<string, Set<number>>();
    for (const r of this.snapshot.running ?? []) {
      const w = this.index.get(r.workerId);
      if (w === undefined) continue;
      const root = rootOf(r.job);
      this.closedBy[w] ??= root;
      let on = runningOn.get(root);
      if (!on) runningOn.set(root, (on = new Set()));
      on.add(w);
    }
    // The remembered worker, while it takes work or the root still runs there; else where it runs.
    for (const [root, id] of memory.roots) {
      const w = this.index.get(id);
      if (w !== undefined && (this.snapshot.workers[w]!.schedulable || runningOn.get(root)?.has(w))) this.roots.set(root, w);
    }
    for (const [root, on] of runningOn) if (!this.roots.has(root)) this.roots.set(root, on.values().next().value!);
  }

  /** The mode's own reason why `job` could not be placed in this pass, or null. */
  reasonFor(job: string): string | null {
    return this.reasons.get(job) ?? null;
  }

  select(job: SchedulerJob, _task: SchedulerTask, candidates: ArrayLike<number>, feasible: (w: number) => boolean): number {
    this.decision = undefined;
    if (this.mode === 'round-robin') return this.rotate(job, candidates, feasible);
    if (this.mode === 'static-worker') {
      const root = rootOf(job.name);
      const bound = this.roots.get(root);
      const open = (w: number): boolean => (this.closedBy[w] === undefined || this.closedBy[w] === root) && feasible(w);
      if (bound !== undefined) return this.onBound(job, bound, candidates, feasible, open, `static-worker: bound to`, root);
      return this.bindNew(job, candidates, open, feasible);
    }
    const type = typeOf(job.name);
    const id = this.types.get(type);
    if (id !== undefined) return this.onBound(job, this.index.get(id)!, candidates, feasible, feasible, `fixed-pipeline: type ${type} runs only on`, null);
    return this.bindNew(job, candidates, feasible, feasible);
  }

  /**
   * A task bound to worker `w`: `w` when it can take it now, else -1 with the reason. A job that
   * `w` can never hold (too big, another device, a constraint or stickiness naming another worker)
   * is placed as if unbound, among the `open` workers; the binding stays.
   */
  private onBound(
    job: SchedulerJob, w: number, candidates: ArrayLike<number>, feasible: (w: number) => boolean, open: (w: number) => boolean, lead: string, root: string | null,
  ): number {
    const worker = this.snapshot.workers[w]!;
    const canHold = contains(candidates, w) && covers(worker.capacity.cpuMillis, worker.capacity.memoryBytes, worker.device.count, job.resources);
    if (worker.schedulable && !canHold) return this.bindNew(job, candidates, open, feasible);
    const owner = root === null ? undefined : this.closedBy[w];
    let why: string | null = null;
    if (!worker.schedulable) why = `which takes no work now (${worker.disabled ?? 'not ready'})`;
    else if (owner !== undefined && owner !== root) why = `which is busy with ${owner}`;
    else if (!feasible(w)) why = 'which is busy';
    if (why !== null) {
      this.reasons.set(job.name, `${lead} ${worker.id}, ${why}`);
      return -1;
    }
    this.record(job, 1);
    return w;
  }

  /**
   * A first binding: among `candidates` that pass `open`, the first (selection first-fit) or the
   * smallest μ (min-satisfying). -1 when none; a reason when some were feasible but not open.
   */
  private bindNew(job: SchedulerJob, candidates: ArrayLike<number>, open: (w: number) => boolean, feasible: (w: number) => boolean): number {
    const mu = this.mu;
    let best = -1, pool = 0;
    for (let i = 0; i < candidates.length; i++) {
      const w = candidates[i]!;
      if (!open(w)) continue;
      pool++;
      if (best < 0) {
        best = w;
        if (mu === null) break;
      } else if (mu![w]! < mu![best]!) {
        best = w;
      }
    }
    if (best < 0) {
      for (let i = 0; i < candidates.length; i++) {
        if (feasible(candidates[i]!)) {
          this.reasons.set(job.name, 'static-worker: every worker with room for it runs another submission');
          break;
        }
      }
      return -1;
    }
    // First-fit stops at the first open worker: count the rest of the pool for the record.
    if (mu === null) for (let i = upperBound(candidates, best); i < candidates.length; i++) if (open(candidates[i]!)) pool++;
    this.record(job, pool);
    return best;
  }

  /** Round-robin: the first feasible candidate after the cursor, wrapping around. */
  private rotate(job: SchedulerJob, candidates: ArrayLike<number>, feasible: (w: number) => boolean): number {
    const n = candidates.length;
    const start = upperBound(candidates, this.cursor);
    let chosen = -1, pool = 0;
    for (let k = 0; k < n; k++) {
      const w = candidates[(start + k) % n]!;
      if (!feasible(w)) continue;
      pool++;
      if (chosen < 0) chosen = w;
    }
    if (chosen >= 0) this.record(job, pool);
    return chosen;
  }

  private record(job: SchedulerJob, pool: number): void {
    const lambda = this.options.lambda[job.category ?? 'other'];
    this.decision = { mode: this.modeName, pool, lambda, score: 0, runnerUp: null, reuseHit: false };
  }

  /** A task of `job` was placed on worker `w` in this pass. */
  placed(job: SchedulerJob, w: number): void {
    if (this.mode === 'round-robin') {
      this.cursor = w;
    } else if (this.mode === 'static-worker') {
      const root = rootOf(job.name);
      if (!this.roots.has(root)) this.roots.set(root, w);
      this.closedBy[w] ??= root;
    } else {
      const type = typeOf(job.name);
      if (!this.types.has(type)) this.types.set(type, this.snapshot.workers[w]!.id);
    }
  }

  /** The memory for the next pass: this mode's part updated, the others passed on as they came. */
  memory(): PlacementMemory {
    const given = this.snapshot.placementMemory ?? EMPTY_PLACEMENT_MEMORY;
    const workers = this.snapshot.workers;
    if (this.mode === 'round-robin') return { ...given, cursor: this.cursor < 0 ? null : workers[this.cursor]!.id };
    if (this.mode === 'fixed-pipeline') return { ...given, types: this.types };
    return { ...given, roots: this.liveRoots() };
  }

  /** static-worker bindings of roots with a task pending or running (see the header: lifetime). */
  private liveRoots(): Map<string, string> {
    const workers = this.snapshot.workers;
    const running = new Set<string>();
    for (const r of this.snapshot.running ?? []) running.add(rootOf(r.job));
    let pending: Set<string> | null = null;
    const roots = new Map<string, string>();
    for (const [root, w] of this.roots) {
      if (!running.has(root)) {
        // Only roots with nothing running need the (one) walk over the pending jobs.
        pending ??= new Set(Array.from(this.snapshot.jobs.keys(), rootOf));
        if (!pending.has(root)) continue;
      }
      roots.set(root, workers[w]!.id);
    }
    return roots;
  }
}
