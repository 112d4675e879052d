import { describe, expect, it } from 'vitest';
import { messageOf, PROBE, SOURCE } from './probe.js';
import { validateConfig } from '../../src/config/index.js';

describe('config: metrics', () => {
  it('defaults: no port, no density series, 60 s buckets, a series sample every 10 s', () => {
    expect(validateConfig({}, SOURCE, PROBE).metrics).toEqual({
      port: null,
      density: false,
      densityBucketMs: 60_000,
      seriesIntervalMs: 10_000,
    });
  });

  it('reads port, density and density-bucket', () => {
    expect(
      validateConfig({ metrics: { port: 9464, density: true, 'density-bucket': '5m' } }, SOURCE, PROBE).metrics,
    ).toEqual({ port: 9464, density: true, densityBucketMs: 300_000, seriesIntervalMs: 10_000 });
  });

  it('reads series-interval, at least 100ms', () => {
    expect(validateConfig({ metrics: { 'series-interval': '250ms' } }, SOURCE, PROBE).metrics.seriesIntervalMs).toBe(
      250,
    );
    expect(messageOf({ metrics: { 'series-interval': '50ms' } })).toMatch(
      /metrics\.series-interval.*must be at least 100ms \| for example series-interval: 10s/,
    );
  });

  it('refuses a bad port, a too short bucket and unknown keys with the key named', () => {
    expect(messageOf({ metrics: { port: 70000 } })).toMatch(
      /metrics\.port.*expected a TCP port from 1 to 65535 \| for example 9464/,
    );
    expect(messageOf({ metrics: { 'density-bucket': '10ms' } })).toMatch(/density-bucket.*must be at least 1s/);
    expect(messageOf({ metrics: { densty: true } })).toMatch(/densty/);
  });
});
