/**
 * ClusterService: the server-side interface the controller implements and the HTTP server
 * (server.ts) exposes on the unix socket. Synchronous methods read the store; methods
 * that change state return promises. Errors are IrisError (their code maps to the HTTP status).
 */
import type { ClusterEvent } from '../model/events.js';
import type { EventFeedOptions } from './event-feed.js';
import type { TaskCaller } from '../model/caller.js';
import type * as api from '../api/types.js';
import type { Band } from '../model/band.js';
import type { PipelineRequest, PipelineResponse } from '../api/pipeline-request.js';
import type { WaitQuery } from './wait.js';
import type { ExecStarted } from './exec-service.js';
import type { TimelineResponse } from '../api/timeline.js';

/** Who submits when the request and its task token say nothing: the server's user and directory. */
export interface SubmitOrigin {
  user: string;
  cwd: string;
}

export interface ClusterService {
  /** Admit a shape-checked request (src/cluster/admission) and store the job. */
  submit(request: api.SubmitRequest, caller: TaskCaller | null, origin: SubmitOrigin): Promise<api.SubmitResponse>;
  /** Admit a pipeline (its root and stages) and store all its jobs in one transaction; `dryRun`: store nothing. */
  submitPipeline(request: PipelineRequest, caller: TaskCaller | null, origin: SubmitOrigin): Promise<PipelineResponse>;
  /**
   * Runs a command in a task's running attempt (`iris exec`, exec-service.ts): recorded on the
   * task first; not_found (with the state) when it does not run; `owner`: the user named for an
   * exec without a task caller. The caller's scope is the route's to check.
   */
  exec?(request: api.ExecRequest, caller: TaskCaller | null, owner: string): Promise<ExecStarted>;
  /** What `submit` would do with this request, without submitting it. */
  estimate(request: api.SubmitRequest, caller: TaskCaller | null, origin: SubmitOrigin): Promise<api.EstimateResponse>;
  /** Pending jobs in scheduling order with reasons and reservations. */
  queue(): api.QueueInfo;
  jobs(filter: api.JobFilter): api.JobSummary[];
  /**
   * The job's latest run, or its run `run` (live or archived). Throws IrisError('not_found') for
   * an unknown job or run (the hint lists the name's runs).
   */
  job(name: string, run?: number | null): api.JobDetail;
  /** Runs (live and archived) matching the query, newest first (`iris history`). */
  history(query: api.HistoryQuery): api.RunInfo[];
  /** The attempts that ran on any worker between `from` and `to` (epoch ms), newest first, bounded (timeline.ts). */
  timeline(from: number, to: number): TimelineResponse;
  /**
   * One task (`/j/task-3`); IrisError('not_found') for an unknown job or task index (the hint says how many tasks the
   * job has).
   */
  task(name: string): api.TaskDetail;
  /**
   * Cancel jobs (with their subtrees) and single tasks (`/j/task-3`); ended ones are reported, not changed. A job that
   * ended with jobs below it still live is not ended yet as a tree: those jobs are cancelled.
   */
  cancel(names: string[]): Promise<api.CancelResponse>;
  /** Run an ended job again, and with `downstream` the jobs its failure cascaded to (ClusterStore.retry). */
  retry(name: string, downstream: boolean): Promise<api.RetryResponse>;
  /** Move a job that has not ended to another band (admission/band.ts rules; lifecycle/bands.ts). */
  update(name: string, priority: Band, owner: string, caller?: TaskCaller | null): api.UpdateResponse;
  cluster(): api.ClusterInfo;
  /** Graceful shutdown; the server responds before the process exits. */
  stop(): Promise<void>;
  workers(): api.WorkerInfo[];
  /** The `uses` keys of the jobs of one tree (the root job `root` and every job below it). */
  treeUses(root: string): ReadonlySet<string>;
  drain(worker: string): Promise<api.WorkerInfo>;
  /** Undrain: IrisError('not_found') for an unknown worker, ('conflict') for one that is not DRAINED. */
  resume(worker: string): Promise<api.WorkerInfo>;
  /**
   * No new tasks on the worker, running ones go on: IrisError('not_found') unknown, ('conflict') draining or drained.
   */
  disable(worker: string, reason: string): Promise<api.WorkerInfo>;
  /**
   * Enable a disabled worker (an enabled one is left as it is): ('not_found') unknown, ('conflict') draining or
   * drained.
   */
  enable(worker: string): Promise<api.WorkerInfo>;
  endpoints(prefix?: string): api.EndpointInfo[];
  registerEndpoint(caller: TaskCaller, name: string, address: string): api.EndpointInfo;
  /**
   * Results of run `run` of job `name` (null: its latest run), live or archived; not_found for an unknown job or run.
   */
  results(name: string, run: number | null): api.ResultsResponse;
  /**
   * Sets results for the caller's running attempt (model/results.ts checks them first); answers with its job's results.
   */
  setResults(caller: TaskCaller, entries: Record<string, string>): api.ResultsResponse;
  /** The caller for a token from IRIS_TASK_TOKEN of a running attempt, or null when unknown. */
  callerForToken(token: string): TaskCaller | null;
  /**
   * Retention: prune runs that ended longer ago than `olderThanMs` (default: the config's `retention`), with their
   * logs.
   */
  prune(request: { olderThanMs?: number; dryRun?: boolean }): Promise<api.PruneResponse>;
  logs(query: api.LogQuery, signal: AbortSignal): AsyncIterable<api.LogBatch>;
  /**
   * Answers when the jobs and their subtrees have ended (`any`: one of them), or with
   * `done: false` at the timeout or when the signal aborts (wait.ts). With a caller the wait is
   * registered for the controller meanwhile (a task waiting on its own subtree releases its CPU).
   * Throws IrisError('not_found') for an unknown job.
   */
  wait(query: WaitQuery, caller: TaskCaller | null, signal: AbortSignal): Promise<api.WaitResponse>;
  /** Registers `caller` as blocked on `jobs` (e.g. following their logs) until the returned function is called. */
  blockedOn(caller: TaskCaller, jobs: string[]): () => void;
  /** The change stream (event-feed.ts); with `current`, the unfinished jobs first, then SYNCED. */
  events(signal: AbortSignal, options?: EventFeedOptions): AsyncIterable<ClusterEvent>;
}
