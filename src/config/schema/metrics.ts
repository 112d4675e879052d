/**
 * The `metrics:` section of the config file (docs/configuration.md, "metrics"): the loopback
 * metrics port, the density series and the interval of the in-memory series (GET
 * /v1/metrics/series). Resolved into IrisConfig.metrics.
 */
import { invalid } from '../../model/errors.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { durationMs, object } from './fields.js';
import { z } from 'zod';

/** Default length of a density bucket. */
export const DEFAULT_DENSITY_BUCKET_MS = 60_000;
/** Shortest density bucket (a second): shorter ones would write the file for nothing. */
export const MIN_DENSITY_BUCKET_MS = 1_000;

/** Default interval of the in-memory series (its ring then holds the last hour). */
export const DEFAULT_SERIES_INTERVAL_MS = 10_000;
/** Shortest series interval: shorter would sample for nothing (tests use a short one). */
export const MIN_SERIES_INTERVAL_MS = 100;

/**
 * A TCP port 1..65535: the rule for `metrics.port`. `--metrics-port` is checked by its own flag
 * (commands/cluster/start.ts, min 1 max 65535) and again by server/cluster-process.ts.
 */
export function checkMetricsPort(value: unknown, what = 'metrics port'): number {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) {
    throw invalid(
      `invalid ${what} ${describeValue(value)}: expected a TCP port from 1 to 65535`,
      'for example 9464 (the metrics are then at http://127.0.0.1:9464/metrics)',
    );
  }
  return number;
}

const port = parseWith<number, number | string>((value) => checkMetricsPort(value, 'metrics.port'));
const bucket = parseWith<number, number | string>((value) => {
  const ms = durationMs(value, 'metrics.density-bucket');
  if (ms < MIN_DENSITY_BUCKET_MS)
    throw invalid(
      `invalid metrics.density-bucket ${describeValue(value)}: must be at least 1s`,
      'for example density-bucket: 60s',
    );
  return ms;
});

const seriesInterval = parseWith<number, number | string>((value) => {
  const ms = durationMs(value, 'metrics.series-interval');
  if (ms < MIN_SERIES_INTERVAL_MS)
    throw invalid(
      `invalid metrics.series-interval ${describeValue(value)}: must be at least 100ms`,
      'for example series-interval: 10s',
    );
  return ms;
});

export const metrics = object(
  {
    port: port.nullish(),
    density: z.boolean().nullish(),
    'density-bucket': bucket.nullish(),
    'series-interval': seriesInterval.nullish(),
  },
  'an object { port, density, density-bucket, series-interval }',
).nullish();

/** `metrics` resolved: `port` null: no metrics port (the socket's /metrics is always there). */
export interface MetricsConfig {
  port: number | null;
  density: boolean;
  densityBucketMs: number;
  /** How often the in-memory series (GET /v1/metrics/series) takes a sample. */
  seriesIntervalMs: number;
}

export function resolveMetrics(file: z.output<typeof metrics>): MetricsConfig {
  return {
    port: file?.port ?? null,
    density: file?.density ?? false,
    densityBucketMs: file?.['density-bucket'] ?? DEFAULT_DENSITY_BUCKET_MS,
    seriesIntervalMs: file?.['series-interval'] ?? DEFAULT_SERIES_INTERVAL_MS,
  };
}
