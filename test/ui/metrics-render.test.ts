import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../src/ui/prometheus-text.js';
import { densitySvg, densityTable } from '../../src/ui/density-plot.js';
import type { DensitySeries } from '../../src/api/metrics.js';

describe('Prometheus text reader', () => {
  it('reads samples with labels, escapes and special values, skipping comments', () => {
    const text = [
      '# HELP iris_jobs Jobs by state.',
      '# TYPE iris_jobs gauge',
      'iris_jobs{state="SUCCEEDED"} 1',
      'iris_x{a="q\\"uote",b="back\\\\slash",c="new\\nline"} 2.5 1700000000000',
      'iris_y_bucket{le="+Inf"} +Inf',
      'iris_z NaN',
      'iris_lag Nan',
      '',
    ].join('\n');
    const samples = parsePrometheusText(text);
    expect(samples[0]).toEqual({ name: 'iris_jobs', labels: { state: 'SUCCEEDED' }, value: 1 });
    expect(samples[1]).toEqual({
      name: 'iris_x',
      labels: { a: 'q"uote', b: 'back\\slash', c: 'new\nline' },
      value: 2.5,
    });
    expect(samples[2]!.value).toBe(Infinity);
    expect(Number.isNaN(samples[3]!.value)).toBe(true);
    // prom-client's spelling (a fresh process's event loop lag).
    expect(Number.isNaN(samples[4]!.value)).toBe(true);
  });

  it('refuses a line that is not a sample, naming it', () => {
    expect(() => parsePrometheusText('iris_ok 1\n{broken 2')).toThrow(/line 2: \{broken 2/);
  });
});

const series: DensitySeries = {
  version: 1,
  bucketSeconds: 60,
  updatedAt: 0,
  buckets: [
    { start: Date.UTC(2026, 0, 1, 10, 0), submissions: 0, activeWorkers: 2 },
    { start: Date.UTC(2026, 0, 1, 10, 1), submissions: 7, activeWorkers: 4 },
    { start: Date.UTC(2026, 0, 1, 10, 2), submissions: 3, activeWorkers: 4 },
  ],
};

describe('density rendering', () => {
  it('draws two polylines, one point per bucket, with axis titles and UTC times', () => {
    const svg = densitySvg(series);
    expect(svg.startsWith('<svg')).toBe(true);
    const lines = [...svg.matchAll(/<polyline id="([a-z-]+)"[^>]* points="([^"]+)"/g)].map((m) => [
      m[1],
      m[2]!.split(' ').length,
    ]);
    expect(lines).toEqual([
      ['submissions', 3],
      ['active-workers', 3],
    ]);
    for (const text of ['time (UTC)', 'tasks submitted per bucket', 'active workers', '10:00', '10:02'])
      expect(svg).toContain(text);
    // Plot area x 64..736, y 40..344; the submissions axis is rounded up to 8 (ticks of 2), the workers one is 0..4.
    expect(svg).toContain('points="64,344 400,78 736,230"');
    expect(svg).toContain('points="64,192 400,40 736,40"');
  });

  it('draws an empty series without failing', () => {
    expect(densitySvg({ ...series, buckets: [] })).toContain('<polyline id="submissions"');
  });

  it('prints one aligned row per bucket', () => {
    expect(densityTable(series).split('\n')).toEqual([
      'BUCKET (UTC)         SUBMITTED  ACTIVE WORKERS',
      '2026-01-01 10:00:00          0               2',
      '2026-01-01 10:01:00          7               4',
      '2026-01-01 10:02:00          3               4',
    ]);
  });
});
