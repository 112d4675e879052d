/**
 * IrisClient: the one interface commands use. The socket client implements it; tests may
 * implement it with fakes.
 */
import type {
  ClusterInfo, EndpointInfo, EstimateResponse, JobDetail, QueueInfo, JobFilter, JobSummary, LogLine, LogQuery, SubmitRequest, SubmitResponse, WorkerInfo,
} from '../api/types.js';
import type { ClusterEvent } from '../model/events.js';

export interface IrisClient {
  submit(request: SubmitRequest): Promise<SubmitResponse>;
  /** When the job would start if submitted now; nothing is submitted. */
  estimate(request: SubmitRequest): Promise<EstimateResponse>;
  queue(): Promise<QueueInfo>;
  jobs(filter?: JobFilter): Promise<JobSummary[]>;
  job(name: string): Promise<JobDetail>;
  cancel(names: string[]): Promise<{ cancelled: string[] }>;
  cluster(): Promise<ClusterInfo>;
  stopCluster(): Promise<void>;
  workers(): Promise<WorkerInfo[]>;
  drain(worker: string): Promise<WorkerInfo>;
  endpoints(prefix?: string): Promise<EndpointInfo[]>;
  registerEndpoint(name: string, address: string): Promise<EndpointInfo>;
  /** Streams log lines; with follow, until the target job and its descendants end or the signal aborts. */
  logs(query: LogQuery, signal?: AbortSignal): AsyncIterable<LogLine>;
  /** Streams cluster events until the signal aborts. */
  events(signal?: AbortSignal): AsyncIterable<ClusterEvent>;
}
