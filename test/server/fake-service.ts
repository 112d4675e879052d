/** A small in-memory ClusterService for API tests; records calls and lets tests push stream items. */
import type { Band } from '../../src/model/band.js';
import type { PipelineRequest, PipelineResponse } from '../../src/api/pipeline-request.js';
import type { ClusterService, SubmitOrigin } from '../../src/server/cluster-service.js';
import type { TaskCaller } from '../../src/model/caller.js';
import type {
  ResultInfo,
  ResultsResponse,
  RetryResponse,
  UpdateResponse,
  CancelResponse,
  ClusterInfo,
  EndpointInfo,
  EstimateResponse,
  JobDetail,
  HistoryQuery,
  RunInfo,
  QueueInfo,
  JobFilter,
  JobSummary,
  LogBatch,
  LogQuery,
  SubmitRequest,
  SubmitResponse,
  WaitResponse,
  WorkerInfo,
  PruneResponse,
} from '../../src/api/types.js';
import type { WaitQuery } from '../../src/server/wait.js';
import type { TimelineResponse } from '../../src/api/timeline.js';
import { isFinalJobState } from '../../src/model/states.js';
import type { ClusterEvent } from '../../src/model/events.js';
import type { JobSpec } from '../../src/model/types.js';
import type { JobState } from '../../src/model/states.js';
import { IrisError, notFound } from '../../src/model/errors.js';
import { generateName, parentJob } from '../../src/model/names.js';
import { resolveJob } from '../../src/cluster/admission/index.js';

/** A push-based async iterable that ends when its signal aborts or end() is called. */
export class Channel<T> {
  private items: T[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;
  openCount = 0;
  closedCount = 0;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  async *iterate(signal: AbortSignal): AsyncGenerator<T> {
    this.openCount++;
    const onAbort = () => this.wake();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const item = this.items.shift();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.closedCount++;
    }
  }
}

function summary(spec: JobSpec): JobSummary {
  return {
    name: spec.name,
    run: 1,
    archived: false,
    user: spec.user,
    state: 'PENDING',
    reason: null,
    depth: spec.name.split('/').length - 1,
    parent: parentJob(spec.name),
    replicas: spec.replicas,
    tasks: { total: spec.replicas, byState: { PENDING: spec.replicas } },
    submittedAt: 1,
    startedAt: null,
    finishedAt: null,
  };
}

export const WORKER: WorkerInfo = {
  id: 'w0',
  state: 'READY',
  device: { type: 'cpu', variant: null, count: 0 },
  attributes: {},
  capacity: { cpuMillis: 4000, memoryBytes: 8 << 30, devices: 0 },
  used: { cpuMillis: 0, memoryBytes: 0, devices: 0 },
  cpuReleasedMillis: 0,
  cpuOversubscribedMillis: 0,
  runningTasks: [],
  costPerHour: 1,
  cache: [],
};

export class FakeService implements ClusterService {
  specs: Array<{ spec: JobSpec; caller: TaskCaller | null; generated: boolean }> = [];
  tokens = new Map<string, TaskCaller>();
  logQueries: LogQuery[] = [];
  logChannel = new Channel<LogBatch>();
  eventChannel = new Channel<ClusterEvent>();
  stopped = 0;
  /** States job() reports (default PENDING) and how often job() was asked. */
  jobStates = new Map<string, JobState>();
  jobCalls = 0;
  onStop: () => Promise<void> = async () => {};
  endpointList: EndpointInfo[] = [];
  lastFilter: JobFilter | null = null;
  /** Wait queries received with their callers; waits in progress; calls to blockedOn and their ends. */
  waitCalls: Array<{ query: WaitQuery; caller: TaskCaller | null }> = [];
  waitsOpen = 0;
  waitsClosed = 0;
  blocked: Array<{ caller: TaskCaller; jobs: string[]; ended: boolean }> = [];
  private waitWakers = new Set<() => void>();
  /** Set to make the next call of any method throw this. */
  boom: unknown = null;

  private check(): void {
    if (this.boom) {
      const error = this.boom;
      this.boom = null;
      throw error;
    }
  }

  /** Admission's naming, inheritance and defaults (no cluster checks), as the real service does. */
  private resolve(
    request: SubmitRequest,
    caller: TaskCaller | null,
    origin: SubmitOrigin,
  ): { spec: JobSpec; generated: boolean } {
    const names = { isNameTaken: (name: string) => this.isNameTaken(name), generateName: () => generateName() };
    return resolveJob(request, caller, names, {
      user: origin.user,
      cwd: origin.cwd,
      timeLimitMs: null,
      maxPreemptions: 100,
      image: null,
    });
  }

  async submit(request: SubmitRequest, caller: TaskCaller | null, origin: SubmitOrigin): Promise<SubmitResponse> {
    this.check();
    const { spec, generated } = this.resolve(request, caller, origin);
    if (this.isNameTaken(spec.name))
      throw new IrisError('conflict', `job ${spec.name} already exists`, 'pick another --name');
    this.specs.push({ spec, caller, generated });
    return { name: spec.name, run: this.specs.length, tasks: spec.replicas, parent: parentJob(spec.name), generated };
  }

  estimates: JobSpec[] = [];

  async estimate(request: SubmitRequest, caller: TaskCaller | null, origin: SubmitOrigin): Promise<EstimateResponse> {
    this.check();
    const { spec } = this.resolve(request, caller, origin);
    this.estimates.push(spec);
    return { name: spec.name, tasks: spec.replicas, start: 1000, now: 1000, reason: 'fits now', policy: 'easy' };
  }

  async submitPipeline(request: PipelineRequest): Promise<PipelineResponse> {
    this.check();
    return { name: `/${request.name}`, run: null, dryRun: true, stages: [] };
  }

  queue(): QueueInfo {
    this.check();
    return { policy: 'easy', queueDepth: 32, reservationDepth: 64, jobs: [] };
  }

  jobs(filter: JobFilter): JobSummary[] {
    this.check();
    this.lastFilter = filter;
    return this.specs.map((s) => summary(s.spec)).filter((j) => !filter.prefix || j.name.startsWith(filter.prefix));
  }

  /** The queries history() was asked, in order. */
  historyQueries: HistoryQuery[] = [];

  history(query: HistoryQuery): RunInfo[] {
    this.historyQueries.push(query);
    return [];
  }

  timeline(from: number, to: number): TimelineResponse {
    return { from, to, attempts: [] };
  }

  job(name: string): JobDetail {
    this.check();
    this.jobCalls++;
    const found = this.specs.find((s) => s.spec.name === name);
    if (!found) throw notFound(`no job named ${name}`, 'list jobs with `iris jobs`');
    const { spec } = found;
    return {
      ...summary(spec),
      state: this.jobStates.get(name) ?? 'PENDING',
      command: spec.command,
      resources: { cpu: spec.resources.cpuMillis / 1000, memoryBytes: spec.resources.memoryBytes, device: 'cpu' },
      constraints: spec.constraints,
      coschedule: spec.coschedule,
      maxRetries: spec.maxRetries,
      maxTaskFailures: spec.maxTaskFailures,
      maxPreemptions: spec.maxPreemptions,
      timeoutMs: spec.timeoutMs,
      schedulingTimeoutMs: spec.schedulingTimeoutMs,
      taskList: [],
      children: [],
    };
  }

  /** The fake keeps no tasks. */
  task(name: string): never {
    this.check();
    throw notFound(`no task named ${name}`);
  }

  async cancel(names: string[]): Promise<CancelResponse> {
    this.check();
    return { cancelled: names.filter((n) => this.isNameTaken(n)), alreadyEnded: [] };
  }

  update(name: string, priority: Band): UpdateResponse {
    this.check();
    return { name, previous: 'interactive', band: priority, changed: this.isNameTaken(name) ? [name] : [] };
  }

  async retry(name: string): Promise<RetryResponse> {
    this.check();
    if (!this.isNameTaken(name)) throw notFound(`unknown job ${name}`);
    return { retried: [{ name, run: this.specs.length + 1 }] };
  }

  cluster(): ClusterInfo {
    this.check();
    return {
      clusterId: 'c1',
      pid: process.pid,
      socket: '/tmp/x.sock',
      home: '/tmp',
      config: { path: null },
      metrics: { url: null },
      version: 'test',
      startedAt: 1,
      workers: [WORKER],
      cpu: { capacityMillis: 4000, usedMillis: 0, releasedMillis: 0, oversubscribedMillis: 0 },
      queue: { pending: 0, running: 0, jobs: {}, policy: 'easy', passes: 0 },
    };
  }

  async stop(): Promise<void> {
    this.check();
    this.stopped++;
    await this.onStop();
  }

  workers(): WorkerInfo[] {
    this.check();
    return [WORKER];
  }

  treeUses(): ReadonlySet<string> {
    return new Set();
  }

  async drain(worker: string): Promise<WorkerInfo> {
    this.check();
    if (worker !== WORKER.id) throw notFound(`no worker named ${worker}`);
    return { ...WORKER, state: 'DRAINING' };
  }

  async resume(worker: string): Promise<WorkerInfo> {
    this.check();
    if (worker !== WORKER.id) throw notFound(`no worker named ${worker}`);
    return { ...WORKER, state: 'READY' };
  }

  async disable(worker: string, reason: string): Promise<WorkerInfo> {
    this.check();
    if (worker !== WORKER.id) throw notFound(`no worker named ${worker}`);
    return { ...WORKER, state: 'DISABLED', disabled: { by: 'user', reason, disabledAt: 0 } };
  }

  async enable(worker: string): Promise<WorkerInfo> {
    this.check();
    if (worker !== WORKER.id) throw notFound(`no worker named ${worker}`);
    return { ...WORKER, state: 'READY' };
  }

  /** Records the request; answers that nothing was old enough. */
  readonly prunes: { olderThanMs?: number; dryRun?: boolean }[] = [];
  async prune(request: { olderThanMs?: number; dryRun?: boolean }): Promise<PruneResponse> {
    this.check();
    this.prunes.push(request);
    return { cutoff: 0, dryRun: request.dryRun === true, runs: [], logBytes: 0, logErrors: [] };
  }

  endpoints(prefix?: string): EndpointInfo[] {
    this.check();
    return this.endpointList.filter((e) => !prefix || e.name.startsWith(prefix));
  }

  /** Results set through the fake, by job (one run each). */
  readonly resultList: ResultInfo[] = [];

  results(name: string, run: number | null): ResultsResponse {
    this.check();
    if (!this.specs.some((s) => s.spec.name === name)) throw notFound(`no job named ${name}`);
    return { job: name, run: run ?? 1, results: this.resultList.filter((r) => r.task.startsWith(`${name}/task-`)) };
  }

  setResults(caller: TaskCaller, entries: Record<string, string>): ResultsResponse {
    this.check();
    for (const [key, value] of Object.entries(entries)) {
      const index = Number(caller.task.slice(caller.task.lastIndexOf('-') + 1));
      this.resultList.push({ task: caller.task, index, key, value, attempt: caller.attempt, setAt: 5 });
    }
    return {
      job: caller.job,
      run: 1,
      results: this.resultList.filter((r) => r.task.startsWith(`${caller.job}/task-`)),
    };
  }

  registerEndpoint(caller: TaskCaller, name: string, address: string): EndpointInfo {
    this.check();
    const endpoint = { name, address, task: caller.task, attempt: caller.attempt, job: caller.job, registeredAt: 5 };
    this.endpointList.push(endpoint);
    return endpoint;
  }

  callerForToken(token: string): TaskCaller | null {
    return this.tokens.get(token) ?? null;
  }

  logs(query: LogQuery, signal: AbortSignal): AsyncIterable<LogBatch> {
    this.check();
    this.logQueries.push(query);
    if (query.target === '/missing') {
      // biome-ignore lint/correctness/useYield: a log stream that fails before its first line
      return (async function* () {
        throw notFound('no job or task named /missing');
      })();
    }
    return this.logChannel.iterate(signal);
  }

  events(signal: AbortSignal): AsyncIterable<ClusterEvent> {
    this.check();
    return this.eventChannel.iterate(signal);
  }

  isNameTaken(name: string): boolean {
    return this.specs.some((s) => s.spec.name === name);
  }

  /** Set what job() reports for `name` and wake the waits (as the store's job event does). */
  setJobState(name: string, state: JobState): void {
    this.jobStates.set(name, state);
    for (const wake of [...this.waitWakers]) wake();
  }

  async wait(query: WaitQuery, caller: TaskCaller | null, signal: AbortSignal): Promise<WaitResponse> {
    this.check();
    const answer = () => query.jobs.map((name) => this.job(name));
    answer();
    this.waitCalls.push({ query, caller });
    const ended = () => {
      const final = query.jobs.map((name) => isFinalJobState(this.jobStates.get(name) ?? 'PENDING'));
      return query.any ? final.some(Boolean) : final.every(Boolean);
    };
    if (!ended() && !signal.aborted) {
      this.waitsOpen++;
      try {
        await new Promise<void>((resolve) => {
          const finish = () => {
            this.waitWakers.delete(wake);
            signal.removeEventListener('abort', finish);
            clearTimeout(timer);
            resolve();
          };
          const wake = () => {
            if (ended()) finish();
          };
          const timer = query.timeoutMs === null ? undefined : setTimeout(finish, query.timeoutMs);
          this.waitWakers.add(wake);
          signal.addEventListener('abort', finish, { once: true });
        });
      } finally {
        this.waitsOpen--;
        this.waitsClosed++;
      }
    }
    return { done: ended(), jobs: answer() };
  }

  blockedOn(caller: TaskCaller, jobs: string[]): () => void {
    const entry = { caller, jobs, ended: false };
    this.blocked.push(entry);
    return () => (entry.ended = true);
  }
}
