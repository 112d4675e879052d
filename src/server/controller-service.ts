/**
 * The controller's side of the socket API (ClusterService): admits submissions with the one
 * admission rule set (src/cluster/admission) against the cluster as it is now, checks that a
 * container engine answers for image jobs (I/O, so here), writes through the store, and turns
 * the store's stop orders into runtime stops via the controller.
 */
import path from 'node:path';
import { removeRunLogs } from '../cluster/controller/prune.js';
import type { ClusterService, SubmitOrigin } from './cluster-service.js';
import type { TaskCaller } from '../model/caller.js';
import { bandOf, type Band } from '../model/band.js';
import { describeQueueWorkers, queueWorkers } from '../model/queues.js';
import { allowedBand, updateCeiling } from '../cluster/admission/band.js';
import type * as api from '../api/types.js';
import type { ClusterEvent } from '../model/events.js';
import { clusterEvents, type EventFeedOptions } from './event-feed.js';
import { IrisError, invalid, notFound } from '../model/errors.js';
import { endpointName, generateName, parentJob, parseJobName, isWithin } from '../model/names.js';
import { isFinalJobState, isFinalTaskState, type JobState } from '../model/states.js';
import { enabledCostPerHour, type JobSpec, type Quota } from '../model/types.js';
import { admitPipeline } from '../cluster/admission/pipeline.js';
import type { PipelineRequest, PipelineResponse } from '../api/pipeline-request.js';
import { pipelineResponse } from './pipelines.js';
import { admit, type AdmissionDefaults, type ClusterView } from '../cluster/admission/index.js';
import type { ClusterStore } from '../cluster/state/store.js';
import type { Controller } from '../cluster/controller/controller.js';
import { streamLogs } from './log-stream.js';
import { borrowedNow, estimateInfo, queueInfo } from './queue-view.js';
import { runtimeEstimate } from '../cluster/scheduler/planner/index.js';
import { workerUse, workerView } from '../cluster/controller/snapshot.js';
import { attemptKey } from '../cluster/state/keys.js';
import { preemptedIn, resultCount, runResults } from './results.js';
import {
  archivedJobDetail,
  archivedRunData,
  cpuTotals,
  execSummary,
  jobDetail,
  jobSummary,
  requeueSummary,
  runSummary,
  runsIn,
  taskInfo,
  workerInfo,
} from './views.js';
import { runHistory, selectRun } from './runs.js';
import { archivedTaskDetail, findTask, splitNames } from './task-ops.js';
import { waitForJobs, type WaitQuery } from './wait.js';
import { hostPaths } from './host-paths.js';
import { startExec, type ExecStarted } from './exec-service.js';
import { timelineOf } from './timeline.js';
import type { TimelineResponse } from '../api/timeline.js';

export interface ServiceContext {
  clusterId: string;
  socketPath: string;
  /** The task door on TCP, as GET /v1/cluster shows it (config `task-door`); absent: none. */
  taskDoor?: { listen: string; advertise: string };
  home: string;
  version: string;
  startedAt: number;
  /** The config file the cluster loaded (absolute), or null when it runs on the built-in defaults. */
  configPath: string | null;
  /** The metrics URL of the loopback metrics port (`--metrics-port` or `metrics.port`); absent: none. */
  metricsUrl?: string;
  quotas: ReadonlyMap<string, Quota>;
  requestStop: () => Promise<void>;
  now?: () => number;
  /**
   * Cluster defaults for what a submit does not give (the resolved config): the time limit, the
   * max preemptions, and the image when the default runtime is docker.
   */
  defaults: Omit<AdmissionDefaults, 'user' | 'cwd'>;
  /** Resolves when a container engine answers; rejects with an IrisError saying how to start one. */
  requireContainerEngine?: () => Promise<void>;
  /** Resolves when the container engine can give containers GPUs; rejects (unsatisfiable) with the reason. */
  requireGpuRuntime?: () => Promise<void>;
  /** The config's `retention` (ms): the default age of `prune`; null (`never`) or absent: none. */
  retentionMs?: number | null;
}

/** What the service uses of the controller; offline.ts stands in for it when no cluster runs. */
export type ControllerPort = Pick<
  Controller,
  | 'applyStopOrders'
  | 'callerForToken'
  | 'estimate'
  | 'exec'
  | 'gone'
  | 'held'
  | 'isolationForToken'
  | 'passes'
  | 'policy'
  | 'namedQueues'
  | 'queueListing'
  | 'requestPass'
  | 'setWorkerEnabled'
  | 'waitingHolds'
  | 'waits'
>;

/** Most archived runs one prune takes (a later prune takes the rest): keeps each transaction small. */
export const PRUNE_BATCH = 5_000;

export class ControllerService implements ClusterService {
  constructor(
    private readonly store: ClusterStore,
    private readonly controller: ControllerPort,
    private readonly ctx: ServiceContext,
  ) {}

  async submit(
    request: api.SubmitRequest,
    caller: TaskCaller | null,
    origin: SubmitOrigin,
  ): Promise<api.SubmitResponse> {
    const admitted = await this.admit(request, caller, origin);
    const { generated } = admitted;
    const spec: JobSpec = caller
      ? { ...admitted.spec, submittedBy: { task: caller.task, attempt: caller.attempt } }
      : admitted.spec;
    // A finished job of this name is replaced with its subtree; the processes of its attempts
    // (still stopping after a cancel or a parent's re-run) must be gone first. A job of the name,
    // or one below it, that has not ended is refused at once (waiting for it would hang the client).
    if (this.store.replacedBySubmit(spec.name).length > 0) await this.controller.gone([spec.name]);
    const job = this.store.submit(spec);
    // Only a new job: jobs blocked in the last pass stay blocked (their reservations stand).
    this.controller.requestPass(false);
    const parent = job.parent ?? parentJob(job.name);
    return {
      name: job.name,
      run: job.run,
      tasks: spec.replicas,
      parent,
      generated,
      band: bandOf(spec),
      ...(spec.queue !== undefined ? { queue: spec.queue } : {}),
    };
  }

  exec(request: api.ExecRequest, caller: TaskCaller | null, owner: string): Promise<ExecStarted> {
    return startExec(this.store, this.controller, request, caller, owner);
  }

  async estimate(
    request: api.SubmitRequest,
    caller: TaskCaller | null,
    origin: SubmitOrigin,
  ): Promise<api.EstimateResponse> {
    const { spec } = await this.admit(request, caller, origin);
    // A finished job of the name would be archived: the submission starts a new run over it. The
    // submission's refusal (the name, or a job below it, not ended) is the dry run's too.
    this.store.replacedBySubmit(spec.name);
    const previous = this.store.job(spec.name);
    const supersedes =
      previous && isFinalJobState(previous.state) ? { supersedes: { run: previous.run, state: previous.state } } : {};
    const waitsFor = this.store.dependencyPreview(spec);
    return {
      name: spec.name,
      tasks: spec.replicas,
      ...this.controller.estimate(spec),
      ...supersedes,
      ...(waitsFor === null ? {} : { waitsFor }),
      runsIn: runsIn(spec),
      runtime: estimateInfo(runtimeEstimate(spec, this.store.runtimes)),
    };
  }

  async submitPipeline(
    request: PipelineRequest,
    caller: TaskCaller | null,
    origin: SubmitOrigin,
  ): Promise<PipelineResponse> {
    const defaults: AdmissionDefaults = { ...this.ctx.defaults, user: origin.user, cwd: origin.cwd };
    const admitted = admitPipeline(request, caller, this.clusterView(), defaults);
    await this.requireEngineFor(admitted);
    const specs = caller
      ? admitted.map((spec): JobSpec => ({ ...spec, submittedBy: { task: caller.task, attempt: caller.attempt } }))
      : admitted;
    const root = specs[0]!;
    let runs: Map<string, number> | null = null;
    if (!request.dryRun) {
      if (this.store.replacedBySubmit(root.name).length > 0) await this.controller.gone([root.name]);
      runs = new Map(this.store.submitAll(specs).map((job) => [job.name, job.run]));
      this.controller.requestPass(false);
    }
    return pipelineResponse(specs, runs);
  }

  queue(): api.QueueInfo {
    return queueInfo(this.controller.queueListing(), this.store, this.now(), this.ctx.quotas);
  }

  /** Admission (pure), then the container engine for an image job. Throws the refusal. */
  private async admit(
    request: api.SubmitRequest,
    caller: TaskCaller | null,
    origin: SubmitOrigin,
  ): Promise<{ spec: JobSpec; generated: boolean }> {
    const defaults: AdmissionDefaults = { ...this.ctx.defaults, user: origin.user, cwd: origin.cwd };
    const admission = admit(request, caller, this.clusterView(), defaults);
    if (!admission.ok)
      throw new IrisError(
        admission.refusal.code,
        admission.refusal.message,
        admission.refusal.hint,
        admission.refusal.field,
      );
    await this.requireEngineFor([admission.spec]);
    return admission;
  }

  /** The container engine for jobs with an image, and its NVIDIA runtime for those with GPUs too (I/O, so here). */
  private async requireEngineFor(specs: readonly JobSpec[]): Promise<void> {
    if (!specs.some((spec) => spec.image !== null)) return;
    await this.ctx.requireContainerEngine?.();
    if (specs.some((spec) => spec.image !== null && spec.resources.device?.type === 'gpu'))
      await this.ctx.requireGpuRuntime?.();
  }

  private clusterView(): ClusterView {
    return {
      workers: this.workerViews(),
      quotas: this.ctx.quotas,
      pendingTasks: (user) => {
        let pending = 0;
        for (const task of this.store.pendingTasks()) if (this.store.job(task.job)?.spec.user === user) pending++;
        return pending;
      },
      isNameTaken: (name) => this.store.job(name) !== undefined,
      jobState: (name) => this.store.jobState(name),
      liveBand: (name) => {
        const job = this.store.job(name);
        return job && !isFinalJobState(job.state) ? bandOf(job.spec) : undefined;
      },
      liveQueue: (name) => {
        const job = this.store.job(name);
        return job && !isFinalJobState(job.state) ? job.spec.queue : undefined;
      },
      dependenciesOf: (name) => (this.store.job(name)?.spec.after ?? []).map((dep) => dep.job),
      dependedOn: (name) => this.store.dependedOn(name),
      generateName: () => generateName(),
      waitingHolds: () => this.controller.waitingHolds(),
      hostPaths,
    };
  }

  private now(): number {
    return (this.ctx.now ?? Date.now)();
  }

  jobs(filter: api.JobFilter): api.JobSummary[] {
    const prefix = filter.prefix ? parseJobName(filter.prefix) : null;
    const states = filter.state && filter.state.length > 0 ? new Set<JobState>(filter.state) : null;
    const out: api.JobSummary[] = [];
    const now = this.now();
    for (const job of this.store.jobs()) {
      if (prefix && !isWithin(job.name, prefix)) continue;
      if (states && !states.has(job.state)) continue;
      if (filter.user && job.spec.user !== filter.user) continue;
      out.push(jobSummary(this.store, job, now));
    }
    // Ended trees that left memory (state/finished-trees.ts): the newest archived run of each name
    // no live job holds, filtered on its indexed columns before its record is read.
    const archived = this.store.archive.latestRuns(
      (run) =>
        !this.store.job(run.name) &&
        (!prefix || isWithin(run.name, prefix)) &&
        (!states || states.has(run.state)) &&
        (!filter.user || run.user === filter.user),
      filter.recent,
    );
    for (const record of archived) out.push(runSummary(archivedRunData(record)));
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  job(name: string, run: number | null = null): api.JobDetail {
    const selected = selectRun(this.store, parseJobName(name), run);
    const detail =
      selected.kind === 'archived'
        ? archivedJobDetail(this.store, selected.record)
        : jobDetail(
            this.store,
            selected.job,
            this.now(),
            new Set(this.controller.held().map((h) => attemptKey(h.task, h.attempt))),
            borrowedNow(this.store, this.ctx.quotas),
          );
    const tasks = selected.kind === 'archived' ? selected.record.tasks : this.store.tasksOf(selected.job.name);
    const requeues = requeueSummary(this.store, detail.run);
    const execs = execSummary(this.store, detail.run);
    return {
      ...detail,
      results: resultCount(
        this.store,
        detail.run,
        tasks,
        preemptedIn(this.store, detail.name, selected.kind === 'live'),
      ),
      ...(requeues ? { requeues } : {}),
      ...(execs ? { execs } : {}),
    };
  }

  history(query: api.HistoryQuery): api.RunInfo[] {
    return runHistory(
      this.store,
      {
        ...query,
        ...(query.prefix !== undefined ? { prefix: parseJobName(query.prefix) } : {}),
      },
      this.now(),
    );
  }

  timeline(from: number, to: number): TimelineResponse {
    return timelineOf(this.store, from, to);
  }

  task(name: string): api.TaskDetail {
    const archived = archivedTaskDetail(this.store, name);
    if (archived) return archived;
    const { job, task } = findTask(this.store, name);
    const stopping = new Set(this.controller.held().map((h) => attemptKey(h.task, h.attempt)));
    return {
      job: job.name,
      jobState: job.state,
      replicas: job.spec.replicas,
      ...taskInfo(this.store, job, task, this.now(), stopping, borrowedNow(this.store, this.ctx.quotas)),
    };
  }

  /**
   * Jobs and single tasks (`/j/task-3`, lifecycle/jobs.ts cancelTask). One that had already ended (a task
   * whose job ended counts as ended) is reported in `alreadyEnded` and left as it is (not an error).
   */
  async cancel(names: string[]): Promise<api.CancelResponse> {
    if (names.length === 0) throw invalid('name at least one job to cancel');
    const split = splitNames(names);
    const archived: api.CancelResponse['alreadyEnded'] = [];
    const jobs = split.jobs.flatMap((name) => {
      const job = this.store.job(name);
      if (job) return [job];
      // Ended and archived (state/finished-trees.ts): already ended, as when it was held live.
      const state = this.store.jobState(name);
      if (state === undefined) throw notFound(`unknown job ${name}`, 'list jobs with `iris jobs`');
      archived.push({ name, state });
      return [];
    });
    const tasks = split.tasks.map((name) => findTask(this.store, name));
    // A job that ended with jobs below it still live (a SUCCEEDED parent leaves them running) is
    // cancelled too: what is left of its subtree is killed, the job keeps its own state, and the
    // answer names those jobs (in `cancelled`, and under the job in `below`), not the job.
    const alreadyEnded: api.CancelResponse['alreadyEnded'] = [
      ...archived,
      ...jobs.filter((job) => this.store.subtreeEnded(job.name)).map((job) => ({ name: job.name, state: job.state })),
    ];
    const active = jobs.filter((job) => !this.store.subtreeEnded(job.name));
    const below: NonNullable<api.CancelResponse['below']> = [];
    const named = new Set<string>();
    for (const job of active) {
      if (!isFinalJobState(job.state)) {
        named.add(job.name);
        continue;
      }
      const live = this.store.descendants(job.name).filter((d) => !isFinalJobState(d.state));
      below.push({ name: job.name, state: job.state, cancelled: live.map((d) => d.name) });
      for (const d of live) named.add(d.name);
    }
    const cancelled = [...named];
    const orders = this.store.transaction(() => {
      const out = active.flatMap((job) => this.store.cancel(job.name, 'cancelled by user'));
      // After the jobs: a task of a job cancelled in the same call has ended with it.
      for (const { task } of tasks) {
        if (isFinalTaskState(task.state) || isFinalJobState(this.store.job(task.job)!.state)) {
          alreadyEnded.push({ name: task.id, state: task.state });
          continue;
        }
        out.push(...this.store.cancelTask(task.id, 'cancelled by user'));
        cancelled.push(task.id);
      }
      return out;
    });
    this.controller.applyStopOrders(orders);
    // Freed capacity or a removed job: blocked jobs are worth another look.
    this.controller.requestPass(true);
    return { cancelled, alreadyEnded, ...(below.length > 0 ? { below } : {}) };
  }

  /**
   * Store.retry after the processes of the runs it replaces are gone (as at submit; its refusals come at once); a
   * pass then looks at the new jobs.
   */
  async retry(name: string, downstream: boolean): Promise<api.RetryResponse> {
    // A job that ended and left memory is retried from its archived run (store.retry).
    if (this.store.jobState(name) === undefined) throw notFound(`unknown job ${name}`, 'list jobs with `iris jobs`');
    // Refused at once (running, succeeded, a job below still running) before waiting for processes.
    await this.controller.gone(this.store.retryNames(name, downstream));
    const jobs = this.store.retry(name, downstream);
    this.controller.requestPass(false);
    return { retried: jobs.map((j) => ({ name: j.name, run: j.run })) };
  }

  update(name: string, priority: Band, owner: string, caller: TaskCaller | null = null): api.UpdateResponse {
    const job = this.store.job(name);
    if (!job) throw notFound(`unknown job ${name}`, 'list jobs with `iris jobs`');
    if (isFinalJobState(job.state))
      throw new IrisError(
        'conflict',
        `job ${name} has ended (${job.state}): its band can no longer change`,
        `a new run takes a band: iris submit --name ${name} --priority BAND -- …`,
      );
    const previous = bandOf(job.spec);
    const parent = job.parent === null ? undefined : this.store.job(job.parent);
    const live = parent && !isFinalJobState(parent.state) ? { name: parent.name, band: bandOf(parent.spec) } : null;
    const ceiling = updateCeiling(live, caller);
    const grants = { owner, productionUsers: this.ctx.defaults.productionUsers ?? [] };
    const band = allowedBand(priority, job.spec.user, ceiling, grants);
    const changed = band === previous ? [] : this.store.setBand(name, band);
    if (changed.length > 0) this.controller.requestPass(true);
    return { name, previous, band, changed };
  }

  cluster(): api.ClusterInfo {
    const jobs: Partial<Record<JobState, number>> = {};
    for (const job of this.store.jobs()) jobs[job.state] = (jobs[job.state] ?? 0) + 1;
    const workers = this.workers();
    return {
      clusterId: this.ctx.clusterId,
      pid: process.pid,
      socket: this.ctx.socketPath,
      ...(this.ctx.taskDoor ? { taskDoor: this.ctx.taskDoor } : {}),
      home: this.ctx.home,
      config: { path: this.ctx.configPath },
      metrics: { url: this.ctx.metricsUrl ?? null },
      version: this.ctx.version,
      startedAt: this.ctx.startedAt,
      workers,
      cpu: cpuTotals(workers),
      cost: {
        perHour: enabledCostPerHour(this.store.workers()),
        excluded: workers.filter((w) => w.state !== 'READY').length,
      },
      queue: {
        pending: this.store.pendingTasks().length,
        running: this.store.activeAttempts().length,
        jobs,
        policy: this.controller.policy,
        passes: this.controller.passes,
      },
      ...this.clusterQueues(workers),
    };
  }

  /** The named queues with their worker counts and tasks now (`iris cluster status`); {} without. */
  private clusterQueues(workers: readonly api.WorkerInfo[]): { queues?: api.ClusterQueueInfo[] } {
    const named = this.controller.namedQueues();
    if (named.length === 0) return {};
    const fallback = named.find((q) => q.isDefault)?.name;
    const queueOfJob = (name: string) => this.store.job(name)?.spec.queue ?? fallback;
    const pending = new Map<string | undefined, number>();
    for (const task of this.store.pendingTasks()) {
      const q = queueOfJob(task.job);
      pending.set(q, (pending.get(q) ?? 0) + 1);
    }
    const running = new Map<string | undefined, number>();
    for (const attempt of this.store.activeAttempts()) {
      const task = this.store.task(attempt.task);
      const q = task ? queueOfJob(task.job) : undefined;
      running.set(q, (running.get(q) ?? 0) + 1);
    }
    return {
      queues: named.map((q) => ({
        name: q.name,
        policy: q.policy,
        workers: describeQueueWorkers(q.workers),
        workerCount: queueWorkers(q.workers, workers).length,
        pending: pending.get(q.name) ?? 0,
        running: running.get(q.name) ?? 0,
        default: q.isDefault,
      })),
    };
  }

  stop(): Promise<void> {
    return this.ctx.requestStop();
  }

  workers(): api.WorkerInfo[] {
    const use = workerUse(this.store, this.controller.waits.released(), this.controller.held());
    const hints = this.store.cacheHints();
    return this.store.workers().map((worker) => workerInfo(worker, use.get(worker.id), hints.get(worker.id)));
  }

  /** One worker as `iris workers` shows it; one that just left the cluster (a drain ended its last task) as it is. */
  private workerInfoOf(id: string): api.WorkerInfo {
    return this.workers().find((worker) => worker.id === id) ?? workerInfo(this.store.worker(id)!, undefined);
  }

  treeUses(root: string): ReadonlySet<string> {
    const uses = new Set<string>();
    const top = this.store.job(root);
    for (const job of top ? [top, ...this.store.descendants(root)] : []) {
      for (const key of job.spec.uses ?? []) uses.add(key);
    }
    return uses;
  }

  async drain(id: string): Promise<api.WorkerInfo> {
    if (!this.store.worker(id)) throw notFound(`unknown worker ${id}`, 'list workers with `iris workers`');
    const orders = this.store.drainWorker(id);
    this.controller.applyStopOrders(orders);
    // Freed capacity or a removed job: blocked jobs are worth another look.
    this.controller.requestPass(true);
    return this.workerInfoOf(id);
  }

  async resume(id: string): Promise<api.WorkerInfo> {
    if (!this.store.worker(id)) throw notFound(`unknown worker ${id}`, 'list workers with `iris workers`');
    this.store.resumeWorker(id);
    // New capacity: pending jobs may fit now.
    this.controller.requestPass(true);
    return this.workerInfoOf(id);
  }

  async disable(id: string, reason: string): Promise<api.WorkerInfo> {
    if (!this.store.worker(id)) throw notFound(`unknown worker ${id}`, 'list workers with `iris workers`');
    this.controller.setWorkerEnabled(id, false, 'user', reason.trim());
    return this.workerInfoOf(id);
  }

  async enable(id: string): Promise<api.WorkerInfo> {
    if (!this.store.worker(id)) throw notFound(`unknown worker ${id}`, 'list workers with `iris workers`');
    this.controller.setWorkerEnabled(id, true);
    return this.workerInfoOf(id);
  }

  /** Endpoint names are job paths: a prefix without the leading "/" (`train/`) means the same as with it. */
  endpoints(prefix?: string): api.EndpointInfo[] {
    const trimmed = prefix?.trim();
    return this.store.endpoints(
      trimmed === undefined || trimmed === '' ? undefined : trimmed.startsWith('/') ? trimmed : `/${trimmed}`,
    );
  }

  /** The name is scoped to the caller's job (model/names.ts endpointName): `ps` from /train is `/train/ps`. */
  registerEndpoint(caller: TaskCaller, name: string, address: string): api.EndpointInfo {
    const full = endpointName(name, caller.job);
    if (address.trim() === '') throw invalid('endpoint address is empty');
    return this.store.registerEndpoint({
      name: full,
      address,
      task: caller.task,
      attempt: caller.attempt,
      job: caller.job,
    });
  }

  results(name: string, run: number | null): api.ResultsResponse {
    return runResults(this.store, name, run);
  }

  setResults(caller: TaskCaller, entries: Record<string, string>): api.ResultsResponse {
    this.store.setResults(caller.task, caller.attempt, entries);
    return runResults(this.store, caller.job, null);
  }

  callerForToken(token: string): TaskCaller | null {
    const identity = this.controller.callerForToken(token);
    const job = identity && this.store.job(identity.job);
    if (!identity || !job) return null;
    const isolation = this.controller.isolationForToken(token);
    const caller: TaskCaller = {
      ...identity,
      user: job.spec.user,
      env: job.spec.env,
      rootSubmittedAt: job.rootSubmittedAt,
      band: bandOf(job.spec),
      ...(job.spec.queue !== undefined ? { queue: job.spec.queue } : {}),
    };
    return isolation ? { ...caller, isolation } : caller;
  }

  /**
   * Retention: removes the runs that ended longer ago than `olderThanMs` (default: the config's
   * `retention`) with their events and log files (state/retention.ts, controller/prune.ts). Trees
   * with an attempt still stopping stay for a later prune.
   */
  async prune(request: { olderThanMs?: number; dryRun?: boolean }): Promise<api.PruneResponse> {
    const age = request.olderThanMs ?? this.ctx.retentionMs ?? null;
    if (age === null)
      throw invalid(
        'no retention is configured (retention: never)',
        'give the age to prune at, e.g. `iris prune --older-than 30d`',
      );
    const cutoff = (this.ctx.now ?? Date.now)() - age;
    const busy = new Set(this.controller.held().map((held) => held.job));
    const dryRun = request.dryRun === true;
    const runs = this.store.prune(cutoff, { busy: (job) => busy.has(job), dryRun, limit: PRUNE_BATCH });
    const logs = await removeRunLogs(
      path.join(this.ctx.home, 'logs'),
      runs.flatMap((run) => run.logPaths),
      dryRun,
    );
    return {
      cutoff,
      dryRun,
      runs: runs.map(({ logPaths: _, ...run }) => run),
      logBytes: logs.bytes,
      logErrors: logs.errors,
    };
  }

  logs(query: api.LogQuery, signal: AbortSignal): AsyncIterable<api.LogBatch> {
    return streamLogs(this.store, query, signal);
  }

  async wait(query: WaitQuery, caller: TaskCaller | null, signal: AbortSignal): Promise<api.WaitResponse> {
    const done = await waitForJobs(this.store, query, signal, () =>
      caller ? this.blockedOn(caller, query.jobs) : () => {},
    );
    return { done, jobs: query.jobs.map((name) => this.job(name)) };
  }

  blockedOn(caller: TaskCaller, jobs: string[]): () => void {
    const entry = this.controller.waits.begin({ task: caller.task, job: caller.job, attempt: caller.attempt }, jobs);
    return () => this.controller.waits.end(entry);
  }

  events(signal: AbortSignal, options: EventFeedOptions = {}): AsyncIterable<ClusterEvent> {
    return clusterEvents(this.store, signal, this.ctx.now ?? Date.now, options);
  }

  private workerViews() {
    const use = workerUse(this.store, this.controller.waits.released(), this.controller.held());
    return this.store.workers().map((worker) => workerView(worker, use.get(worker.id)));
  }
}
