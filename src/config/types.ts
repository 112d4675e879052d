/**
 * The resolved iris configuration. The shape of the file users write (`IrisConfigFile`, …) is
 * inferred from the zod schemas in src/config/schema/validate.ts, so it cannot drift from validation.
 */
import type { z } from 'zod';
import type { Quota, WorkerSpec } from '../model/types.js';
import type { PlacementOptions } from '../cluster/scheduler/placement/modes.js';
import type { QueuesConfig } from './schema/queues.js';
import type { ElasticConfig, PreemptionConfig, queue, RuntimeConfig } from './schema/settings.js';
import type { MetricsConfig } from './schema/metrics.js';
import type { DashboardConfig } from './schema/dashboard.js';
import type { BackendConfig } from './schema/backend.js';

export type { BackendConfig } from './schema/backend.js';
import type { TaskDoorConfig } from './schema/task-door.js';
import type { ConnectionsConfig } from './schema/connections.js';

/** Queue policies of the scheduler; `first-fit` is the plain skipping first fit. */
export { QUEUE_POLICIES, type QueuePolicy } from '../cluster/scheduler/queue/options.js';
export type { ContainerNetwork, RuntimeConfig, RuntimeKind } from './schema/settings.js';

/**
 * `policy`; `depth`: pending jobs one scheduling pass considers; `reservationDepth`: blocked
 * jobs that get a reservation under `hybrid`; `maxReservationDepth`: its upper bound, and the
 * most reservations `conservative` holds (at most the scheduler's MAX_RESERVATION_DEPTH).
 */
export type QueueConfig = z.output<typeof queue>;

export interface IrisConfig {
  /** Absolute path of the file loaded, or null when built-in defaults are used. */
  source: string | null;
  /**
   * State directory from the file's `home:` (`~` expanded, relative to the file), or null. `IRIS_HOME` wins over it;
   * the caller decides.
   */
  home: string | null;
  /**
   * Resolved workers: `workers:` (pools expanded) followed by the hosts of `slices:`; with
   * neither key, one worker "local" with this machine's CPUs, memory and detected GPUs.
   */
  workers: WorkerSpec[];
  /** Per-user limits, keyed by user name. */
  quotas: Map<string, Quota>;
  /** `production-users`: who besides the owner may submit production jobs (docs/priorities.md). */
  productionUsers: string[];
  /** `preemption`: whether a higher band may stop lower-band work, its grace and exempt time. */
  preemption: PreemptionConfig;
  /** `task-door`: the task door also on TCP, and the URL tasks are given; null: the socket task door only. */
  taskDoor: TaskDoorConfig | null;
  /** `connections`: the caps and timeouts of the doors (null caps: sized at start against the open-file limit). */
  connections: ConnectionsConfig;
  defaults: {
    maxPreemptions: number;
    stopGraceMs: number;
    /** Time limit of a job that gives none (`time-limit:`). */
    timeLimitMs: number;
    /** `retry-backoff`: the first wait before a failed task's retry of a job that gives none; null: none. */
    retryBackoffMs: number | null;
  };
  queue: QueueConfig;
  /** `queues:` with `default-queue:` (schema/queues.ts); null: one queue over every worker (`queue:`). */
  queues: QueuesConfig | null;
  runtime: RuntimeConfig;
  /** `deadlock-grace`: how long a job may stay deadlocked before it ends UNSCHEDULABLE. */
  deadlockGraceMs: number;
  /** `log-limit`: bytes of output per attempt after which its log is cut with a marker line. */
  logLimitBytes: number;
  /** `retention`: finished runs older than this are pruned with their logs; null (`never`): kept until `iris prune`. */
  retentionMs: number | null;
  /** `keep-finished`: finished job trees kept in memory (the newest); older ones are read from the archive. */
  keepFinished: number;
  /**
   * `placement.stickiness` (default true): a sticky pipeline stage runs where its parent stage ran (docs/pipelines.md).
   * `placement.mode`, `selection`, `lambda`, `jitter`: how a task's worker is chosen (docs/configuration.md,
   * "Placement").
   */
  placement: PlacementOptions & {
    stickiness: boolean;
    /**
     * `placement.cache-ttl` (default 1h): how long a worker keeps a context-reuse hint after a task using the key ended
     * there.
     */
    cacheTtlMs: number;
  };
  /** `metrics`: the loopback metrics port (null: none) and the density series (docs/metrics.md). */
  metrics: MetricsConfig;
  /** `dashboard`: where the web dashboard listens (docs/configuration.md, "dashboard"). */
  dashboard: DashboardConfig;
  /** `elastic`: the elastic coordinator's settings; null when `elastic.enabled` is not true (docs/configuration.md). */
  elastic: ElasticConfig | null;
  /** `backend`: local workers (default) or a Kubernetes cluster's Nodes and Pods (docs/kubernetes.md). */
  backend: BackendConfig;
}
