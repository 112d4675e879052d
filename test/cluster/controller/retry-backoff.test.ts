import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { retryBackoffMs } from '../../../src/cluster/lifecycle/retries.js';
import { taskReason } from '../../../src/server/pending-reason.js';
import { harness, LONG, spec, type Harness } from './helpers.js';
import { start, tempDir } from '../state/helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('retry backoff (--retry-backoff)', () => {
  it('is backoff * 2^(failures-1), capped at --retry-backoff-max or 10 times the backoff', () => {
    expect([1, 2, 3, 4].map((f) => retryBackoffMs(f, 1000, 3000))).toEqual([1000, 2000, 3000, 3000]);
    expect([1, 4, 5, 60].map((f) => retryBackoffMs(f, 1000))).toEqual([1000, 8000, 10_000, 10_000]);
    expect(retryBackoffMs(3, null)).toBe(0);
  });

  it(
    'keeps a failed task PENDING with its reason until the backoff ends, then the controller timer starts the ' +
      'retry',
    async () => {
      h = harness();
      const { store, runtime, controller, timers, clock, until } = h;
      store.submit(spec('/flaky', { command: LONG, maxRetries: 3, retryBackoffMs: 1000 }));
      controller.start();
      await until(() => store.task('/flaky/task-0')?.state === 'RUNNING');

      runtime.exit('/flaky/task-0', 1);
      await until(() => store.task('/flaky/task-0')!.state === 'PENDING');
      const task = store.task('/flaky/task-0')!;
      expect(task.eligibleAt).toBe(clock.t + 1000);
      expect(taskReason(store, store.job('/flaky')!, task, clock.t)).toBe(
        'retrying after exit 1; retry 1/3 in 1s (backoff)',
      );
      // Passes come and go (another job's submission), but the task stays out of them.
      store.submit(spec('/other', { command: LONG }));
      controller.requestPass();
      await until(() => store.task('/other/task-0')!.state === 'RUNNING');
      timers.advance(999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(store.task('/flaky/task-0')!.state).toBe('PENDING');
      expect(runtime.launches.filter((l) => l.key.task === '/flaky/task-0')).toHaveLength(1);

      timers.advance(1);
      await until(() => store.task('/flaky/task-0')!.state === 'RUNNING');
      expect(store.task('/flaky/task-0')!.attempt).toBe(1);

      // The second failure waits twice as long.
      runtime.exit('/flaky/task-0', 1);
      await until(() => store.task('/flaky/task-0')!.state === 'PENDING');
      expect(store.task('/flaky/task-0')!.eligibleAt).toBe(clock.t + 2000);
      expect(taskReason(store, store.job('/flaky')!, store.task('/flaky/task-0')!, clock.t + 500)).toBe(
        'retrying after exit 1; retry 2/3 in 2s (backoff)',
      );
      timers.advance(2000);
      await until(() => store.task('/flaky/task-0')!.state === 'RUNNING');
      expect(store.task('/flaky/task-0')!.attempt).toBe(2);
    },
  );

  it('a job without a backoff retries at once', async () => {
    h = harness();
    const { store, runtime, controller, until } = h;
    store.submit(spec('/now', { command: LONG, maxRetries: 1 }));
    controller.start();
    await until(() => store.task('/now/task-0')?.state === 'RUNNING');
    runtime.exit('/now/task-0', 1);
    await until(() => store.task('/now/task-0')!.attempt === 1 && store.task('/now/task-0')!.state === 'RUNNING');
    expect(store.task('/now/task-0')!.eligibleAt).toBeNull();
  });

  it('the end of the wait is stored: a reopened store still holds the task back until then', () => {
    const { dir, cleanup } = tempDir();
    try {
      let t = 5000;
      const path = join(dir, 'state.db');
      const first = ClusterStore.open({ path, now: () => t, reserveBytes: 0 });
      first.syncWorkers([
        {
          id: 'w1',
          cpuMillis: 4000,
          memoryBytes: 8 << 30,
          device: { type: 'cpu', variant: null, count: 0 },
          attributes: {},
        },
      ]);
      first.submit(spec('/flaky', { maxRetries: 2, retryBackoffMs: 60_000 }));
      start(first, '/flaky/task-0');
      first.finishAttempt('/flaky/task-0', 0, { kind: 'exited', exitCode: 3 });
      first.close();
      t = 20_000;
      const again = ClusterStore.open({ path, now: () => t, reserveBytes: 0 });
      try {
        const task = again.task('/flaky/task-0')!;
        expect(task.state).toBe('PENDING');
        expect(task.eligibleAt).toBe(65_000);
        expect(taskReason(again, again.job('/flaky')!, task, t)).toBe(
          'retrying after exit 3; retry 1/2 in 45s (backoff)',
        );
      } finally {
        again.close();
      }
    } finally {
      cleanup();
    }
  });
});

describe('retry backoff of a gang', () => {
  it('the members restarted with a failed one wait out the same backoff', () => {
    const { dir, cleanup } = tempDir();
    try {
      const store = ClusterStore.open({ path: join(dir, 'state.db'), now: () => 7000, reserveBytes: 0 });
      const cpu = { type: 'cpu' as const, variant: null, count: 0 };
      store.syncWorkers(
        ['w1', 'w2'].map((id) => ({
          id,
          cpuMillis: 4000,
          memoryBytes: 8 << 30,
          device: cpu,
          attributes: { pod: 'p' },
        })),
      );
      store.submit(spec('/gang', { replicas: 2, coschedule: 'pod', maxRetries: 1, retryBackoffMs: 5000 }));
      start(store, '/gang/task-0', 'w1');
      start(store, '/gang/task-1', 'w2');
      const stops = store.finishAttempt('/gang/task-0', 0, { kind: 'exited', exitCode: 1 });
      expect(stops.map((s) => s.task)).toEqual(['/gang/task-1']);
      expect(['/gang/task-0', '/gang/task-1'].map((id) => [store.task(id)!.state, store.task(id)!.eligibleAt])).toEqual(
        [
          ['PENDING', 12_000],
          ['PENDING', 12_000],
        ],
      );
      store.close();
    } finally {
      cleanup();
    }
  });
});
