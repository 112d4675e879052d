import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DensityRecorder } from '../../../src/server/metrics/density.js';
import type { DensitySeries } from '../../../src/api/metrics.js';
import { memStore, spec, tempDir } from '../../cluster/state/helpers.js';

const temps: Array<() => void> = [];
afterEach(() => temps.splice(0).forEach((cleanup) => cleanup()));

function setup(opts: { maxBuckets?: number } = {}) {
  const { dir, cleanup } = tempDir();
  temps.push(cleanup);
  const { store, clock } = memStore(3);
  clock.t = 60_000;
  const recorder = new DensityRecorder(store, { home: dir, bucketMs: 10_000, now: clock.now, ...opts });
  return { store, clock, recorder, file: join(dir, 'metrics', 'task_worker_density.json') };
}

const brief = (s: DensitySeries) => s.buckets.map((b) => [b.start, b.submissions, b.activeWorkers]);

describe('density series', () => {
  it('counts submitted tasks (replicas) and READY workers per aligned bucket, without gaps', () => {
    const { store, clock, recorder } = setup();
    store.submit(spec('/a', { replicas: 3 }));
    clock.tick(5_000);
    store.submit(spec('/b'));
    clock.t = 95_000; // three buckets later
    store.drainWorker('w1');
    store.submit(spec('/c', { replicas: 2 }));
    expect(brief(recorder.series())).toEqual([
      [60_000, 4, 3],
      [70_000, 0, 3],
      [80_000, 0, 3],
      [90_000, 2, 2],
    ]);
  });

  it('keeps at most maxBuckets, dropping the oldest', () => {
    const { clock, recorder } = setup({ maxBuckets: 3 });
    clock.t = 60_000 + 100 * 10_000;
    const series = recorder.series();
    expect(series.buckets.map((b) => b.start)).toEqual([1_040_000, 1_050_000, 1_060_000]);
  });

  it('writes the file at stop and continues it after a restart', () => {
    const { store, recorder, file, clock } = setup();
    store.submit(spec('/a', { replicas: 2 }));
    recorder.stop();
    expect(existsSync(file)).toBe(true);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DensitySeries;
    expect(saved).toMatchObject({ version: 1, bucketSeconds: 10 });
    expect(brief(saved)).toEqual([[60_000, 2, 3]]);
    // A new recorder on the same home (a restarted cluster) starts from the file.
    const again = new DensityRecorder(store, { home: join(file, '..', '..'), bucketMs: 10_000, now: clock.now });
    store.submit(spec('/b'));
    expect(brief(again.series())).toEqual([[60_000, 3, 3]]);
    again.stop();
  });

  it('a retried job is a new submission; state changes of a job are not', () => {
    const { store, recorder } = setup();
    store.submit(spec('/r'));
    store.cancel('/r', 'user');
    store.retry('/r', false);
    expect(recorder.series().buckets[0]!.submissions).toBe(2);
  });
});
