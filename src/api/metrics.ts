/**
 * The protocol of the metrics routes (docs/api.md, "Metrics") and the density series file
 * (docs/metrics.md, "Density series"). Types and names only.
 */

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

/** One sample of the Prometheus text (`iris metrics --json`). */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
