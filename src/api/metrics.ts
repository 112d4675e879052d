/**
 * The protocol of the metrics routes (docs/api.md, "Metrics"), the metrics file (docs/metrics.md,
 * "metrics.json") and the density series file (docs/metrics.md, "Density series"). Types and
 * names only.
 */

/** Where the metrics file is written, relative to the state directory. */
export const METRICS_FILE = 'metrics/metrics.json';

/** One metric family of the metrics file: its samples as the exposition text has them. */
export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  help: string;
  /** The exposition's sample lines of this family, in order (a histogram's `_bucket`, `_sum`, `_count`). */
  samples: MetricSample[];
}

/** The content of `<home>/metrics/metrics.json`. */
export interface MetricsFileContent {
  version: 2;
  /** When the values were read, ISO 8601 in UTC (`2025-01-02T12:00:00.000Z`), as the CLI's --json prints instants. */
  updatedAt: string;
  metrics: MetricFamily[];
}

/** Where the density series is written, relative to the state directory. */
export const DENSITY_FILE = 'metrics/task_worker_density.json';

/** One bucket of the density series. */
export interface DensityBucket {
  /** Start of the bucket, epoch milliseconds (a multiple of the bucket length). */
  start: number;
  /** Tasks submitted in the bucket (a job with --replicas N counts N). */
  submissions: number;
  /** READY workers (enabled, not draining) at the bucket's last sample. */
  activeWorkers: number;
}

/** The density series: the file's content and the answer of GET /v1/metrics/density. */
export interface DensitySeries {
  version: 1;
  bucketSeconds: number;
  /** When the series was last written (epoch ms). */
  updatedAt: number;
  /** Oldest first, one entry per bucket without gaps, at most DENSITY_MAX_BUCKETS. */
  buckets: DensityBucket[];
}

/** Most buckets kept (older ones are dropped): a week of one-minute buckets. */
export const DENSITY_MAX_BUCKETS = 10_080;

/**
 * One sample of the Prometheus text (`iris metrics --json`, the metrics file). In the file a value
 * that JSON cannot hold (NaN, ±Inf) is null.
 */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One sample of the in-memory series (GET /v1/metrics/series). */
export interface SeriesSample {
  /** When it was taken, epoch ms. */
  time: number;
  /** Jobs in state PENDING (their tasks wait for a worker). */
  pendingJobs: number;
  /** Live attempts (placed tasks: assigned or running). */
  runningTasks: number;
  /** CPU in cores: what running tasks hold, and the workers' capacity. */
  cpu: { used: number; total: number };
  memoryBytes: { used: number; total: number };
  /** Accelerator devices (GPUs, TPU chips). */
  accelerators: { used: number; total: number };
}

/** The answer of GET /v1/metrics/series: the samples oldest first, at most SERIES_MAX_SAMPLES. */
export interface MetricsSeries {
  intervalMs: number;
  samples: SeriesSample[];
}

/** Samples the series keeps (older ones are dropped): an hour at the default interval of 10 s. */
export const SERIES_MAX_SAMPLES = 360;
