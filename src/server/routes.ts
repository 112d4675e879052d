/**
 * The /v1 route table: one entry per path and method, each turning a request into one
 * ClusterService call. Handlers return a JSON reply or stream themselves (logs, events).
 * Query and body values are validated here with messages naming the parameter.
 *
 * Scope: a call with a task caller (a token, always so on the task door) reaches only its job's
 * subtree: job, jobs and history listings, status, cancel, wait, logs and events are confined to it (a name
 * outside is 403; listings leave the rest out), and workers show only its subtree's running
 * tasks and only the context-reuse keys (`uses`) its own tree uses. Results (GET /v1/results) are the one read that
 * reaches the caller's whole tree (model/caller.ts
 * inTree); a task sets results only for its own running attempt. Routes in OWNER_ONLY (cluster stop, drain, resume,
 * disable, enable, the queue view, prune, the metrics, the timeline, the dashboard) refuse a task caller.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IrisError, invalid, relabel } from '../model/errors.js';
import { isWithin, nameFromTask, parseJobName, parseTaskName, resolveJobRef } from '../model/names.js';
import { parseDuration } from '../model/duration.js';
import { parseSince } from '../model/since.js';
import type { ClusterService } from './cluster-service.js';
import {
  inScope,
  requireInScope,
  requireInTree,
  requireTaskCaller,
  treeRoot,
  type TaskCaller,
} from '../model/caller.js';
import { checkResultKey, checkResultValue } from '../model/results.js';
import { parsePipelineRequest } from '../api/pipeline-request.js';
import { parseSubmitRequest } from '../api/submit-request.js';
import {
  parseCancelRequest,
  parseDisableRequest,
  parseDrainRequest,
  parseEnableRequest,
  parseEndpointRequest,
  parseResultRequest,
  parsePruneRequest,
  parseResumeRequest,
  pruneAgeMs,
  parseWaitRequest,
  parseRetryRequest,
} from '../api/requests.js';
import {
  HistoryQuerySchema,
  JobQuerySchema,
  JobsQuerySchema,
  LogsQuerySchema,
  ResultsQuerySchema,
  parseQuery,
} from '../api/queries.js';
import { parseUpdateRequest } from '../api/requests.js';
import type { DashboardResponse, HealthResponse, HistoryQuery, JobFilter, LogQuery, WorkerInfo } from '../api/types.js';
import type { DensitySeries, MetricsSeries } from '../api/metrics.js';
import { DEFAULT_TIMELINE_SINCE } from '../api/timeline.js';

/** What the server serves at GET /metrics and GET /v1/metrics/{density,series} (src/server/metrics/). */
export interface MetricsEndpoints {
  exposition(): Promise<{ contentType: string; text: string }>;
  /** The density series, or null when `metrics.density` is off. */
  density(): DensitySeries | null;
  /** The in-memory series of the last hour (metrics/series.ts). */
  series(): MetricsSeries;
}

export interface Reply {
  status: number;
  body: unknown;
}

export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  /** The parsed JSON body (`{}` when empty). */
  body(): Promise<unknown>;
  /**
   * The task behind the x-iris-task-token header, checked by the server before the handler runs
   * (an unknown token, or none on the task door, is 403 there); null for the owner.
   */
  caller(): TaskCaller | null;
  /** Aborts when the server closes (ends streams). */
  closing: AbortSignal;
}

export interface RouteContext {
  service: ClusterService;
  version: string;
  defaultUser: string;
  defaultCwd: string;
  log: (message: string) => void;
  /** The clock of the server (epoch ms): what "10m ago" in a query is counted from. */
  now: () => number;
  stream: <T>(call: Call, open: (signal: AbortSignal) => AsyncIterable<T>, context: string) => Promise<void>;
  /** Absent: this server serves no metrics (404). */
  metrics?: MetricsEndpoints;
  /** POST /v1/dashboard: starts the dashboard (once) and answers a fresh login link; absent: 503. */
  dashboard?: () => Promise<DashboardResponse>;
}

export type Handler = (call: Call, ctx: RouteContext) => Promise<Reply | void> | Reply | void;
export type Method = 'GET' | 'POST';

const ok = (body: unknown, status = 200): Reply => ({ status, body });

function requiredParam(query: URLSearchParams, name: string): string {
  const value = query.get(name)?.trim();
  if (!value) throw invalid(`query parameter "${name}" is required`);
  return value;
}

function optionalParam(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value ? value : undefined;
}

function boolParam(query: URLSearchParams, name: string): boolean {
  const value = optionalParam(query, name)?.toLowerCase();
  if (value === undefined || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw invalid(`query parameter "${name}" must be 1 or 0, got "${value}"`);
}

function jobFilter(query: URLSearchParams): JobFilter {
  const { prefix, user, state, recent } = parseQuery(JobsQuerySchema, query);
  const filter: JobFilter = {};
  if (recent !== undefined) filter.recent = recent;
  if (prefix) filter.prefix = prefix.startsWith('/') ? prefix : '/' + prefix;
  if (user) filter.user = user;
  if (state) filter.state = state;
  return filter;
}

function historyQuery(query: URLSearchParams): HistoryQuery {
  const { prefix, user, state, since, until, limit } = parseQuery(HistoryQuerySchema, query);
  const result: HistoryQuery = {};
  if (prefix) result.prefix = canonicalName('query parameter "prefix"', prefix);
  if (user) result.user = user;
  if (state) result.state = state;
  if (since !== undefined) result.since = since;
  if (until !== undefined) result.until = until;
  if (limit !== undefined) result.limit = limit;
  return result;
}

function logQuery(query: URLSearchParams, now: number): LogQuery {
  const { target: given, run: runParam, follow, tail, since, attempt } = parseQuery(LogsQuerySchema, query);
  const { target, run } = resolveJobRef('query parameter "target"', given, runParam);
  const result: LogQuery = { target };
  if (run !== null) result.run = run;
  if (follow) result.follow = true;
  if (tail !== undefined) result.tail = tail;
  if (since !== undefined) result.since = parseSince(since, now, 'query parameter "since"');
  if (attempt !== undefined) result.attempt = attempt;
  return result;
}

function canonicalName(field: string, value: string): string {
  return relabel(field, () => parseJobName(value));
}

/** A job name, or a task name (`/j/task-3`), canonical. */
function canonicalTarget(field: string, value: string): string {
  return relabel(field, () => {
    const task = parseTaskName(value);
    return task ? `${task.job}/task-${task.index}` : parseJobName(value);
  });
}

/**
 * What a task caller sees of the workers: only its subtree's running tasks, and of the
 * context-reuse hints only the keys its own tree uses (other users' model names stay hidden).
 */
function scopedWorkers(
  caller: TaskCaller | null,
  workers: readonly WorkerInfo[],
  service: ClusterService,
): WorkerInfo[] {
  if (!caller) return [...workers];
  const uses = service.treeUses(treeRoot(caller.job));
  return workers.map((worker) => ({
    ...worker,
    runningTasks: worker.runningTasks.filter((task) => inScope(caller, task)),
    cache: worker.cache.filter((hint) => uses.has(hint.key)),
  }));
}

/**
 * A POST that changes one worker (drain, resume, enable): the body names the worker, the reply is
 * the worker after the change. Owner-only (OWNER_ONLY), so the caller is not asked for.
 */
function workerChange(
  parse: (body: unknown) => { name: string },
  change: (service: ClusterService, name: string) => Promise<WorkerInfo>,
): Handler {
  return async (call, ctx) => ok(await change(ctx.service, parse(await call.body()).name));
}

/** Routes a task may not call (403 with a token, on either door): `METHOD path`. */
export const OWNER_ONLY: ReadonlyMap<string, string> = new Map([
  ['POST /v1/cluster/stop', 'stopping the cluster'],
  ['POST /v1/workers/drain', 'draining a worker'],
  ['POST /v1/workers/resume', 'resuming a worker'],
  ['POST /v1/workers/disable', 'disabling a worker'],
  ['POST /v1/workers/enable', 'enabling a worker'],
  ['GET /v1/queue', "the queue view (it shows every user's pending jobs)"],
  ['POST /v1/prune', 'pruning old runs'],
  ['POST /v1/dashboard', "the dashboard (it acts with the owner's rights)"],
  ['GET /metrics', "the metrics (they count every user's jobs)"],
  ['GET /v1/metrics/density', "the density series (it counts every user's submissions)"],
  ['GET /v1/metrics/series', "the metrics series (it counts every user's jobs)"],
  ['GET /v1/timeline', "the timeline (it shows every user's tasks)"],
]);

function metricsOf(ctx: RouteContext): MetricsEndpoints {
  if (!ctx.metrics)
    throw new IrisError(
      'not_found',
      'this server serves no metrics',
      "ask the cluster's owner socket (<home>/run/iris.sock)",
    );
  return ctx.metrics;
}

/**
 * GET /v1/metrics/series. A server without metrics is the one over a stopped cluster's saved
 * state (offline.ts): the series lived in the stopped cluster's memory, so it is the offline
 * `unavailable` error there.
 */
function seriesRoute(_call: Call, ctx: RouteContext): Reply {
  if (!ctx.metrics)
    throw new IrisError(
      'unavailable',
      'the metrics series needs a running cluster: it is kept in its memory',
      'start one with `iris cluster start`',
    );
  return ok(ctx.metrics.series());
}

/** GET /v1/timeline: the window is `since` (default 1h; model/since.ts forms) up to now. */
function timelineRoute(call: Call, ctx: RouteContext): Reply {
  const now = ctx.now();
  const since = optionalParam(call.query, 'since') ?? DEFAULT_TIMELINE_SINCE;
  const from = parseSince(since, now, 'query parameter "since"');
  if (from > now) throw invalid(`query parameter "since" (${since}) is after now`, 'for example since=1h');
  return ok(ctx.service.timeline(from, now));
}

/**
 * POST /v1/wait: the long poll answers when the jobs end, at the timeout, when the client goes
 * away (its wait is then over: nobody is blocked on it any more) or when the cluster stops (503).
 */
async function waitRoute(call: Call, ctx: RouteContext): Promise<Reply> {
  const caller = call.caller();
  const request = parseWaitRequest(await call.body());
  // Inside a task a relative name is one of its own job's children, as at submit (`kid` = <job>/kid).
  const jobs = request.jobs.map((name, i) => canonicalName(`jobs[${i}]`, nameFromTask(name, caller?.job ?? null)));
  for (const job of jobs) requireInScope(caller, job, 'wait on');
  const timeout = request.timeout;
  const timeoutMs = timeout === undefined ? null : relabel('timeout', () => parseDuration(timeout));
  const gone = new AbortController();
  const abort = () => gone.abort();
  call.res.once('close', abort);
  call.closing.addEventListener('abort', abort, { once: true });
  try {
    const answer = await ctx.service.wait({ jobs, any: request.any ?? false, timeoutMs }, caller, gone.signal);
    if (call.closing.aborted)
      throw new IrisError(
        'unavailable',
        'the iris cluster is stopping',
        'wait again once it has restarted (`iris cluster status`)',
      );
    return ok(answer);
  } finally {
    call.res.off('close', abort);
    call.closing.removeEventListener('abort', abort);
  }
}

/**
 * A task that follows logs until a job ends is blocked on that job just as a wait would be: it
 * is registered as such while the stream lasts.
 */
function followerBlocked(call: Call, ctx: RouteContext, target: string): () => void {
  let caller: TaskCaller | null;
  let job: string;
  try {
    caller = call.caller();
    job = parseTaskName(target)?.job ?? parseJobName(target);
  } catch {
    return () => {};
  }
  return caller ? ctx.service.blockedOn(caller, [job]) : () => {};
}

export const ROUTES: Record<string, Partial<Record<Method, Handler>>> = {
  '/metrics': {
    // Prometheus text exposition format (docs/metrics.md), not JSON.
    GET: async (call, ctx) => {
      const { contentType, text } = await metricsOf(ctx).exposition();
      call.res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) }).end(text);
    },
  },
  '/v1/metrics/density': {
    GET: (_call, ctx) => {
      const series = metricsOf(ctx).density();
      if (!series)
        throw new IrisError(
          'not_found',
          'the density series is off on this cluster',
          'set `metrics: {density: true}` in the config and restart the cluster (docs/configuration.md)',
        );
      return ok(series);
    },
  },
  '/v1/metrics/series': { GET: seriesRoute },
  '/v1/timeline': { GET: timelineRoute },
  '/v1/health': {
    GET: (_call, ctx) => ok({ ok: true, version: ctx.version, pid: process.pid } satisfies HealthResponse),
  },
  '/v1/jobs': {
    GET: (call, ctx) => {
      const caller = call.caller();
      return ok(ctx.service.jobs(jobFilter(call.query)).filter((job) => inScope(caller, job.name)));
    },
    POST: async (call, ctx) => {
      const caller = call.caller();
      const request = parseSubmitRequest(await call.body());
      const origin = { user: ctx.defaultUser, cwd: ctx.defaultCwd };
      if (boolParam(call.query, 'dryRun')) return ok(await ctx.service.estimate(request, caller, origin));
      return ok(await ctx.service.submit(request, caller, origin), 201);
    },
  },
  '/v1/pipelines': {
    POST: async (call, ctx) => {
      const caller = call.caller();
      const request = parsePipelineRequest(await call.body());
      const origin = { user: ctx.defaultUser, cwd: ctx.defaultCwd };
      const response = await ctx.service.submitPipeline(request, caller, origin);
      return ok(response, response.dryRun ? 200 : 201);
    },
  },
  '/v1/queue': {
    GET: (_call, ctx) => ok(ctx.service.queue()),
  },
  '/v1/job': {
    GET: (call, ctx) => {
      const { run } = parseQuery(JobQuerySchema, call.query);
      const ref = resolveJobRef('name', requiredParam(call.query, 'name'), run);
      requireInScope(call.caller(), ref.name, 'read the status of');
      return ok(ctx.service.job(ref.name, ref.run));
    },
  },
  '/v1/history': {
    GET: (call, ctx) => {
      const caller = call.caller();
      const query = historyQuery(call.query);
      // A task sees its own subtree's runs: the prefix narrows to it (so --limit counts only those).
      if (caller && (query.prefix === undefined || isWithin(caller.job, query.prefix))) query.prefix = caller.job;
      else if (caller && !isWithin(query.prefix!, caller.job)) return ok([]);
      return ok(ctx.service.history(query).filter((run) => inScope(caller, run.name)));
    },
  },
  '/v1/task': {
    GET: (call, ctx) => {
      const name = canonicalTarget('name', requiredParam(call.query, 'name'));
      requireInScope(call.caller(), name, 'read the status of');
      return ok(ctx.service.task(name));
    },
  },
  '/v1/jobs/cancel': {
    POST: async (call, ctx) => {
      const { names } = parseCancelRequest(await call.body());
      const canonical = names.map((name, i) => canonicalTarget(`names[${i}]`, name));
      for (const name of canonical) requireInScope(call.caller(), name, 'cancel');
      return ok(await ctx.service.cancel(canonical));
    },
  },
  '/v1/jobs/retry': {
    POST: async (call, ctx) => {
      const { name, downstream } = parseRetryRequest(await call.body());
      const job = canonicalName('name', nameFromTask(name, call.caller()?.job ?? null));
      requireInScope(call.caller(), job, 'retry');
      return ok(await ctx.service.retry(job, downstream ?? false));
    },
  },
  '/v1/jobs/update': {
    POST: async (call, ctx) => {
      const { name, priority } = parseUpdateRequest(await call.body());
      const job = canonicalName('name', nameFromTask(name, call.caller()?.job ?? null));
      requireInScope(call.caller(), job, 'update');
      return ok(ctx.service.update(job, priority, ctx.defaultUser, call.caller()));
    },
  },
  '/v1/cluster': {
    GET: (call, ctx) => {
      const info = ctx.service.cluster();
      return ok({ ...info, workers: scopedWorkers(call.caller(), info.workers, ctx.service) });
    },
  },
  '/v1/cluster/stop': {
    POST: async (_call, ctx) => {
      await ctx.service.stop();
      return ok({ stopped: true });
    },
  },
  '/v1/workers': {
    GET: (call, ctx) => ok(scopedWorkers(call.caller(), ctx.service.workers(), ctx.service)),
  },
  '/v1/workers/drain': { POST: workerChange(parseDrainRequest, (service, name) => service.drain(name)) },
  '/v1/workers/resume': { POST: workerChange(parseResumeRequest, (service, name) => service.resume(name)) },
  '/v1/workers/disable': {
    POST: async (call, ctx) => {
      const { name, reason } = parseDisableRequest(await call.body());
      return ok(await ctx.service.disable(name, reason ?? ''));
    },
  },
  '/v1/workers/enable': { POST: workerChange(parseEnableRequest, (service, name) => service.enable(name)) },
  '/v1/prune': {
    POST: async (call, ctx) => {
      const request = parsePruneRequest(await call.body());
      const olderThanMs = request.olderThan === undefined ? undefined : pruneAgeMs(request.olderThan, 'olderThan');
      return ok(
        await ctx.service.prune({
          ...(olderThanMs === undefined ? {} : { olderThanMs }),
          dryRun: request.dryRun === true,
        }),
      );
    },
  },
  '/v1/endpoints': {
    GET: (call, ctx) => ok(ctx.service.endpoints(optionalParam(call.query, 'prefix'))),
    POST: async (call, ctx) => {
      const caller = requireTaskCaller(call.caller(), 'endpoint');
      const { name, address } = parseEndpointRequest(await call.body());
      return ok(ctx.service.registerEndpoint(caller, name, address), 201);
    },
  },
  '/v1/results': {
    GET: (call, ctx) => {
      const caller = call.caller();
      const { job: given, run } = parseQuery(ResultsQuerySchema, call.query);
      // Inside a task a relative name is one of its own job's children, as at submit.
      const ref = resolveJobRef('query parameter "job"', nameFromTask(given, caller?.job ?? null), run);
      requireInTree(caller, ref.name, 'read the results of');
      return ok(ctx.service.results(ref.name, ref.run));
    },
    POST: async (call, ctx) => {
      const caller = requireTaskCaller(call.caller(), 'result');
      const { key, value } = parseResultRequest(await call.body());
      return ok(ctx.service.setResults(caller, { [checkResultKey('key', key)]: checkResultValue('value', value) }));
    },
  },
  '/v1/logs': {
    GET: async (call, ctx) => {
      const query = logQuery(call.query, ctx.now());
      requireInScope(call.caller(), query.target, 'read the logs of');
      const unblock = query.follow ? followerBlocked(call, ctx, query.target) : () => {};
      try {
        await ctx.stream(call, (signal) => ctx.service.logs(query, signal), 'GET /v1/logs');
      } finally {
        unblock();
      }
    },
  },
  '/v1/wait': {
    POST: waitRoute,
  },
  '/v1/dashboard': {
    POST: async (_call, ctx) => {
      if (!ctx.dashboard)
        throw new IrisError(
          'unavailable',
          'this server has no dashboard',
          "ask the running cluster's owner socket (<home>/run/iris.sock): `iris dashboard`",
        );
      return ok(await ctx.dashboard());
    },
  },
  '/v1/events': {
    GET: (call, ctx) => {
      const caller = call.caller();
      const current = boolParam(call.query, 'current');
      return ctx.stream(
        call,
        (signal) => scopedEvents(caller, ctx.service.events(signal, { current })),
        'GET /v1/events',
      );
    },
  },
};

/**
 * A task caller's event stream: events of its subtree's jobs and tasks only (no workers, no endpoints outside it), and
 * the SYNCED marker.
 */
async function* scopedEvents<T extends { type: string; name: string }>(
  caller: TaskCaller | null,
  events: AsyncIterable<T>,
): AsyncIterable<T> {
  for await (const event of events) {
    if (caller === null || event.type === 'cluster' || (event.type !== 'worker' && inScope(caller, event.name)))
      yield event;
  }
}
