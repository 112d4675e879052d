/**
 * The live cluster's queue kept in queue order between passes (scheduler/queue/order.ts, without
 * fair-share keys), so that a pass reads only as far into it as it needs (snapshot.ts, a
 * `pendingOrdered` snapshot) instead of grouping and sorting every pending job each time.
 *
 * Guarantees:
 * - `tasks()` gives exactly the store's queued tasks (store.queuedTasks()) in comparePending order:
 *   the same list a sort of them would give (test/cluster/controller/ordered-queue.test.ts checks
 *   it against orderTasks over random arrivals, starts, cancels, retries and band changes).
 * - Cost per call: one O(log n) search per task that joined the queue since the last call (the
 *   store's queue log: ClusterModel.logQueue) and its insertion, or, for more than MERGE_AT of
 *   them, one sort of those and a merge; plus one pass over the list that drops the tasks that
 *   left it (a Set lookup each up to the last one, then a move). A band change sorts it again.
 * - `eligible(now)` leaves out the tasks waiting out a retry backoff and says when the first
 *   one's ends, looking only at the tasks given a backoff (the log names them too).
 * - `leastAsked()` bounds what any listed task asks (counts per resource shape, kept with the
 *   list), so a pass that asks what the rest of the queue could use reads no further.
 * - Reads only the store; holds the store's own task objects (read-only).
 */
import { acceleratorsOf, comparePending, type JobKeys } from '../scheduler/index.js';
import type { ClusterStore } from '../state/store.js';
import type { Job, Task } from '../../model/types.js';

/** A job's queue keys, made once per job and spec (a band change replaces the spec). */
const keysOfJob = new WeakMap<Job, { spec: Job['spec']; keys: JobKeys }>();

function jobKeys(job: Job): JobKeys {
  const kept = keysOfJob.get(job);
  if (kept && kept.spec === job.spec) return kept.keys;
  const keys: JobKeys = {
    band: job.spec.band,
    depth: job.depth,
    user: job.spec.user,
    rootSubmittedAt: job.rootSubmittedAt,
  };
  keysOfJob.set(job, { spec: job.spec, keys });
  return keys;
}

/** More arrivals than this between two reads are merged with the list rather than inserted one by one. */
const MERGE_AT = 32;

interface Shape {
  key: string;
  cpuMillis: number;
  memoryBytes: number;
  devices: number;
  tasks: number;
}

export class OrderedQueue {
  /** In queue order; may hold tasks that left the queue since the last `tasks()`. */
  private list: Task[] = [];
  /** Each listed task's shape (counted in `shapes`). */
  private readonly listed = new Map<Task, Shape | null>();
  private readonly jobs: Pick<ReadonlyMap<string, JobKeys>, 'get'>;
  /** The tasks the last `tasks()` added (all of them after a sort). */
  arrived: readonly Task[] = [];
  /** Listed tasks that had a retry backoff (`eligibleAt`) when last looked at: the only ones that may wait. */
  private readonly backoff = new Set<Task>();
  /** Listed tasks per resource shape (few shapes, many tasks): what the least ask is read from. */
  private readonly shapes = new Map<string, Shape>();

  constructor(private readonly store: ClusterStore) {
    store.logQueue();
    this.jobs = {
      get: (name) => {
        const job = store.job(name);
        return job ? jobKeys(job) : undefined;
      },
    };
  }

  /** The queued tasks in queue order (the array is this queue's own: read it before the next call). */
  tasks(): Task[] {
    const queued = this.store.queuedTasks();
    const log = this.store.takeQueueLog();
    if (log.reorder) return this.sortAll(queued);
    // Every queued task is listed or in the log (a task may be in it twice: queued, started, requeued).
    const fresh: Task[] = [];
    for (const task of log.arrivals) {
      if (!queued.has(task)) continue;
      if (task.eligibleAt !== null) this.backoff.add(task);
      if (this.listed.has(task)) continue;
      this.enlist(task);
      fresh.push(task);
    }
    this.drop(queued, this.list.length + fresh.length - queued.size);
    if (fresh.length > MERGE_AT) this.merge(fresh);
    else for (const task of fresh) this.insert(task);
    this.arrived = fresh;
    return this.list;
  }

  private compare = (a: Task, b: Task): number => comparePending(a, b, this.jobs);

  /**
   * After `tasks()`: those a pass may place at `now`, the list less the tasks waiting out a retry
   * backoff (the list itself when none waits: a copy only while one does).
   */
  eligible(now: number): Task[] {
    return this.nextEligible(now) === null ? this.list : this.list.filter((t) => !this.waits(t));
  }

  /** Whether a listed task waits out a retry backoff at the `now` of the last `eligible` or `nextEligible`. */
  waits(task: Task): boolean {
    return this.backoff.has(task);
  }

  /** When the first listed task waiting out a retry backoff may start (null: none waits); costs the tasks in one. */
  nextEligible(now: number): number | null {
    let next: number | null = null;
    for (const task of this.backoff) {
      const at = task.eligibleAt;
      if (at === null || at <= now)
        this.backoff.delete(task); // eligible from now on
      else if (next === null || at < next) next = at;
    }
    return next;
  }

  /**
   * At most what any listed task asks of each resource (Snapshot.leastAsked): the least over the
   * shapes of the tasks listed by the last `tasks()` (a bound: it counts tasks in a retry backoff).
   */
  leastAsked(): { cpuMillis: number; memoryBytes: number; devices: number } {
    const least = { cpuMillis: Infinity, memoryBytes: Infinity, devices: Infinity };
    for (const shape of this.shapes.values()) {
      least.cpuMillis = Math.min(least.cpuMillis, shape.cpuMillis);
      least.memoryBytes = Math.min(least.memoryBytes, shape.memoryBytes);
      least.devices = Math.min(least.devices, shape.devices);
    }
    return least;
  }

  /** List `task`, counting it in its shape. */
  private enlist(task: Task): void {
    const resources = this.store.job(task.job)?.spec.resources;
    if (!resources) {
      this.listed.set(task, null);
      return;
    }
    const devices = acceleratorsOf(resources);
    const key = `${resources.cpuMillis}/${resources.memoryBytes}/${devices}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = { key, cpuMillis: resources.cpuMillis, memoryBytes: resources.memoryBytes, devices, tasks: 0 };
      this.shapes.set(key, shape);
    }
    shape.tasks++;
    this.listed.set(task, shape);
  }

  /** Unlist `task`, counting it out of its shape. */
  private unlist(task: Task): void {
    const shape = this.listed.get(task);
    this.listed.delete(task);
    this.backoff.delete(task);
    if (shape && --shape.tasks === 0) this.shapes.delete(shape.key);
  }

  private sortAll(queued: ReadonlySet<Task>): Task[] {
    this.list = [...queued].sort(this.compare);
    this.listed.clear();
    this.shapes.clear();
    this.backoff.clear();
    for (const task of this.list) {
      this.enlist(task);
      if (task.eligibleAt !== null) this.backoff.add(task);
    }
    this.arrived = this.list;
    return this.list;
  }

  /** Drop the `stale` listed tasks that left the queue, keeping the order (in place, from the head). */
  private drop(queued: ReadonlySet<Task>, stale: number): void {
    const list = this.list;
    let kept = 0;
    let i = 0;
    for (; i < list.length && stale > 0; i++) {
      const task = list[i]!;
      if (queued.has(task)) list[kept++] = task;
      else {
        this.unlist(task);
        stale--;
      }
    }
    if (kept === i) return;
    for (; i < list.length; i++) list[kept++] = list[i]!;
    list.length = kept;
  }

  /** Many arrivals at once: sorted, then merged with the list in one walk (no insertion each). */
  private merge(fresh: Task[]): void {
    fresh.sort(this.compare);
    const list = this.list;
    const out = new Array<Task>(list.length + fresh.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < list.length && j < fresh.length)
      out[k++] = this.compare(list[i]!, fresh[j]!) <= 0 ? list[i++]! : fresh[j++]!;
    while (i < list.length) out[k++] = list[i++]!;
    while (j < fresh.length) out[k++] = fresh[j++]!;
    this.list = out;
  }

  private insert(task: Task): void {
    const list = this.list;
    let lo = 0;
    let hi = list.length;
    // Most arrivals are new roots: they go last.
    if (hi === 0 || this.compare(list[hi - 1]!, task) < 0) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(list[mid]!, task) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === list.length) list.push(task);
    else list.splice(lo, 0, task);
  }
}
