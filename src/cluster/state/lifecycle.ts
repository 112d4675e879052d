/**
 * The store's side of the lifecycle (cluster/lifecycle decides; this applies): the in-memory model
 * seen through LifecycleView, and the one applier of lifecycle changes to it. Store methods call a
 * decision inside their transaction and run its items here (lifecycle/reconcile.ts), so every
 * change goes through the model's primitives (model.ts: undo, rows to write, change events,
 * history) in the lifecycle's order, and the stop orders come back to the controller.
 */
import type { JobEnd } from '../lifecycle/cascade.js';
import type { Change, Item, JobRecord, LifecycleView, StopOrder, TaskResults } from '../lifecycle/changes.js';
import { endJobs, reconcile, type Reconciler } from '../lifecycle/reconcile.js';
import type { Attempt, Job, Task, Worker } from '../../model/types.js';
import { attemptHistoryName } from './events.js';
import type { ClusterModel, JobEntry } from './model.js';

/** The results of a job's tasks (their latest attempts), read from the results table. */
export type ResultsOf = (job: Job) => TaskResults;

const NONE: ReadonlySet<string> = new Set();

/** The model as the lifecycle reads it (read-only lookups, no copies). */
class ModelView implements LifecycleView {
  constructor(
    private readonly m: ClusterModel,
    private readonly results: ResultsOf,
  ) {}

  job(name: string): JobEntry | undefined {
    return this.m.jobs.get(name);
  }

  task(id: string): Task | undefined {
    return this.m.tasks.get(id);
  }

  attempt(task: string, n: number): Attempt | undefined {
    return this.m.attempts.get(task)?.[n];
  }

  liveAttempt(task: string): Attempt | undefined {
    return this.m.active.get(task);
  }

  liveAttempts(): Iterable<Attempt> {
    return this.m.active.values();
  }

  children(job: string): Iterable<string> {
    return this.m.children.get(job) ?? NONE;
  }

  dependents(job: string): Iterable<string> {
    return this.m.dependents.get(job) ?? NONE;
  }

  worker(id: string): Worker | undefined {
    return this.m.workers.get(id);
  }

  hints(worker: string): ReadonlyMap<string, number> | undefined {
    return this.m.cacheHints.get(worker);
  }

  get hintTtl(): number {
    return this.m.cacheTtlMs;
  }

  resultsOf(job: Job): TaskResults {
    return this.results(job);
  }
}

export class StoreLifecycle implements Reconciler {
  readonly view: LifecycleView;
  /** The time of the decision being applied, and where its stop orders go (set by `run`). */
  now = 0;
  private stops: StopOrder[] = [];

  constructor(
    private readonly m: ClusterModel,
    resultsOf: ResultsOf = () => new Map(),
  ) {
    this.view = new ModelView(m, resultsOf);
  }

  /**
   * Within a transaction: take `decision` (given the view and the time) and apply its items; the
   * attempts to stop in the runtime, in order.
   */
  decide(decision: (view: LifecycleView, now: number) => readonly Item[]): StopOrder[] {
    const now = this.m.now();
    return this.run(decision(this.view, now), now);
  }

  /** Within a transaction: apply the items of a decision taken at `now`; the attempts to stop, in order. */
  run(items: readonly Item[], now: number): StopOrder[] {
    const outerNow = this.now;
    const outerStops = this.stops;
    const stops: StopOrder[] = [];
    this.now = now;
    this.stops = stops;
    try {
      reconcile(this, items);
    } finally {
      this.now = outerNow;
      this.stops = outerStops;
    }
    return stops;
  }

  /** A job's end and its cascade (lifecycle/reconcile.ts endJobs). */
  endJob(end: JobEnd<JobRecord>): void {
    endJobs(this, end);
  }

  /** The one applier: a lifecycle change through the model's primitives (a stop order is collected). */
  apply(c: Change): void {
    const m = this.m;
    switch (c.kind) {
      case 'stop':
        this.stops.push(c.order);
        return;
      case 'job':
        m.patchJob(c.job, c.patch);
        return;
      case 'task':
        m.patchTask(c.task, c.patch);
        return;
      case 'attempt-start':
        m.addAttempt(c.attempt);
        return;
      case 'attempt':
        m.patchAttempt(c.attempt, c.patch);
        return;
      case 'requeue':
        m.recordRequeue(attemptHistoryName(c.task, c.attempt), c.job, c.reason, c.detail, c.run);
        return;
      case 'release':
        m.releaseJob(m.jobs.get(c.job.job.name)!);
        return;
      case 'endpoints-dropped':
        m.dropEndpointsOf(c.task);
        return;
      case 'worker':
        m.putWorker(c.worker);
        return;
      case 'hint':
        m.putCacheHint(c.worker, c.key, c.expiresAt);
        return;
    }
  }
}
