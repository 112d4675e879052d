/**
 * The baseline placement modes (docs/configuration.md, "Placement modes"; issue 15 §3), pure: the
 * dispatchers adaptive placement is compared against, as scorers (scoring.ts) that rule out every
 * worker but the ones a binding allows (score 0 for those, −Infinity for the rest; selection
 * `min-satisfying` is a tie-breaker, registry.ts). Each pass's instance reads what earlier passes
 * decided from `snapshot.placementMemory` and gives the next memory out (`memory`, put in
 * Plan.placementMemory). Nothing else is kept: the scheduler stays a function.
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
 * runner-up (record `pool`).
 */
import type { PlacementMemory, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { covers } from './filters.js';
import {
  EMPTY_PLACEMENT_MEMORY as EMPTY,
  type PassScorer,
  type ScoringPass,
  type TaskPool,
  type WorkerScorer,
} from './scoring.js';

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
  const type = last
    .split('-')
    .filter((part) => !/^\d+$/.test(part))
    .join('-');
  return type === '' ? last : type;
}

/** Position of the first entry of ascending `sorted` above `w`. */
function upperBound(sorted: ArrayLike<number>, w: number): number {
  let lo = 0,
    hi = sorted.length;
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

/** What a task may use this pass (`allowed`): one bound worker (its index), every open worker, or none. */
const OPEN = -1,
  NONE = -2;

function indexOf(snapshot: Snapshot): Map<string, number> {
  const index = new Map<string, number>();
  snapshot.workers.forEach((worker, w) => index.set(worker.id, w));
  return index;
}

/** No candidate at all (a bound task whose worker cannot take it now). */
const NO_WORKERS = new Int32Array(0);

/**
 * Where a task bound to worker `w` may go, before feasibility: `w`; NONE with the reason (`lead`,
 * the worker, why) when it takes no work or is closed (`owner`: the other root it runs, for
 * static-worker); OPEN when `w` can never hold the job (too big, another device, a constraint or
 * stickiness naming another worker): it is placed as if unbound. Whether `w` has room now is
 * asked of the pool afterwards (`busy`).
 */
function boundTo(
  snapshot: Snapshot,
  job: SchedulerJob,
  w: number,
  candidates: ArrayLike<number>,
  owner: string | undefined,
  lead: string,
  reasons: Map<string, string>,
): number {
  const worker = snapshot.workers[w]!;
  const canHold =
    contains(candidates, w) &&
    covers(worker.capacity.cpuMillis, worker.capacity.memoryBytes, worker.device.count, job.resources);
  if (worker.schedulable && !canHold) return OPEN;
  let why: string | null = null;
  if (!worker.schedulable) why = `which takes no work now (${worker.disabled ?? 'not ready'})`;
  else if (owner !== undefined) why = `which is busy with ${owner}`;
  if (why === null) return w;
  reasons.set(job.name, `${lead} ${worker.id}, ${why}`);
  return NONE;
}

/** What `narrow` gives for `allowed`: the bound worker alone (in `one`), no worker, or null: every candidate. */
function narrowTo(allowed: number, one: Int32Array): ArrayLike<number> | null {
  if (allowed === OPEN) return null;
  if (allowed === NONE) return NO_WORKERS;
  one[0] = allowed;
  return one;
}

/** A bound worker (`allowed` ≥ 0) with no room now: the reason says it is busy. */
function busy(
  snapshot: Snapshot,
  job: SchedulerJob,
  allowed: number,
  pool: TaskPool,
  lead: string,
  reasons: Map<string, string>,
): void {
  if (allowed < 0 || pool.count > 0) return;
  reasons.set(job.name, `${lead} ${snapshot.workers[allowed]!.id}, which is busy`);
}

const STATIC_LEAD = 'static-worker: bound to';

/** static-worker (see the header). */
class StaticWorker implements PassScorer {
  readonly perJob = true;
  private readonly roots = new Map<string, number>();
  /** Worker index -> the root running there (the worker is closed to others). */
  private readonly closedBy: Array<string | undefined>;
  private readonly reasons = new Map<string, string>();
  private readonly one = new Int32Array(1);
  private root = '';
  private allowed = OPEN;

  constructor(private readonly snapshot: Snapshot) {
    this.closedBy = new Array<string | undefined>(snapshot.workers.length);
    const index = indexOf(snapshot);
    const runningOn = new Map<string, Set<number>>();
    for (const r of snapshot.running ?? []) {
      const w = index.get(r.workerId);
      if (w === undefined) continue;
      const root = rootOf(r.job);
      this.closedBy[w] ??= root;
      let on = runningOn.get(root);
      if (!on) runningOn.set(root, (on = new Set()));
      on.add(w);
    }
    // The remembered worker, while it takes work or the root still runs there; else where it runs.
    for (const [root, id] of (snapshot.placementMemory ?? EMPTY).roots) {
      const w = index.get(id);
      if (w !== undefined && (snapshot.workers[w]!.schedulable || runningOn.get(root)?.has(w))) this.roots.set(root, w);
    }
    for (const [root, on] of runningOn) if (!this.roots.has(root)) this.roots.set(root, on.values().next().value!);
  }

  narrow(job: SchedulerJob, _task: SchedulerTask, candidates: ArrayLike<number>): ArrayLike<number> | null {
    const root = rootOf(job.name);
    this.root = root;
    const bound = this.roots.get(root);
    this.allowed = OPEN;
    if (bound !== undefined) {
      const owner = this.closedBy[bound];
      const other = owner !== undefined && owner !== root ? owner : undefined;
      this.allowed = boundTo(this.snapshot, job, bound, candidates, other, STATIC_LEAD, this.reasons);
    }
    return narrowTo(this.allowed, this.one);
  }

  prepare(job: SchedulerJob, _task: SchedulerTask, pool: TaskPool): void {
    busy(this.snapshot, job, this.allowed, pool, STATIC_LEAD, this.reasons);
    if (this.allowed !== OPEN || pool.count === 0) return;
    for (let i = 0; i < pool.count; i++) if (this.open(pool.feasible[i]!)) return;
    this.reasons.set(job.name, 'static-worker: every worker with room for it runs another submission');
  }

  private open(w: number): boolean {
    const owner = this.closedBy[w];
    return owner === undefined || owner === this.root;
  }

  score(_job: SchedulerJob, _task: SchedulerTask, w: number): number {
    const allowed = this.allowed;
    if (allowed === OPEN) return this.open(w) ? 0 : -Infinity;
    return w === allowed ? 0 : -Infinity;
  }

  placed(job: SchedulerJob, w: number): void {
    const root = rootOf(job.name);
    if (!this.roots.has(root)) this.roots.set(root, w);
    this.closedBy[w] ??= root;
  }

  reasonFor(job: string): string | null {
    return this.reasons.get(job) ?? null;
  }

  /** Bindings of roots with a task pending or running (see the header: lifetime). */
  memory(given: PlacementMemory): PlacementMemory {
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
    return { ...given, roots };
  }
}

/** fixed-pipeline (see the header). */
class FixedPipeline implements PassScorer {
  readonly perJob = true;
  private readonly index: Map<string, number>;
  /** Task type -> worker id. */
  private readonly types: Map<string, string>;
  private readonly reasons = new Map<string, string>();
  private readonly one = new Int32Array(1);
  private allowed = OPEN;
  private lead = '';

  constructor(private readonly snapshot: Snapshot) {
    this.index = indexOf(snapshot);
    this.types = new Map([...(snapshot.placementMemory ?? EMPTY).types].filter(([, id]) => this.index.has(id)));
  }

  narrow(job: SchedulerJob, _task: SchedulerTask, candidates: ArrayLike<number>): ArrayLike<number> | null {
    const type = typeOf(job.name);
    const id = this.types.get(type);
    this.allowed = OPEN;
    if (id !== undefined) {
      this.lead = `fixed-pipeline: type ${type} runs only on`;
      this.allowed = boundTo(this.snapshot, job, this.index.get(id)!, candidates, undefined, this.lead, this.reasons);
    }
    return narrowTo(this.allowed, this.one);
  }

  prepare(job: SchedulerJob, _task: SchedulerTask, pool: TaskPool): void {
    busy(this.snapshot, job, this.allowed, pool, this.lead, this.reasons);
  }

  score(_job: SchedulerJob, _task: SchedulerTask, w: number): number {
    const allowed = this.allowed;
    return allowed === OPEN || w === allowed ? 0 : -Infinity;
  }

  placed(job: SchedulerJob, w: number): void {
    const type = typeOf(job.name);
    if (!this.types.has(type)) this.types.set(type, this.snapshot.workers[w]!.id);
  }

  reasonFor(job: string): string | null {
    return this.reasons.get(job) ?? null;
  }

  memory(given: PlacementMemory): PlacementMemory {
    return { ...given, types: this.types };
  }
}

/** round-robin: the first worker after the one that took the last task scores highest, wrapping around. */
class RoundRobin implements PassScorer {
  /** Index of the worker that took the last task; -1: none. */
  private cursor = -1;

  constructor(private readonly snapshot: Snapshot) {
    const cursor = (snapshot.placementMemory ?? EMPTY).cursor;
    if (cursor !== null) this.cursor = indexOf(snapshot).get(cursor) ?? -1;
  }

  score(_job: SchedulerJob, _task: SchedulerTask, w: number): number {
    return w > this.cursor ? -w : -(w + this.snapshot.workers.length);
  }

  placed(_job: SchedulerJob, w: number): void {
    this.cursor = w;
  }

  memory(given: PlacementMemory): PlacementMemory {
    return { ...given, cursor: this.cursor < 0 ? null : this.snapshot.workers[this.cursor]!.id };
  }
}

export const STATIC_WORKER: WorkerScorer = Object.freeze({
  name: 'static-worker',
  begin: ({ snapshot }: ScoringPass): PassScorer => new StaticWorker(snapshot),
});

export const FIXED_PIPELINE: WorkerScorer = Object.freeze({
  name: 'fixed-pipeline',
  begin: ({ snapshot }: ScoringPass): PassScorer => new FixedPipeline(snapshot),
});

export const ROUND_ROBIN: WorkerScorer = Object.freeze({
  name: 'round-robin',
  begin: ({ snapshot }: ScoringPass): PassScorer => new RoundRobin(snapshot),
});
