/**
 * SocketClient: IrisClient over HTTP+JSON on the cluster's unix socket (docs/api.md).
 * Error bodies come back as the same IrisError (code, message, hint); a missing or dead socket
 * is IrisError('unavailable') with a hint to start a cluster. Inside a task, IRIS_TASK_TOKEN
 * (from the env given to the constructor) is sent on every request: the task door
 * (IRIS_CONTROLLER_ADDRESS) refuses requests without it, submissions become children of the
 * task's job, and every other call is confined to the task's subtree (docs/api.md, "Doors"). Streams (logs, events) are async iterables over NDJSON that end
 * quietly when the caller's AbortSignal aborts. Waiting is a long poll (POST /v1/wait): with the
 * token, the cluster knows the task is blocked and on what (docs/architecture.md, "Waiting").
 */
import type { DensitySeries } from '../api/metrics.js';
import type { IncomingMessage } from 'node:http';
import { IrisError, type ErrorCode } from '../model/errors.js';
import { formatDuration } from '../model/duration.js';
import type { PipelineRequest, PipelineResponse } from '../api/pipeline-request.js';
import type { EventOptions, IrisClient, StopClusterOptions } from './types.js';
import { isAlive } from '../runtime/process/proc.js';
import type { ClusterEvent } from '../model/events.js';
import type {
  ApiErrorBody, CancelResponse, ResultsResponse, ClusterInfo, HealthResponse, EndpointInfo, EstimateResponse, HistoryQuery, RunInfo, JobDetail, QueueInfo, JobFilter, JobSummary, LogBatch, LogLine, LogQuery, SubmitRequest, SubmitResponse, WaitRequest, WaitResponse, WorkerInfo, PruneRequest, PruneResponse, TaskDetail, RetryResponse,
} from '../api/types.js';
import { MAX_BODY_BYTES, TASK_TOKEN_HEADER } from '../api/types.js';
import { resolveSocket, TOKEN_ENV, type Env } from '../api/address.js';
import { asLogBatch, batchLines } from '../api/log-batch.js';

// node:http through process.getBuiltinModule, not an ESM import: importing a builtin as ESM
// reads every export, and node:http's lazy `WebSocket`/`fetch` exports then load undici (~45 ms
// at every CLI start, docs/benchmarks.md "CLI start").
const { request } = process.getBuiltinModule('node:http');
const { createConnection } = process.getBuiltinModule('node:net');

export interface SocketClientOptions {
  /** Socket path; default resolveSocket(env). */
  socketPath?: string;
  /** Environment to read IRIS_TASK_TOKEN / IRIS_HOME / IRIS_CONTROLLER_ADDRESS from; default process.env. */
  env?: Env;
  /** Per-request timeout for non-streaming calls, in ms; default none. */
  timeoutMs?: number;
  /** How long one long poll of `wait` lasts before it is asked again, in ms; default LONG_POLL_MS. */
  longPollMs?: number;
}

/** One long poll of POST /v1/wait when the caller gives no timeout: asked again after it. */
export const LONG_POLL_MS = 10 * 60_000;

const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'invalid_argument', 'not_found', 'conflict', 'unsatisfiable', 'quota_exceeded', 'forbidden', 'unavailable', 'payload_too_large', 'insufficient_storage', 'internal',
]);

/** How often `stopCluster({ wait })` looks whether the cluster process is gone. */
const EXIT_POLL_MS = 50;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

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

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Turn an error response body back into the IrisError the server threw. */
export function errorFromResponse(status: number, text: string): IrisError {
  try {
    const parsed = JSON.parse(text) as Partial<ApiErrorBody>;
    const error = parsed.error;
    if (error && typeof error.message === 'string') {
      const code = typeof error.code === 'string' && ERROR_CODES.has(error.code) ? (error.code as ErrorCode) : 'internal';
      return new IrisError(code, error.message, typeof error.hint === 'string' ? error.hint : undefined);
    }
  } catch {
    // not JSON: fall through
  }
  return new IrisError('internal', `unexpected response from the iris cluster (HTTP ${status})${text ? `: ${text.slice(0, 200)}` : ''}`);
}

export class SocketClient implements IrisClient {
  readonly socketPath: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number | undefined;
  private readonly longPollMs: number;

  /**
   * `new SocketClient()` (socket from process.env), `new SocketClient(socketPath, env?)` or
   * `new SocketClient({ socketPath?, env?, timeoutMs? })`.
   */
  constructor(socketOrOptions: string | SocketClientOptions = {}, env?: Env) {
    const options: SocketClientOptions = typeof socketOrOptions === 'string' ? { socketPath: socketOrOptions, env } : { env, ...socketOrOptions };
    env = options.env ?? process.env;
    this.socketPath = options.socketPath ?? resolveSocket(env);
    const token = env[TOKEN_ENV]?.trim();
    this.token = token ? token : undefined;
    this.timeoutMs = options.timeoutMs;
    this.longPollMs = options.longPollMs ?? LONG_POLL_MS;
  }

  // ---- IrisClient ----

  submit(req: SubmitRequest): Promise<SubmitResponse> {
    return this.call<SubmitResponse>('POST', '/v1/jobs', req);
  }

  estimate(req: SubmitRequest): Promise<EstimateResponse> {
    return this.call<EstimateResponse>('POST', '/v1/jobs?dryRun=1', req);
  }

  submitPipeline(req: PipelineRequest): Promise<PipelineResponse> {
    return this.call<PipelineResponse>('POST', '/v1/pipelines', req);
  }

  queue(): Promise<QueueInfo> {
    return this.call<QueueInfo>('GET', '/v1/queue');
  }

  jobs(filter: JobFilter = {}): Promise<JobSummary[]> {
    return this.call<JobSummary[]>('GET', `/v1/jobs${queryString({ prefix: filter.prefix, state: filter.state?.join(','), user: filter.user })}`);
  }

  job(name: string, run?: number): Promise<JobDetail> {
    return this.call<JobDetail>('GET', `/v1/job${queryString({ name, run })}`);
  }

  history(query: HistoryQuery = {}): Promise<RunInfo[]> {
    const { prefix, user, state, since, until, limit } = query;
    return this.call<RunInfo[]>('GET', `/v1/history${queryString({ prefix, user, state: state?.join(','), since, until, limit })}`);
  }

  task(name: string): Promise<TaskDetail> {
    return this.call<TaskDetail>('GET', `/v1/task${queryString({ name })}`);
  }

  retry(name: string, downstream: boolean): Promise<RetryResponse> {
    return this.call<RetryResponse>('POST', '/v1/jobs/retry', { name, downstream });
  }

  cancel(names: string[]): Promise<CancelResponse> {
    return this.call<CancelResponse>('POST', '/v1/jobs/cancel', { names });
  }

  cluster(): Promise<ClusterInfo> {
    return this.call<ClusterInfo>('GET', '/v1/cluster');
  }

  async stopCluster(options: StopClusterOptions = {}): Promise<{ pid: number }> {
    const { pid } = await this.health();
    await this.call<unknown>('POST', '/v1/cluster/stop', {});
    if (options.wait) await this.waitForExit(pid, options.timeoutMs ?? 60_000);
    return { pid };
  }

  /** Until nothing answers on the socket and the cluster process `pid` is gone. */
  private async waitForExit(pid: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.ping()) || (await isAlive(pid))) {
      if (Date.now() > deadline) {
        throw new IrisError('unavailable', `the cluster (pid ${pid}) did not stop within ${formatDuration(timeoutMs, { style: 'short' })}`, `check it with \`iris cluster status\`, or kill it with \`kill ${pid}\``);
      }
      await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
    }
  }

  /**
   * POST /v1/wait. With a timeout: one long poll, answered at the end or at the timeout
   * (`done: false`). Without: long polls of `longPollMs` each, asked again until the jobs end.
   */
  async waitJobs(request: WaitRequest, signal?: AbortSignal): Promise<WaitResponse> {
    if (request.timeout !== undefined) return this.call<WaitResponse>('POST', '/v1/wait', request, null, signal);
    for (;;) {
      const answer = await this.call<WaitResponse>('POST', '/v1/wait', { ...request, timeout: `${this.longPollMs}ms` }, null, signal);
      if (answer.done) return answer;
    }
  }

  async wait(name: string, signal?: AbortSignal): Promise<JobDetail> {
    const { jobs } = await this.waitJobs({ jobs: [name] }, signal);
    return jobs[0]!;
  }

  workers(): Promise<WorkerInfo[]> {
    return this.call<WorkerInfo[]>('GET', '/v1/workers');
  }

  drain(worker: string): Promise<WorkerInfo> {
    return this.call<WorkerInfo>('POST', '/v1/workers/drain', { name: worker });
  }

  resume(worker: string): Promise<WorkerInfo> {
    return this.call<WorkerInfo>('POST', '/v1/workers/resume', { name: worker });
  }

  disable(worker: string, reason?: string): Promise<WorkerInfo> {
    return this.call<WorkerInfo>('POST', '/v1/workers/disable', { name: worker, ...(reason ? { reason } : {}) });
  }

  enable(worker: string): Promise<WorkerInfo> {
    return this.call<WorkerInfo>('POST', '/v1/workers/enable', { name: worker });
  }

  prune(request: PruneRequest): Promise<PruneResponse> {
    return this.call<PruneResponse>('POST', '/v1/prune', request);
  }

  endpoints(prefix?: string): Promise<EndpointInfo[]> {
    return this.call<EndpointInfo[]>('GET', `/v1/endpoints${queryString({ prefix })}`);
  }

  registerEndpoint(name: string, address: string): Promise<EndpointInfo> {
    return this.call<EndpointInfo>('POST', '/v1/endpoints', { name, address });
  }

  results(job: string, run?: number): Promise<ResultsResponse> {
    return this.call<ResultsResponse>('GET', `/v1/results${queryString({ job, run })}`);
  }

  setResult(key: string, value: string): Promise<ResultsResponse> {
    return this.call<ResultsResponse>('POST', '/v1/results', { key, value });
  }

  async *logs(query: LogQuery, signal?: AbortSignal): AsyncGenerator<LogLine> {
    for await (const batch of this.logBatches(query, signal)) yield* batchLines(batch);
  }

  async *logBatches(query: LogQuery, signal?: AbortSignal): AsyncGenerator<LogBatch> {
    const path = `/v1/logs${queryString({ target: query.target, run: query.run, follow: query.follow, tail: query.tail, since: query.since, attempt: query.attempt })}`;
    for await (const item of this.stream<LogBatch | LogLine>(path, signal)) yield asLogBatch(item);
  }

  events(signal?: AbortSignal, options: EventOptions = {}): AsyncIterable<ClusterEvent> {
    return this.stream<ClusterEvent>(`/v1/events${queryString({ current: options.current })}`, signal);
  }

  // ---- extras ----

  /** True when a cluster answers /v1/health on the socket. Never throws. */
  metrics(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = request({ ...this.connection(), path: '/metrics', method: 'GET', headers: { ...this.headers(undefined), accept: 'text/plain' } }, (res) => {
        readAll(res).then((text) => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) reject(errorFromResponse(status, text));
          else resolve(text);
        }, (error: NodeJS.ErrnoException) => reject(this.connectionError(error)));
      });
      req.on('error', (error: NodeJS.ErrnoException) => reject(this.connectionError(error)));
      req.end();
    });
  }

  density(): Promise<DensitySeries> {
    return this.call<DensitySeries>('GET', '/v1/metrics/density');
  }

  async ping(timeoutMs = 2000): Promise<boolean> {
    try {
      const health = await this.call<{ ok?: boolean }>('GET', '/v1/health', undefined, timeoutMs);
      return health.ok === true;
    } catch {
      return false;
    }
  }

  /** GET /v1/health: `{ ok, version, pid }`. */
  health(): Promise<HealthResponse> {
    return this.call('GET', '/v1/health');
  }

  // ---- transport ----

  private headers(body: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (this.token) headers[TASK_TOKEN_HEADER] = this.token;
    return headers;
  }

  private connectionError(error: NodeJS.ErrnoException): IrisError {
    if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT' || error.code === 'ENOTSOCK') {
      return new IrisError('unavailable', `no iris cluster is running at ${this.socketPath}`, 'start one with `iris cluster start`');
    }
    if (error.code === 'EACCES') {
      return new IrisError('forbidden', `no permission to connect to ${this.socketPath}`, 'the cluster socket belongs to another user');
    }
    return new IrisError('unavailable', `lost the connection to the iris cluster at ${this.socketPath}: ${error.message}`, 'check `iris cluster status`');
  }

  /** One connection per request, closed after the answer; no http.Agent (~5 ms off a CLI's first request). */
  private connection(): { createConnection: () => ReturnType<typeof createConnection> } {
    return { createConnection: () => createConnection(this.socketPath) };
  }

  /** One JSON request/response exchange; `timeoutMs` null: none; an aborted `signal` rejects with its reason. */
  call<T>(method: 'GET' | 'POST', path: string, payload?: unknown, timeoutMs: number | null | undefined = this.timeoutMs, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    if (body !== undefined && Buffer.byteLength(body) > MAX_BODY_BYTES) {
      return Promise.reject(new IrisError('payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`, 'send fewer or smaller values (for example a shorter env)'));
    }
    return new Promise<T>((resolve, reject) => {
      const req = request({ ...this.connection(), path, method, headers: this.headers(body) }, (res) => {
        readAll(res).then((text) => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(errorFromResponse(status, text));
          if (text === '') return resolve(undefined as T);
          try {
            resolve(JSON.parse(text) as T);
          } catch {
            reject(new IrisError('internal', `the iris cluster sent invalid JSON for ${method} ${path}`));
          }
        }, (error: NodeJS.ErrnoException) => reject(this.connectionError(error)));
      });
      req.on('error', (error: NodeJS.ErrnoException) => reject(signal?.aborted ? abortReason(signal) : this.connectionError(error)));
      if (signal) {
        const onAbort = () => {
          req.destroy();
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        req.once('close', () => signal.removeEventListener('abort', onAbort));
      }
      if (timeoutMs !== undefined && timeoutMs !== null) {
        req.setTimeout(timeoutMs, () => {
          req.destroy();
          reject(new IrisError('unavailable', `the iris cluster at ${this.socketPath} did not answer within ${formatDuration(timeoutMs, { style: 'short' })}`, 'check `iris cluster status`'));
        });
      }
      req.end(body);
    });
  }

  /** GET an NDJSON stream; ends quietly on abort, throws mapped errors otherwise. */
  private async *stream<T>(path: string, signal?: AbortSignal): AsyncGenerator<T> {
    if (signal?.aborted) return;
    const req = request({ ...this.connection(), path, method: 'GET', headers: this.headers(undefined) });
    const onAbort = () => req.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        req.once('response', resolve);
        req.once('error', reject);
        req.end();
      }).catch((error: NodeJS.ErrnoException) => {
        if (signal?.aborted) return null;
        throw this.connectionError(error);
      });
      if (!res) return;
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) throw errorFromResponse(status, await readAll(res));
      // Items are cut at newlines on the bytes, so a big item costs one decode, not one per chunk.
      let held: Buffer[] = [];
      try {
        for await (const chunk of res as AsyncIterable<Buffer>) {
          let start = 0;
          for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
            const piece = chunk.subarray(start, nl);
            const line = (held.length === 0 ? piece : Buffer.concat([...held, piece])).toString('utf8').trim();
            held = [];
            start = nl + 1;
            if (line !== '') yield this.parseLine<T>(line, path);
          }
          if (start < chunk.length) held.push(chunk.subarray(start));
        }
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof IrisError) throw error;
        throw this.connectionError(error as NodeJS.ErrnoException);
      }
      if (signal?.aborted) return;
      if (!res.complete) throw new IrisError('unavailable', `the iris cluster at ${this.socketPath} closed the stream`, 'check `iris cluster status`');
      const rest = Buffer.concat(held).toString('utf8').trim();
      if (rest !== '') yield this.parseLine<T>(rest, path);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
    }
  }

  private parseLine<T>(line: string, path: string): T {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new IrisError('internal', `the iris cluster sent an invalid line on ${path}: ${line.slice(0, 200)}`);
    }
    if (typeof value === 'object' && value !== null && 'error' in value && !('time' in value)) {
      const error = (value as ApiErrorBody).error;
      throw errorFromResponse(500, JSON.stringify({ error }));
    }
    return value as T;
  }
}
