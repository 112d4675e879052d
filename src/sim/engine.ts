/**
 * The simulation engine: replays a workload on a virtual clock through the live cluster's
 * scheduler (any `pass(snapshot, resourcesChanged) -> Plan`, normally the QueueScheduler).
 * Pure: no timers, no fs, no Date.now — the clock only moves from event to event.
 *
 * Invariants:
 * - Events at one time form one batch: completions (resources freed) and arrivals (tasks
 *   pending) are applied, then passes run until one places nothing. `resourcesChanged` is true
 *   for the first pass of a batch that had a completion.
 * - The snapshot is kept incrementally: the jobs map, pending list, running allocations and
 *   worker views are updated per event, never rebuilt from all jobs. The pending list is kept
 *   in queue order (the scheduler's comparator), so snapshots carry `pendingOrdered`.
 * - A placed task ends at start + min(run, time limit) (the limit is enforced, as live): within
 *   its limit an exit 0, stopped by it the live `timeout` outcome (TIMEOUT, and its job TIMEOUT:
 *   the simulator gives no retries). A job that ends stops its other running tasks at that
 *   instant (the lifecycle's job-end stop orders, carried out at once, not as preemptions): their
 *   capacity is free then and their completions are stale; its pending tasks leave the queue. The
 *   planner sees `endsAt = start + time limit`. With `predict`, a job without a limit of its own
 *   (SimJob.runsOf) is planned, from its submit on, with the runtime predicted from the last two
 *   ended runs of its key that were not stopped by their limit (planner/prediction.ts), and a
 *   running task's planned end is corrected at the first snapshot past it, as live.
 * - Children are submitted at their parent's first task start + `after`, and inherit the
 *   root's submit time (rootSubmittedAt) and depth + 1, like the live cluster.
 * - A task of a job that `wait`s does not end at the end of its run while a job of its subtree
 *   (arrived or still to arrive) has not ended: it waits, holding its memory and devices, and
 *   with `release` (the default) not its CPU, which goes back to the pool and out of the
 *   planner's running allocations, as the live controller's snapshot does. It ends when the last
 *   job of its subtree ends. Its time limit bounds its own run only: a run stopped by it ends
 *   TIMEOUT then and does not wait.
 * - The run stops when no event is left. Jobs still there in a tree with a waiting task are
 *   reported as deadlocked (deadlock.ts), the others as never started.
 * - A scheduler that offers `withoutReasons` (every policy of createScheduler) is run without reason text, the
 *   costliest part of a pass; only when jobs are left at the end is the workload run again with
 *   reasons, to report theirs. Both runs make the same plans (same starts).
 * - Jobs, tasks and attempts are the cluster's model records in the simulator's state (state.ts),
 *   changed only by the lifecycle's decisions (cluster/lifecycle: assign, markRunning,
 *   attemptEnded), as in the live store: a task starts ASSIGNED then RUNNING, a run's end is an
 *   exit 0 or a timeout, and its job ends when the lifecycle says so; an ended job leaves the state.
 * - Context reuse (cache.ts): a task of a job that `uses` models starts with their load time
 *   added to its run when its worker is not warm for them (the time limit still bounds it);
 *   snapshots carry `cacheHints`. A workload without `uses` creates no cache at all.
 * - With `elastic`, the live coordinator's decision is polled on the virtual clock (elastic.ts);
 *   a disabled worker takes no placements, and its disabled time is reported.
 * - Pipelines (needs.ts): a root job that `needs` others arrives when the last of them ends
 *   SUCCEEDED; one that ended otherwise skips it, by the live `--after` rule.
 * - Snapshots carry what the live one does for placement: job category/uses, worker cost per
 *   hour and the time of its last placement.
 * - With `preemption` (preemption.ts), a plan's preemptions are carried out as live, after its
 *   placements: each stopped task leaves `running` at once, but holds its capacity (its worker's
 *   and, as `stopping`, the planner's) until `grace` later, when it is released as a run's end is;
 *   its task is back in the queue at once and its next attempt runs its whole run again. Claims
 *   ride in the snapshot. A completion of an attempt that was stopped (by preemption or its job's
 *   end) is stale and skipped. Without preemption none of its part runs: running allocations carry
 *   no start, user or band, and no claims.
 * - With `order` other than fcfs, the ordering score of the root is put where the progress
 *   order reads the root's submit time (rootSubmittedAt), so the queue runs lowest score first,
 *   ties by task submit time and then arrival order.
 */
import { costPerHourOf } from '../model/types.js';
import { jobDepth } from '../model/names.js';
import { DEFAULT_CACHE_TTL_MS } from '../model/workload.js';
import type { Plan, RunningAllocation, SchedulerJob, Snapshot } from '../cluster/scheduler/types.js';
import type { Task } from '../model/types.js';
import { neverReason } from '../cluster/scheduler/placement/feasibility.js';
import { EventHeap } from '../model/heap.js';
import { PendingQueue } from './pending-queue.js';
import { WorkerPool } from './pool.js';
import type { PassScheduler, SimJobResult, SimOptions, SimResult, SimSample } from './results.js';
import { orderScore, type OrderName } from './scores.js';
import { jobResult, summarize } from './summary.js';
import { countJobs, type SimJob, type SimWorkload, type SkippedJob } from './workload.js';
import { classifyLeft } from './deadlock.js';
import { ContextCache } from './cache.js';
import { Pipelines } from './needs.js';
import { SimElastic } from './elastic.js';
import type { ActiveJob, Arrival, Completion, Held } from './engine-records.js';
import { SimState, modelJob, modelWorker } from './state.js';
import { schedulerJob } from '../cluster/lifecycle/scheduler-job.js';
import { queueConstraints, type QueueCatalog } from '../model/queues.js';
import { queueCatalog } from '../config/schema/queues.js';
import { plannedEnd, predictRuntime, RuntimeHistory, runRuntime } from '../cluster/scheduler/planner/index.js';
import { assignMerged, attemptEnded, markRunning } from '../cluster/lifecycle/attempts.js';
import { isFinalJobState, type AttemptOutcome } from '../model/states.js';
import type { StopOrder } from '../cluster/lifecycle/changes.js';
import { SimPreemptions } from './preemption.js';

export type {
  PassScheduler,
  SimJobResult,
  SimOptions,
  SimProgress,
  SimResult,
  SimSample,
  SimSummary,
} from './results.js';

export function simulate(workload: SimWorkload, options: SimOptions): SimResult {
  const quiet = options.scheduler.withoutReasons?.();
  if (!quiet) return new Engine(workload, options).run();
  const engine = new Engine(workload, { ...options, scheduler: quiet });
  const result = engine.run();
  if (!engine.leftJobs) return result;
  // Jobs were left in the queue: run again with reasons (same plans) to report why; the
  // progress of this second run is not reported again.
  const { onProgress: _progress, ...again } = options;
  return new Engine(workload, again).run();
}

class Engine {
  private readonly scheduler: PassScheduler;
  /** The workload's named queues (null: one queue), for the never-fit check. */
  private readonly queues: QueueCatalog | null;
  private readonly release: boolean;
  private readonly order: OrderName;
  private readonly progressEvery: number;
  private readonly queueDepth: number;
  private readonly pool: WorkerPool;

  private readonly jobs = new Map<string, SchedulerJob>();
  private readonly active = new Map<string, ActiveJob>();
  private readonly pending = new PendingQueue(this.jobs);
  /** Jobs, tasks and attempts, changed only by the lifecycle's decisions (state.ts). */
  private readonly state: SimState;
  private queuedJobs = 0;
  private readonly running = new Map<string, Held>();
  private runningList: RunningAllocation[] = [];
  private runningDirty = false;

  private readonly roots: readonly SimJob[];
  private readonly pipelines: Pipelines;
  private readonly cache: ContextCache | null;
  private readonly elastic: SimElastic | null;
  /** The batch being run is an elastic poll time. */
  private pollDue = false;
  private readonly costPerHour = new Map<string, number>();
  private cost = 0;
  private reuseStarts = 0;
  private reuseHits = 0;
  /** Task merging totals (SimSummary.merging); null when no job has a merge key. */
  private merging: { batches: number; mergedTasks: number; modelLoads: number } | null = null;
  private rootAt = 0;
  private readonly arrivals = new EventHeap<Arrival>();
  private readonly completions = new EventHeap<Completion>();
  /** With preemption: stopped tasks holding their capacity until their grace is over, by `task#attempt`. */
  private readonly stopping = new Map<string, Held>();
  private readonly releases = new EventHeap<Completion>();
  private readonly preemption: SimPreemptions | null;
  private seq = 0;
  private eventSeq = 0;

  private readonly results: SimJobResult[] = [];
  private readonly skipped: SkippedJob[];
  private readonly samples: SimSample[] = [];
  private readonly total: number;
  private busyCpuSeconds = 0;
  /** A task ended (or released its CPU) in the current batch. */
  private freed = false;
  private timeLimited = 0;
  private passes = 0;
  private batches = 0;
  private lastReasons = new Map<string, string>();
  private readonly arrivalSeq = new Map<string, number>();
  /** With predictions: the last runtimes per SimJob.runsOf key; null: predictions off. */
  private readonly history: RuntimeHistory | null;
  /** Running tasks planned with a prediction (their ends are corrected once outlived). */
  private predictedRunning = 0;

  constructor(
    workload: SimWorkload,
    private readonly options: SimOptions,
  ) {
    this.scheduler = options.scheduler;
    this.queues = queueCatalog(workload.queues ?? null);
    this.release = options.release ?? true;
    this.history = options.predict ? new RuntimeHistory() : null;
    this.order = options.order ?? 'fcfs';
    this.progressEvery = Math.max(1, options.progressEvery ?? 2000);
    this.queueDepth = options.queueDepth ?? Infinity;
    this.pool = new WorkerPool(workload.workers);
    this.pipelines = new Pipelines(workload.jobs);
    this.roots = this.pipelines.roots;
    this.state = new SimState(workload.workers.map(modelWorker), options.cacheTtl ?? DEFAULT_CACHE_TTL_S);
    const usesModels = countJobs(workload.jobs, (job) => (job.uses?.length ?? 0) > 0) > 0;
    if (countJobs(workload.jobs, (job) => job.mergeKey !== undefined) > 0)
      this.merging = { batches: 0, mergedTasks: 0, modelLoads: 0 };
    this.cache = usesModels ? new ContextCache(workload.models ?? {}, this.state) : null;
    for (const w of workload.workers) this.costPerHour.set(w.id, costPerHourOf(w));
    this.elastic = options.elastic ? new SimElastic(workload.workers, options.elastic) : null;
    this.preemption = options.preemption
      ? new SimPreemptions(options.preemption, (job) => (this.active.get(job)?.record.counts.PENDING ?? 0) > 0)
      : null;
    this.skipped = [...workload.skipped];
    this.total = countJobs(workload.jobs);
  }

  run(): SimResult {
    let start: number | null = null;
    let end = 0;
    for (;;) {
      const now = this.nextTime();
      if (now === null) break;
      start ??= now;
      this.elastic?.begin(now);
      this.batches++;
      this.freed = false;
      let eventful = false;
      while (this.nextCompletion()?.time === now) {
        eventful = true;
        this.runEnded(this.completions.pop()!.task, now);
      }
      while (this.releases.peek()?.time === now) this.released(this.releases.pop()!.task, now);
      for (;;) {
        const arrival = this.nextArrival(now);
        if (!arrival) break;
        eventful = true;
        this.submit(arrival, now);
      }
      if (this.pollDue && this.elastic!.poll(now, this.pending.size, this.pool)) this.freed = true;
      // A task leaving its exempt time changes what may be stopped: blocked jobs are looked at again.
      if (this.preemption?.wakeAt === now) this.freed = true;
      this.schedule(now, this.freed);
      this.preemption?.afterBatch(now, this.lastReasons, this.jobs, this.running.values());
      // A poll alone is not part of the workload's span.
      if (eventful) end = Math.max(end, now);
      this.samples.push({
        time: now,
        queued: this.queuedJobs,
        runningTasks: this.running.size,
        utilization: this.pool.utilization(),
      });
      if (this.options.onProgress && this.batches % this.progressEvery === 0) {
        this.options.onProgress({ now, finished: this.results.length, total: this.total, events: this.batches });
      }
    }
    return this.finish(start ?? 0, end);
  }

  private nextTime(): number | null {
    let t = Infinity;
    const root = this.roots[this.rootAt];
    if (root) t = root.submit;
    const child = this.arrivals.peek();
    if (child && child.time < t) t = child.time;
    const done = this.nextCompletion();
    if (done && done.time < t) t = done.time;
    const release = this.releases.peek();
    if (release && release.time < t) t = release.time;
    const wake = this.preemption?.wakeAt ?? null;
    if (wake !== null && wake < t) t = wake;
    const poll = this.elastic?.nextPoll(t !== Infinity, this.pending.size) ?? null;
    this.pollDue = poll !== null && poll <= t;
    if (this.pollDue) t = poll!;
    return t === Infinity ? null : t;
  }

  /** The next completion of an attempt still running (stale ones, of attempts stopped since, are dropped). */
  private nextCompletion(): Completion | undefined {
    for (;;) {
      const next = this.completions.peek();
      if (next === undefined || this.running.get(next.task)?.attempt === next.attempt) return next;
      this.completions.pop();
    }
  }

  private nextArrival(now: number): Arrival | null {
    const root = this.roots[this.rootAt];
    const child = this.arrivals.peek();
    if (root && root.submit === now) {
      this.rootAt++;
      return { time: now, seq: 0, spec: root, parent: null };
    }
    if (child && child.time === now) return this.arrivals.pop()!;
    return null;
  }

  private submit(arrival: Arrival, now: number): void {
    const spec = arrival.spec;
    const parent = arrival.parent;
    let rootKey: number;
    if (parent) rootKey = parent.sched.rootSubmittedAt;
    else if (this.order === 'fcfs') rootKey = now;
    else
      rootKey = orderScore(this.order, {
        submit: now,
        requestedTime: spec.timeLimit,
        procs: spec.procs,
        index: spec.index,
      });
    // The job as the cluster's model job (the root's ordering key as its root submit time).
    const depth = parent ? parent.sched.depth + 1 : jobDepth(spec.name);
    const record = modelJob(spec, depth, rootKey, now, this.seq);
    this.seq += 1 + spec.replicas;
    const estimate =
      this.history && spec.runsOf !== undefined
        ? predictRuntime(spec.timeLimit, true, this.history.runsOf(spec.runsOf))
        : null;
    const sched = schedulerJob(record.job, estimate);
    // A job of a named queue can run only on the queue's workers (model/queues.ts), as at the cluster's submit.
    const inQueue = queueConstraints(this.queues, spec.queue);
    const never = neverReason(
      inQueue.length === 0 ? sched : { ...sched, constraints: [...sched.constraints, ...inQueue] },
      this.pool.capacityViews(),
    );
    if (never !== null) {
      this.skipTree(spec, never);
      if (!parent) for (const dep of this.pipelines.skipped(spec.name)) this.skipTree(dep.job, dep.reason);
      this.descendantsEnded(parent, countJobs([spec]), now);
      return;
    }
    const job: ActiveJob = {
      spec,
      sched,
      estimate: estimate?.source === 'predicted' ? estimate : null,
      record: this.state.add(record.job, record.tasks, false),
      submit: now,
      start: null,
      end: now,
      workers: new Set(),
      timeLimited: false,
      parent,
      openDescendants: countJobs(spec.children),
      waiting: [],
      preemptions: 0,
      lostCpuSeconds: 0,
    };
    this.jobs.set(spec.name, sched);
    this.arrivalSeq.set(spec.name, sched.seq);
    this.active.set(spec.name, job);
    // Not waiting on anything: its PENDING tasks join the queue.
    this.pending.add(record.tasks);
    this.queuedJobs++;
  }

  /** `spec` and every job below it, parents first (depth-first, in order): a loop, trees may be deep. */
  private skipTree(spec: SimJob, reason: string): void {
    this.skipped.push({ name: spec.name, reason });
    const stack = [...spec.children].reverse();
    while (stack.length > 0) {
      const job = stack.pop()!;
      this.skipped.push({ name: job.name, reason: 'its parent job never ran' });
      for (let i = job.children.length - 1; i >= 0; i--) stack.push(job.children[i]!);
    }
  }

  private schedule(now: number, freed: boolean): void {
    let resourcesChanged = freed;
    while (this.pending.size > 0) {
      const plan = this.scheduler.pass(this.snapshot(now), resourcesChanged);
      this.passes++;
      resourcesChanged = false;
      this.lastReasons = plan.reasons;
      const placedJobs = new Set<string>();
      for (const placement of plan.placements) {
        if (this.state.task(placement.task)?.state !== 'PENDING') {
          throw new Error(`scheduler placed unknown or running task ${placement.task}`);
        }
        const members = placement.merged ?? [];
        this.place(placement.task, placement.job, placement.workerId, placement.deviceIndices, now, members);
        placedJobs.add(placement.job);
        for (const member of members) placedJobs.add(this.state.task(member)!.job);
      }
      if (placedJobs.size > 0) this.pending.compact();
      // Preemptions, after the placements, as live (a stopped task's queue place is its old one).
      if (plan.preemptions && this.preempt(plan.preemptions, now)) continue;
      if (placedJobs.size === 0) break;
      // Another pass at this instant, with no resource change and no new job, would start
      // nothing: the queue policy's pass says so (Plan.settled, queue/pass.ts); a first-fit pass
      // that looked at fewer jobs than its depth saw the whole queue.
      if (plan.settled === true || placedJobs.size + plan.reasons.size < this.queueDepth) break;
    }
  }

  private snapshot(now: number): Snapshot {
    if (this.predictedRunning > 0) this.correctPredictions(now);
    if (this.runningDirty) {
      this.runningList = [];
      for (const held of this.running.values()) this.runningList.push(held.allocation);
      for (const held of this.stopping.values()) this.runningList.push(held.allocation);
      this.runningDirty = false;
    }
    const claims = this.preemption?.claims(now);
    return {
      ...(claims ? { claims } : {}),
      now,
      ...(this.cache ? { cacheHints: this.state.hintsAt(now) } : {}),
      jobs: this.jobs,
      pending: this.pending.tasks(),
      pendingOrdered: true,
      workers: this.pool.views(),
      usage: EMPTY_USAGE,
      quotas: EMPTY_QUOTAS,
      running: this.runningList,
    };
  }

  /** Running tasks that outlived their predicted end get the next one (planner/prediction.ts plannedEnd). */
  private correctPredictions(now: number): void {
    for (const [taskId, held] of this.running) {
      if (!held.estimate || held.allocation.endsAt > now) continue;
      const limit = this.active.get(held.allocation.job)!.spec.timeLimit;
      const endsAt = plannedEnd(held.start, held.estimate, limit, now);
      if (endsAt === held.allocation.endsAt) continue;
      held.allocation = { ...held.allocation, endsAt };
      this.runningDirty = true;
    }
  }

  /**
   * Start `taskId` on `workerId`; `members`: a merged batch (cluster/scheduler/placement/merge.ts)
   * it serves too, as the live cluster does: one attempt with the lead's resources and the load of
   * what it uses once, serving the batch's data together (a batched model call): it lasts the load
   * plus the longest of the tasks' runs, within the lead's time limit (as live: one process, the
   * lead's limit). The members' attempts follow the lead's (lifecycle).
   */
  private place(
    taskId: string,
    jobName: string,
    workerId: string,
    devices: number[],
    now: number,
    members: readonly string[] = [],
  ): void {
    const job = this.active.get(jobName);
    if (!job || !this.pool.has(workerId))
      throw new Error(`scheduler placed ${taskId} on unknown job or worker ${workerId}`);
    const res = job.spec.resources;
    this.pool.take(workerId, res.cpuMillis, res.memoryBytes, devices, now);
    this.pending.take();
    const allocation: RunningAllocation = {
      task: taskId,
      job: jobName,
      workerId,
      cpuMillis: res.cpuMillis,
      memoryBytes: res.memoryBytes,
      devices: devices.length,
      endsAt: job.estimate ? plannedEnd(now, job.estimate, job.spec.timeLimit, now) : now + job.spec.timeLimit,
      // What victim selection reads (preemption/plan.ts), only when there is preemption.
      ...(this.preemption
        ? {
            startedAt: now,
            user: job.spec.user,
            ...(job.spec.band ? { band: job.spec.band } : {}),
            ...(job.spec.coschedule !== null ? { gang: true } : {}),
          }
        : {}),
    };
    let load = 0;
    if (this.cache && job.spec.uses) {
      const start = this.cache.start(workerId, job.spec.uses, now);
      load = start.load;
      this.reuseStarts++;
      if (start.hit) this.reuseHits++;
      if (load > 0 && this.merging) this.merging.modelLoads++;
    }
    // The lifecycle starts the task (and its merged members): a new attempt, running at once.
    const { attempt, items } = assignMerged(this.state, taskId, members, workerId, '', devices, null, now);
    this.state.run(items, now);
    this.state.run(markRunning(this.state, taskId, attempt.attempt, null, now), now);
    let run = job.spec.run;
    for (const member of members) {
      this.pending.take();
      const other = this.active.get(this.state.task(member)!.job)!;
      run = Math.max(run, other.spec.run);
      this.started(other, workerId, now);
    }
    if (members.length > 0 && this.merging) {
      this.merging.batches++;
      this.merging.mergedTasks += members.length;
    }
    const duration = Math.min(run + load, job.spec.timeLimit);
    this.running.set(taskId, {
      allocation,
      deviceIndices: devices,
      duration,
      timedOut: run + load > job.spec.timeLimit,
      attempt: attempt.attempt,
      start: now,
      estimate: job.estimate,
    });
    if (job.estimate) this.predictedRunning++;
    this.runningDirty = true;
    if (run + load > job.spec.timeLimit) job.timeLimited = true;
    this.completions.push({ time: now + duration, seq: this.eventSeq++, task: taskId, attempt: attempt.attempt });
    this.elastic?.taskStarted(workerId);
    this.started(job, workerId, now);
  }

  /** A task of `job` started on `workerId` (on its own or merged): the job's queue count and first start. */
  private started(job: ActiveJob, workerId: string, now: number): void {
    job.workers.add(workerId);
    if (job.record.counts.PENDING === 0) this.queuedJobs--;
    if (job.start === null) {
      job.start = now;
      for (const child of job.spec.children)
        this.arrivals.push({ time: now + child.submit, seq: this.eventSeq++, spec: child, parent: job });
    }
  }

  /**
   * Carry out a plan's preemptions (preemption.ts): the stopped tasks hold their capacity until the
   * grace is over and are back in the queue. True when any was carried out.
   */
  private preempt(preemptions: Plan['preemptions'] & object, now: number): boolean {
    const runOver = (task: string): boolean => {
      const held = this.running.get(task);
      return held !== undefined && this.active.get(held.allocation.job)!.waiting.includes(task);
    };
    const orders = this.preemption!.apply(this.state, preemptions, now, runOver);
    if (orders.length === 0) return false;
    const requeued = new Map<ActiveJob, Task[]>();
    const stopped = new Set<ActiveJob>();
    for (const order of orders) {
      const job = this.stopTask(order, now);
      if (job === null) continue;
      stopped.add(job);
      const task = this.state.task(order.task)!;
      if (task.state !== 'PENDING') continue;
      const tasks = requeued.get(job);
      if (tasks) tasks.push(task);
      else requeued.set(job, [task]);
    }
    for (const [job, tasks] of requeued) {
      if (isFinalJobState(job.record.job.state)) continue;
      if (job.record.counts.PENDING === tasks.length) this.queuedJobs++;
      tasks.sort((a, b) => a.index - b.index);
      this.pending.add(tasks);
    }
    // A task past its preemption budget ends its job as live (lifecycle/attempts.ts taskPreempted).
    for (const job of stopped)
      if (isFinalJobState(job.record.job.state)) {
        job.end = Math.max(job.end, now);
        this.finishJob(job, now);
      }
    return true;
  }

  /**
   * A running attempt stopped at `now`: it leaves `running` and holds its capacity until the grace is
   * over (released at once without one); its run until then is lost. Its job, or null when it was not running.
   */
  private stopTask(order: StopOrder, now: number): ActiveJob | null {
    const held = this.running.get(order.task);
    if (held === undefined || held.attempt !== order.attempt) return null;
    const p = this.preemption!;
    this.leaveRunning(order.task, held);
    const allocation = held.allocation;
    const job = this.active.get(allocation.job)!;
    const waiting = job.waiting.indexOf(order.task);
    if (waiting >= 0) job.waiting.splice(waiting, 1);
    const at = now + p.grace;
    const lost = this.charge(allocation, at - held.start);
    p.stopped++;
    p.lostCpuSeconds += lost;
    job.preemptions++;
    job.lostCpuSeconds += lost;
    held.allocation = { ...allocation, endsAt: at, stopping: true };
    const key = `${order.task}#${order.attempt}`;
    this.stopping.set(key, held);
    if (p.grace === 0) this.released(key, now);
    else this.releases.push({ time: at, seq: this.eventSeq++, task: key, attempt: order.attempt });
    return job;
  }

  /** A stopped task's grace is over: its capacity goes back to the pool. */
  private released(key: string, now: number): void {
    const { allocation, deviceIndices } = this.stopping.get(key)!;
    this.stopping.delete(key);
    this.freeCapacity(allocation, deviceIndices, now);
  }

  /** `taskId` (held as `held`) is no longer running: out of `running` and its prediction count. */
  private leaveRunning(taskId: string, held: Held): void {
    this.running.delete(taskId);
    if (held.estimate) this.predictedRunning--;
    this.runningDirty = true;
  }

  /** An allocation's run of `seconds` counts as busy CPU time and cost; its CPU-seconds. */
  private charge(allocation: Held['allocation'], seconds: number): number {
    const cpuSeconds = (allocation.cpuMillis / 1000) * seconds;
    this.busyCpuSeconds += cpuSeconds;
    this.cost += (seconds * this.costPerHour.get(allocation.workerId)!) / 3600;
    return cpuSeconds;
  }

  /** An allocation's whole capacity goes back to its worker's pool at `now`. */
  private freeCapacity(allocation: Held['allocation'], deviceIndices: Held['deviceIndices'], now: number): void {
    this.runningDirty = true;
    this.freed = true;
    this.pool.release(allocation.workerId, allocation.cpuMillis, allocation.memoryBytes, deviceIndices);
    this.elastic?.taskEnded(allocation.workerId, now);
  }

  /** A task's run is over: it ends, or waits for its subtree. */
  private runEnded(taskId: string, now: number): void {
    const held = this.running.get(taskId)!;
    const job = this.active.get(held.allocation.job)!;
    this.charge(held.allocation, held.duration);
    this.freed = true;
    // A run stopped by its limit ends TIMEOUT at once, as live (its process is gone): it does not wait.
    if (held.timedOut) this.endTask(taskId, now, TIMED_OUT);
    else if (job.spec.wait && job.openDescendants > 0) this.startWaiting(job, taskId, held);
    else this.endTask(taskId, now);
  }

  /** The task keeps its memory and devices; with release its CPU goes back to the pool. */
  private startWaiting(job: ActiveJob, taskId: string, held: Held): void {
    job.waiting.push(taskId);
    if (!this.release) return;
    const allocation = held.allocation;
    this.pool.release(allocation.workerId, allocation.cpuMillis, 0, []);
    held.allocation = { ...allocation, cpuMillis: 0 };
    this.runningDirty = true;
  }

  /**
   * The run of `taskId` is over with `outcome`: it leaves `running`, and the lifecycle ends its
   * attempt (and those merged into it); a job that ends stops its other running tasks (job-end stop
   * orders, carried out here, not preemptions) and kills its pending ones, which leave the queue.
   */
  private endTask(taskId: string, now: number, outcome: AttemptOutcome = SUCCEEDED): void {
    const held = this.running.get(taskId)!;
    const { allocation, deviceIndices, attempt } = held;
    this.leaveRunning(taskId, held);
    this.freeCapacity(allocation, deviceIndices, now);
    const job = this.active.get(allocation.job)!;
    // The lifecycle ends the attempt (its hints, its task, its job when it was the last), and
    // those of the tasks merged into it.
    const merged = this.state.attempt(taskId, attempt)?.merged?.tasks ?? [taskId];
    const touched = new Map<ActiveJob, number>([[job, job.record.counts.PENDING]]);
    this.touch(touched, merged);
    this.state.run(attemptEnded(this.state, taskId, attempt, outcome, now), now);
    this.carryOutJobEndStops(touched, now);
    for (const [other, pendingBefore] of touched) {
      if (!this.active.has(other.spec.name)) continue;
      other.end = Math.max(other.end, now);
      if (!isFinalJobState(other.record.job.state)) continue;
      // Its pending tasks were killed with it: they leave the queue (and it the queued count).
      const killed = pendingBefore - other.record.counts.PENDING;
      if (killed > 0) {
        for (let i = 0; i < killed; i++) this.pending.take();
        this.pending.compact();
      }
      if (pendingBefore > 0) this.queuedJobs--;
      this.finishJob(other, now);
    }
  }

  /** The active jobs of the tasks `ids`, with their PENDING counts now, join `touched`. */
  private touch(touched: Map<ActiveJob, number>, ids: readonly string[]): void {
    for (const id of ids) {
      const other = this.active.get(this.state.task(id)?.job ?? '');
      if (other !== undefined && !touched.has(other)) touched.set(other, other.record.counts.PENDING);
    }
  }

  /**
   * The stop orders of a job that ended (lifecycle: its other live tasks are stopped): each stopped
   * task leaves `running` and frees its capacity at once; its completion is stale from then on
   * (nextCompletion drops it). Its run until now counts as busy time. Their jobs join `touched`.
   */
  private carryOutJobEndStops(touched: Map<ActiveJob, number>, now: number): void {
    if (this.state.stops.length === 0) return;
    for (const order of this.state.stops.splice(0)) {
      const held = this.running.get(order.task);
      if (held === undefined || held.attempt !== order.attempt) continue;
      this.leaveRunning(order.task, held);
      const { allocation, deviceIndices } = held;
      const job = this.active.get(allocation.job)!;
      const waiting = job.waiting.indexOf(order.task);
      // A waiting task's run was counted when it ended; a running one's counts until now.
      if (waiting >= 0) job.waiting.splice(waiting, 1);
      else this.charge(allocation, now - held.start);
      this.freeCapacity(allocation, deviceIndices, now);
      this.touch(touched, this.state.attempt(order.task, order.attempt)?.merged?.tasks ?? [order.task]);
    }
  }

  private finishJob(job: ActiveJob, now: number): void {
    this.active.delete(job.spec.name);
    this.jobs.delete(job.spec.name);
    // A run its limit did not stop joins its key's history (the live cluster keeps successful
    // runs), per task as live (planner/prediction.ts runRuntime over the final attempts).
    const record = !job.timeLimited && this.history !== null && job.spec.runsOf !== undefined;
    const runtime = record ? this.runtimeOf(job.spec.name) : null;
    this.state.remove(job.spec.name);
    if (job.timeLimited) this.timeLimited++;
    else if (runtime !== null) this.history!.record(job.spec.runsOf!, runtime);
    const state = job.record.job.state;
    this.results.push(jobResult({ ...job, start: job.start!, state }));
    this.descendantsEnded(job.parent, 1, now);
    if (!job.parent) {
      // Its pipeline stages see its end as live `--after` dependents do (needs.ts).
      const { released, skipped } = this.pipelines.ended(job.spec.name, state);
      for (const next of released) {
        this.arrivals.push({ time: Math.max(now, next.submit), seq: this.eventSeq++, spec: next, parent: null });
      }
      for (const dep of skipped) this.skipTree(dep.job, dep.reason);
    }
  }

  /** A finished job's runtime per task, from its tasks' final attempts (null: none succeeded). */
  private runtimeOf(name: string): number | null {
    const record = this.state.job(name);
    if (record === undefined) return null;
    return runRuntime(record.tasks.map((t) => this.state.attempt(t.id, t.attempt)));
  }

  /** `count` jobs under `parent` ended (or were skipped): waiters whose subtree is done end now. */
  private descendantsEnded(parent: ActiveJob | null, count: number, now: number): void {
    for (let p = parent; p !== null; p = p.parent) {
      p.openDescendants -= count;
      if (p.openDescendants > 0 || p.waiting.length === 0) continue;
      const waiting = p.waiting;
      p.waiting = [];
      for (const task of waiting) this.endTask(task, now);
    }
  }

  /** After run(): some job was left in the queue (unfinished or deadlocked). */
  get leftJobs(): boolean {
    return this.active.size > 0;
  }

  private finish(start: number, end: number): SimResult {
    const { unfinished, deadlocked } = classifyLeft(
      this.active.values(),
      this.lastReasons,
      this.release,
      this.pipelines.held(),
    );
    // Report jobs in arrival order (submit time, then submission sequence).
    this.results.sort((a, b) => a.submit - b.submit || this.arrivalSeq.get(a.name)! - this.arrivalSeq.get(b.name)!);
    const elastic = this.elastic;
    const summary = summarize(this.results, {
      start,
      end,
      skipped: this.skipped.length,
      unfinished: unfinished.length,
      deadlocked: deadlocked.length,
      busyCpuSeconds: this.busyCpuSeconds,
      totalCpu: this.pool.totalCpu,
      timeLimited: this.timeLimited,
      disabledWorkerHours: elastic ? elastic.disabledWorkerHours(end) : null,
      fleetCostPerHour: [...this.costPerHour.values()].reduce((sum, c) => sum + c, 0),
      disabledCost: elastic ? elastic.disabledCost(end) : 0,
      cost: this.cost,
      reuseStarts: this.reuseStarts,
      reuseHits: this.reuseHits,
      ...(this.merging ? { merging: this.merging } : {}),
      passes: this.passes,
      batches: this.batches,
      ...(this.preemption
        ? { preemption: { tasks: this.preemption.stopped, lostCpuSeconds: this.preemption.lostCpuSeconds } }
        : {}),
    });
    return { summary, jobs: this.results, skipped: this.skipped, unfinished, deadlocked, samples: this.samples };
  }
}

/** How long a context-reuse hint stays fresh by default (s): the cluster's `placement.cache-ttl`. */
export const DEFAULT_CACHE_TTL_S = DEFAULT_CACHE_TTL_MS / 1000;

/** A replayed task whose run ends within its time limit exits 0. */
const SUCCEEDED: AttemptOutcome = { kind: 'exited', exitCode: 0 };
/** A replayed task whose run outlasts its time limit is stopped by it, as live: TIMEOUT. */
const TIMED_OUT: AttemptOutcome = { kind: 'timeout' };

const EMPTY_USAGE = new Map();
const EMPTY_QUOTAS = new Map();
