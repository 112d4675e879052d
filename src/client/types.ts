/**
 * IrisClient: the one interface commands use. The socket client implements it; tests may
 * implement it with fakes.
 */
import type { PipelineRequest, PipelineResponse } from '../api/pipeline-request.js';
import type * as api from '../api/types.js';
import type { Band } from '../model/band.js';
import type { ClusterEvent } from '../model/events.js';
import type { DensitySeries } from '../api/metrics.js';
import type { ExecConnection, ExecOutput } from './exec-client.js';

/** The reading part of IrisClient: what a stopped cluster answers too (offline-client.ts). */
export type ReadClient = Pick<IrisClient, 'jobs' | 'job' | 'task' | 'history' | 'logs' | 'logBatches' | 'results'>;

export interface IrisClient {
  submit(request: api.SubmitRequest): Promise<api.SubmitResponse>;
  /** When the job would start if submitted now; nothing is submitted. */
  estimate(request: api.SubmitRequest): Promise<api.EstimateResponse>;
  /** Submit a pipeline (its root job and stages, all or nothing); with `dryRun` check it and submit nothing. */
  submitPipeline(request: PipelineRequest): Promise<PipelineResponse>;
  queue(): Promise<api.QueueInfo>;
  jobs(filter?: api.JobFilter): Promise<api.JobSummary[]>;
  /** The job's latest run, or run `run` (also `name@RUN`); not_found lists the name's runs. */
  job(name: string, run?: number): Promise<api.JobDetail>;
  /** Runs, live and archived, newest first (`iris history`). */
  history(query?: api.HistoryQuery): Promise<api.RunInfo[]>;
  /** One task of a job, `train/task-3`. */
  task(name: string): Promise<api.TaskDetail>;
  /**
   * Runs a command in a task's running attempt (`iris exec`): resolves once it started, with the
   * connection that carries its input and output; refusals (not running: not_found) reject here.
   */
  exec(request: api.ExecRequest, output: ExecOutput): Promise<ExecConnection>;
  /** Cancel jobs and single tasks (`train/task-3`). */
  cancel(names: string[]): Promise<api.CancelResponse>;
  /** Run an ended job again (a new run), with `downstream` also the jobs its failure cascaded to. */
  retry(name: string, downstream: boolean): Promise<api.RetryResponse>;
  /** Move a job that has not ended to another band (`iris update --priority`). */
  update(name: string, priority: Band): Promise<api.UpdateResponse>;
  cluster(): Promise<api.ClusterInfo>;
  /**
   * Asks the cluster to stop and gives its pid. With `wait`, resolves only once the controller no
   * longer answers and its process is gone; IrisError('unavailable') after `timeoutMs` (default 60 s).
   */
  stopCluster(options?: StopClusterOptions): Promise<{ pid: number }>;
  workers(): Promise<api.WorkerInfo[]>;
  drain(worker: string): Promise<api.WorkerInfo>;
  /** Undrain: IrisError('not_found') for an unknown worker, ('conflict') for one that is not DRAINED. */
  resume(worker: string): Promise<api.WorkerInfo>;
  /**
   * No new tasks on the worker, running ones go on: IrisError('not_found') unknown, ('conflict') draining or drained.
   */
  disable(worker: string, reason?: string): Promise<api.WorkerInfo>;
  /**
   * Enable a disabled worker (an enabled one is left as it is): ('not_found') unknown, ('conflict') draining or
   * drained.
   */
  enable(worker: string): Promise<api.WorkerInfo>;
  /**
   * Removes runs that ended longer ago than `olderThan` (a duration; default the cluster's `retention`) with their
   * logs.
   */
  prune(request: api.PruneRequest): Promise<api.PruneResponse>;
  endpoints(prefix?: string): Promise<api.EndpointInfo[]>;
  registerEndpoint(name: string, address: string): Promise<api.EndpointInfo>;
  /** Results of a job's tasks (latest run, `run`, or `name@RUN`); inside a task, of jobs in its tree. */
  results(job: string, run?: number): Promise<api.ResultsResponse>;
  /** Sets a result of the calling task's running attempt (only inside a task: it needs IRIS_TASK_TOKEN). */
  setResult(key: string, value: string): Promise<api.ResultsResponse>;
  /** Streams log lines; with follow, until the target job and its descendants end or the signal aborts. */
  logs(query: api.LogQuery, signal?: AbortSignal): AsyncIterable<api.LogLine>;
  /** The same lines as they come over the wire: batches of one attempt and stream (cheaper for big logs). */
  logBatches(query: api.LogQuery, signal?: AbortSignal): AsyncIterable<api.LogBatch>;
  /**
   * Resolves with the job once it and its subtree are in final states (SUCCEEDED, FAILED, …),
   * through the long-poll route POST /v1/wait (asked again while it times out). Inside a task
   * the wait releases the task's CPU when the job is in its own subtree. Rejects with the
   * signal's reason on abort.
   */
  wait(job: string, signal?: AbortSignal): Promise<api.JobDetail>;
  /**
   * Waits for several jobs (and their subtrees): all of them, or with `any` the first to end.
   * With `timeout` one long poll that may answer `done: false`; without, until they end.
   */
  waitJobs(request: api.WaitRequest, signal?: AbortSignal): Promise<api.WaitResponse>;
  /**
   * Streams cluster events until the signal aborts. With `current`, the stream opens with the
   * unfinished jobs as they are now and a `{type: "cluster", state: "SYNCED"}` marker.
   */
  events(signal?: AbortSignal, options?: EventOptions): AsyncIterable<ClusterEvent>;
  /** The Prometheus text of GET /metrics (owner only). */
  metrics(): Promise<string>;
  /** The density series (GET /v1/metrics/density); not_found when `metrics.density` is off. */
  density(): Promise<DensitySeries>;
  /**
   * The web dashboard (POST /v1/dashboard, owner only): started by the cluster on the first call,
   * answered with its address and a login link holding a fresh one-time token.
   */
  dashboard(): Promise<api.DashboardResponse>;
}

export interface EventOptions {
  current?: boolean;
}

export interface StopClusterOptions {
  /** Wait until the controller no longer answers and its process has exited. */
  wait?: boolean;
  /** How long to wait, in ms (default 60 000). */
  timeoutMs?: number;
}
