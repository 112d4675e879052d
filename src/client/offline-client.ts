/**
 * The client commands get for reading when no cluster answers: a ReadClient over the saved state
 * (server/offline.ts), in this process. It answers `jobs`, `job`, `task`, `history`, `logs`,
 * `logBatches` and `results` exactly as a running cluster would (logs are not followed: nothing
 * runs); every other method throws IrisError('unavailable') with the hint to start a cluster.
 *
 * The one client that reaches into the server, and only through server/offline.ts, the seam the
 * server offers for it (.dependency-cruiser.cjs, `client-reaches-the-server-only-offline`).
 * Loaded only on that path (BaseCommand.readClient imports it dynamically, a rule too), so
 * reading commands that reach a cluster load neither this module nor the store behind it.
 */
import type { ReadClient } from './types.js';
import type {
  ResultsResponse,
  HistoryQuery,
  TaskDetail,
  JobDetail,
  JobFilter,
  JobSummary,
  LogBatch,
  LogLine,
  LogQuery,
  RunInfo,
} from '../api/types.js';
import { batchLines } from '../api/log-batch.js';
import { resolveJobRef } from '../model/names.js';
import { openOffline, type OfflineCluster } from '../server/offline.js';

export class OfflineClient implements ReadClient {
  private constructor(private readonly cluster: OfflineCluster) {}

  /** The saved state of `home`; throws (exit 6) when there is none or it cannot be read (server/offline.ts). */
  static open(home: string): OfflineClient {
    return new OfflineClient(openOffline(home));
  }

  get home(): string {
    return this.cluster.home;
  }

  /** `read()`, its failure explained by the saved state (a cluster that started meanwhile, server/offline.ts). */
  private async reading<T>(read: () => Promise<T> | T): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw this.cluster.explain(error);
    }
  }

  async jobs(filter: JobFilter = {}): Promise<JobSummary[]> {
    return this.reading(() => this.cluster.service.jobs(filter));
  }

  /** `name` may be NAME@RUN, as on the wire (GET /v1/job). */
  async job(name: string, run?: number): Promise<JobDetail> {
    const ref = resolveJobRef('name', name, run);
    return this.reading(() => this.cluster.service.job(ref.name, ref.run));
  }

  /** `name` may be NAME@RUN, as on the wire (GET /v1/results). */
  async results(name: string, run?: number): Promise<ResultsResponse> {
    const ref = resolveJobRef('job', name, run);
    return this.reading(() => this.cluster.service.results(ref.name, ref.run));
  }

  async task(name: string): Promise<TaskDetail> {
    return this.reading(() => this.cluster.service.task(name));
  }

  async history(query: HistoryQuery = {}): Promise<RunInfo[]> {
    return this.reading(() => this.cluster.service.history(query));
  }

  async *logs(query: LogQuery, signal?: AbortSignal): AsyncGenerator<LogLine> {
    for await (const batch of this.logBatches(query, signal)) yield* batchLines(batch);
  }

  async *logBatches(query: LogQuery, signal?: AbortSignal): AsyncGenerator<LogBatch> {
    const abort = new AbortController();
    const onAbort = () => abort.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // The target may be NAME@RUN[/task-N], as on the wire (GET /v1/logs).
      const ref = resolveJobRef('target', query.target, query.run);
      const resolved: LogQuery = { ...query, target: ref.target, follow: false };
      if (ref.run !== null) resolved.run = ref.run;
      yield* this.cluster.service.logs(resolved, abort.signal);
    } catch (error) {
      throw this.cluster.explain(error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      abort.abort();
    }
  }

  close(): void {
    this.cluster.close();
  }
}
