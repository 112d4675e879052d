/**
 * SocketClient: IrisClient over HTTP+JSON on the cluster's unix socket, or on the task door's
 * TCP address inside a task of a cluster that has one (docs/api.md), one method per endpoint on top of SocketTransport
 * (socket-transport.ts: errors come back as the
 * server's IrisError, a missing socket is 'unavailable', streams end quietly on abort).
 * Inside a task, its token (IRIS_TASK_TOKEN or the file IRIS_TASK_TOKEN_FILE names, ./task-token.ts) is sent on every
 * request: the task door (IRIS_CONTROLLER_ADDRESS) refuses requests without it, submissions
 * become children of the task's job, and every other call is confined to the task's subtree
 * (docs/api.md, "Doors"). Every answer is checked against its route's shape (api/responses.ts)
 * before it is returned. Streams (logs, events) are async iterables over NDJSON. Waiting is a
 * long poll (POST /v1/wait): with the token, the cluster knows the task is blocked and on what
 * (docs/architecture.md, "Waiting").
 */
import type { DensitySeries, MetricsSeries } from '../api/metrics.js';
import type { TimelineResponse } from '../api/timeline.js';
import { IrisError } from '../model/errors.js';
import { formatDuration } from '../model/duration.js';
import type { PipelineRequest, PipelineResponse } from '../api/pipeline-request.js';
import type { EventOptions, IrisClient, StopClusterOptions } from './types.js';
import { isAlive } from '../host/proc.js';
import type { ClusterEvent } from '../model/events.js';
import type * as api from '../api/types.js';
import type { Band } from '../model/band.js';
import { resolveAddress, type ControllerAddress, type Env } from '../api/address.js';
import { taskToken } from './task-token.js';
import { asLogBatch, batchLines } from '../api/log-batch.js';
import * as A from '../api/responses.js';
import { SocketTransport } from './socket-transport.js';
import { openExec, type ExecConnection, type ExecOutput } from './exec-client.js';

export interface SocketClientOptions {
  /** Socket path or `http://HOST:PORT` (read like IRIS_CONTROLLER_ADDRESS); default resolveAddress(env). */
  socketPath?: string | ControllerAddress;
  /** Environment to read IRIS_TASK_TOKEN / IRIS_HOME / IRIS_CONTROLLER_ADDRESS from; default process.env. */
  env?: Env;
  /** Per-request timeout for non-streaming calls, in ms; default none. */
  timeoutMs?: number;
  /** How long one long poll of `wait` lasts before it is asked again, in ms; default LONG_POLL_MS. */
  longPollMs?: number;
}

/** One long poll of POST /v1/wait when the caller gives no timeout: asked again after it. */
export const LONG_POLL_MS = 10 * 60_000;

/** How often `stopCluster({ wait })` looks whether the cluster process is gone. */
const EXIT_POLL_MS = 50;

type Query = Record<string, string | number | boolean | undefined>;

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '' || value === false) continue;
    params.set(key, value === true ? '1' : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class SocketClient extends SocketTransport implements IrisClient {
  private readonly longPollMs: number;

  /**
   * `new SocketClient()` (socket from process.env), `new SocketClient(socketPath, env?)` or
   * `new SocketClient({ socketPath?, env?, timeoutMs? })`.
   */
  constructor(socketOrOptions: string | SocketClientOptions = {}, env?: Env) {
    const options: SocketClientOptions =
      typeof socketOrOptions === 'string' ? { socketPath: socketOrOptions, env } : { env, ...socketOrOptions };
    env = options.env ?? process.env;
    super(options.socketPath ?? resolveAddress(env), taskToken(env), options.timeoutMs);
    this.longPollMs = options.longPollMs ?? LONG_POLL_MS;
  }

  // ---- IrisClient ----

  submit(req: api.SubmitRequest): Promise<api.SubmitResponse> {
    return this.ask(A.submitAnswer, 'POST', '/v1/jobs', req);
  }

  estimate(req: api.SubmitRequest): Promise<api.EstimateResponse> {
    return this.ask(A.estimateAnswer, 'POST', '/v1/jobs?dryRun=1', req);
  }

  submitPipeline(req: PipelineRequest): Promise<PipelineResponse> {
    return this.ask(A.pipelineAnswer, 'POST', '/v1/pipelines', req);
  }

  queue(): Promise<api.QueueInfo> {
    return this.ask(A.queueAnswer, 'GET', '/v1/queue');
  }

  jobs(filter: api.JobFilter = {}): Promise<api.JobSummary[]> {
    return this.ask(
      A.jobsAnswer,
      'GET',
      `/v1/jobs${queryString({
        prefix: filter.prefix,
        state: filter.state?.join(','),
        user: filter.user,
        recent: filter.recent === undefined ? undefined : String(filter.recent),
      })}`,
    );
  }

  job(name: string, run?: number): Promise<api.JobDetail> {
    return this.ask(A.jobAnswer, 'GET', `/v1/job${queryString({ name, run })}`);
  }

  history(query: api.HistoryQuery = {}): Promise<api.RunInfo[]> {
    const { prefix, user, state, since, until, limit } = query;
    return this.ask(
      A.historyAnswer,
      'GET',
      `/v1/history${queryString({ prefix, user, state: state?.join(','), since, until, limit })}`,
    );
  }

  task(name: string): Promise<api.TaskDetail> {
    return this.ask(A.taskAnswer, 'GET', `/v1/task${queryString({ name })}`);
  }

  retry(name: string, downstream: boolean): Promise<api.RetryResponse> {
    return this.ask(A.retryAnswer, 'POST', '/v1/jobs/retry', { name, downstream });
  }

  update(name: string, priority: Band): Promise<api.UpdateResponse> {
    return this.ask(A.updateAnswer, 'POST', '/v1/jobs/update', { name, priority });
  }

  exec(request: api.ExecRequest, output: ExecOutput): Promise<ExecConnection> {
    return openExec(this, request, output);
  }

  cancel(names: string[]): Promise<api.CancelResponse> {
    return this.ask(A.cancelAnswer, 'POST', '/v1/jobs/cancel', { names });
  }

  cluster(): Promise<api.ClusterInfo> {
    return this.ask(A.clusterAnswer, 'GET', '/v1/cluster');
  }

  async stopCluster(options: StopClusterOptions = {}): Promise<{ pid: number }> {
    const { pid } = await this.health();
    await this.ask(A.stopAnswer, 'POST', '/v1/cluster/stop', {});
    if (options.wait) await this.waitForExit(pid, options.timeoutMs ?? 60_000);
    return { pid };
  }

  /** Until nothing answers on the socket and the cluster process `pid` is gone. */
  private async waitForExit(pid: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.ping()) || (await isAlive(pid))) {
      if (Date.now() > deadline) {
        throw new IrisError(
          'unavailable',
          `the cluster (pid ${pid}) did not stop within ${formatDuration(timeoutMs, { style: 'short' })}`,
          `check it with \`iris cluster status\`, or kill it with \`kill ${pid}\``,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
    }
  }

  /**
   * POST /v1/wait. With a timeout: one long poll, answered at the end or at the timeout
   * (`done: false`). Without: long polls of `longPollMs` each, asked again until the jobs end.
   */
  async waitJobs(request: api.WaitRequest, signal?: AbortSignal): Promise<api.WaitResponse> {
    if (request.timeout !== undefined) return this.ask(A.waitAnswer, 'POST', '/v1/wait', request, signal, null);
    for (;;) {
      const answer = await this.ask(
        A.waitAnswer,
        'POST',
        '/v1/wait',
        { ...request, timeout: `${this.longPollMs}ms` },
        signal,
        null,
      );
      if (answer.done) return answer;
    }
  }

  async wait(name: string, signal?: AbortSignal): Promise<api.JobDetail> {
    const { jobs } = await this.waitJobs({ jobs: [name] }, signal);
    return jobs[0]!;
  }

  workers(): Promise<api.WorkerInfo[]> {
    return this.ask(A.workersAnswer, 'GET', '/v1/workers');
  }

  drain(worker: string): Promise<api.WorkerInfo> {
    return this.ask(A.workerAnswer, 'POST', '/v1/workers/drain', { name: worker });
  }

  resume(worker: string): Promise<api.WorkerInfo> {
    return this.ask(A.workerAnswer, 'POST', '/v1/workers/resume', { name: worker });
  }

  disable(worker: string, reason?: string): Promise<api.WorkerInfo> {
    return this.ask(A.workerAnswer, 'POST', '/v1/workers/disable', { name: worker, ...(reason ? { reason } : {}) });
  }

  enable(worker: string): Promise<api.WorkerInfo> {
    return this.ask(A.workerAnswer, 'POST', '/v1/workers/enable', { name: worker });
  }

  prune(request: api.PruneRequest): Promise<api.PruneResponse> {
    return this.ask(A.pruneAnswer, 'POST', '/v1/prune', request);
  }

  endpoints(prefix?: string): Promise<api.EndpointInfo[]> {
    return this.ask(A.endpointsAnswer, 'GET', `/v1/endpoints${queryString({ prefix })}`);
  }

  registerEndpoint(name: string, address: string): Promise<api.EndpointInfo> {
    return this.ask(A.endpointAnswer, 'POST', '/v1/endpoints', { name, address });
  }

  results(job: string, run?: number): Promise<api.ResultsResponse> {
    return this.ask(A.resultsAnswer, 'GET', `/v1/results${queryString({ job, run })}`);
  }

  setResult(key: string, value: string): Promise<api.ResultsResponse> {
    return this.ask(A.resultsAnswer, 'POST', '/v1/results', { key, value });
  }

  async *logs(query: api.LogQuery, signal?: AbortSignal): AsyncGenerator<api.LogLine> {
    for await (const batch of this.logBatches(query, signal)) yield* batchLines(batch);
  }

  async *logBatches(query: api.LogQuery, signal?: AbortSignal): AsyncGenerator<api.LogBatch> {
    const { target, run, follow, tail, since, attempt } = query;
    const path = `/v1/logs${queryString({ target, run, follow, tail, since, attempt })}`;
    for await (const item of this.stream(path, A.logItem, signal)) yield asLogBatch(item);
  }

  events(signal?: AbortSignal, options: EventOptions = {}): AsyncIterable<ClusterEvent> {
    return this.stream(`/v1/events${queryString({ current: options.current })}`, A.eventItem, signal);
  }

  // ---- extras (metrics(): SocketTransport) ----

  density(): Promise<DensitySeries> {
    return this.ask(A.densityAnswer, 'GET', '/v1/metrics/density');
  }

  /** The in-memory series of the last hour (GET /v1/metrics/series; owner only). */
  series(): Promise<MetricsSeries> {
    return this.ask(A.seriesAnswer, 'GET', '/v1/metrics/series');
  }

  /** Which attempt ran where since `since` (default 1h; GET /v1/timeline; owner only). */
  timeline(since?: string): Promise<TimelineResponse> {
    return this.ask(A.timelineAnswer, 'GET', `/v1/timeline${queryString({ since })}`);
  }

  /** A fresh one-time login link of the web dashboard, started on first use (POST /v1/dashboard; owner only). */
  dashboard(): Promise<api.DashboardResponse> {
    return this.ask(A.dashboardAnswer, 'POST', '/v1/dashboard', {});
  }

  /** True when a cluster answers /v1/health on the socket. Never throws. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    try {
      const health = await this.call<{ ok?: boolean }>('GET', '/v1/health', undefined, timeoutMs);
      return health.ok === true;
    } catch {
      return false;
    }
  }

  /** GET /v1/health: `{ ok, version, pid }`. */
  health(): Promise<api.HealthResponse> {
    return this.ask(A.healthAnswer, 'GET', '/v1/health');
  }
}
