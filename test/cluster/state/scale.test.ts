import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { Clock, spec, tempDir, workerSpec } from './helpers.js';

const { dir, cleanup } = tempDir();
afterAll(() => cleanup());
const path = join(dir, 'scale.db');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Fill the database with 100k tasks and run 20k of them through their lifecycle. */
function populate(clock: Clock): { submitMs: number; lifecycleMs: number } {
  const store = ClusterStore.open({ path, now: clock.now });
  store.syncWorkers(Array.from({ length: 100 }, (_, i) => workerSpec(`w${i}`)));
  let t0 = performance.now();
  for (let j = 0; j < 100; j++) store.submit(spec(`/bulk-${j}`, { replicas: 1000, maxRetries: 1 }));
  const submitMs = performance.now() - t0;

  t0 = performance.now();
  for (let batch = 0; batch < 20; batch++) {
    const tasks = store.tasksOf(`/bulk-${batch}`);
    store.transaction(() => tasks.forEach((t, i) => store.assign(t.id, `w${i % 100}`, `/logs/${i}`)));
    store.transaction(() => tasks.forEach((t) => store.markRunning(t.id, 0, 1000)));
    store.transaction(() =>
      tasks.forEach((t, i) => store.finishAttempt(t.id, 0, { kind: 'exited', exitCode: i % 10 === 0 ? 1 : 0 })),
    );
  }
  const lifecycleMs = performance.now() - t0;
  // 80k never started + 2k requeued after a failure
  expect(store.pendingTasks().length).toBe(82_000);
  store.close();
  return { submitMs, lifecycleMs };
}

describe('scale', () => {
  it(
    'handles 100k tasks: 20k task lifecycles in 1000-task batches well under 1 ms each; reload in seconds, < 300 ' +
      'MB',
    () => {
      const clock = new Clock();
      const { submitMs, lifecycleMs } = populate(clock);
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const t0 = performance.now();
      const store = ClusterStore.open({ path, now: clock.now });
      const loadMs = performance.now() - t0;
      gc();
      const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
      expect(store.pendingTasks().length).toBe(82_000);
      expect(store.attemptsOf('/bulk-0/task-0')).toHaveLength(1);
      expect(store.activeAttempts()).toEqual([]);
      console.log(
        `submit 100k tasks: ${submitMs.toFixed(0)} ms; 20k lifecycles (60k calls): ${lifecycleMs.toFixed(0)} ms; ` +
          `reload: ${loadMs.toFixed(0)} ms, ${heapMb.toFixed(0)} MB heap`,
      );
      store.close();
      expect(lifecycleMs / 20_000).toBeLessThan(1);
      expect(loadMs).toBeLessThan(5000);
      expect(heapMb).toBeLessThan(300);
    },
  );
});
