/** The in-memory metrics series (server/metrics/series.ts): a bounded, ordered ring sampled at its interval. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Ring, SeriesRecorder, seriesFigures } from '../../../src/server/metrics/series.js';
import { SERIES_MAX_SAMPLES } from '../../../src/api/metrics.js';
import type { ClusterInfo, WorkerInfo } from '../../../src/api/types.js';

describe('the ring', () => {
  it('keeps the last `capacity` items, oldest first, whatever was pushed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (capacity, items) => {
        const ring = new Ring<number>(capacity);
        for (const item of items) ring.push(item);
        expect(ring.toArray()).toEqual(items.slice(-capacity));
        expect(ring.size).toBe(Math.min(capacity, items.length));
      }),
    );
  });

  it('refuses a capacity that holds nothing', () => {
    expect(() => new Ring(0)).toThrow(RangeError);
  });
});

const figures = {
  pendingJobs: 1,
  runningTasks: 2,
  cpu: { used: 1, total: 4 },
  memoryBytes: { used: 10, total: 100 },
  accelerators: { used: 0, total: 0 },
};

describe('the recorder', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('samples at start, then once per interval, oldest first', () => {
    let n = 0;
    const series = new SeriesRecorder(() => ({ ...figures, runningTasks: n++ }), { intervalMs: 10_000 });
    series.start();
    expect(series.series()).toEqual({
      intervalMs: 10_000,
      samples: [{ time: 1_000_000, ...figures, runningTasks: 0 }],
    });
    vi.advanceTimersByTime(25_000);
    expect(series.series().samples.map((s) => [s.time, s.runningTasks])).toEqual([
      [1_000_000, 0],
      [1_010_000, 1],
      [1_020_000, 2],
    ]);
    series.stop();
    vi.advanceTimersByTime(60_000);
    expect(series.series().samples).toHaveLength(3);
  });

  it('holds at most an hour of samples at the default interval, the newest', () => {
    const series = new SeriesRecorder(() => figures, { intervalMs: 10_000 });
    series.start();
    vi.advanceTimersByTime(2 * 3_600_000);
    const { samples } = series.series();
    expect(samples).toHaveLength(SERIES_MAX_SAMPLES);
    expect(samples.at(-1)!.time).toBe(1_000_000 + 2 * 3_600_000);
    expect(samples[0]!.time).toBe(1_000_000 + 2 * 3_600_000 - (SERIES_MAX_SAMPLES - 1) * 10_000);
    series.stop();
  });

  it('logs a failed read and goes on', () => {
    const logged: string[] = [];
    let fail = true;
    const series = new SeriesRecorder(
      () => {
        if (fail) throw new Error('store closed');
        return figures;
      },
      { intervalMs: 100, log: (m) => logged.push(m) },
    );
    series.start();
    fail = false;
    vi.advanceTimersByTime(100);
    expect(logged).toEqual(['metrics: could not sample the series: store closed']);
    expect(series.series().samples).toHaveLength(1);
    series.stop();
  });
});

describe('the figures of a sample', () => {
  it("are the cluster view's: PENDING jobs, live attempts, CPU in cores, workers' memory and devices summed", () => {
    const worker = (memory: number, devices: number, usedMemory: number, usedDevices: number) =>
      ({
        capacity: { cpuMillis: 2000, memoryBytes: memory, devices },
        used: { cpuMillis: 500, memoryBytes: usedMemory, devices: usedDevices },
      }) as WorkerInfo;
    const info = {
      workers: [worker(100, 2, 30, 1), worker(50, 0, 5, 0)],
      cpu: { capacityMillis: 4000, usedMillis: 1500, releasedMillis: 0, oversubscribedMillis: 0 },
      queue: { pending: 7, running: 3, jobs: { PENDING: 2, RUNNING: 1 } },
    } as unknown as ClusterInfo;
    expect(seriesFigures(info)).toEqual({
      pendingJobs: 2,
      runningTasks: 3,
      cpu: { used: 1.5, total: 4 },
      memoryBytes: { used: 35, total: 150 },
      accelerators: { used: 1, total: 2 },
    });
    expect(seriesFigures({ ...info, queue: { ...info.queue, jobs: {} } }).pendingJobs).toBe(0);
  });
});
