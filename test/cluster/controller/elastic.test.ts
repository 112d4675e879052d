/**
 * The elastic coordinator and manual toggles on a real store, the fake runtime and a hand-driven
 * clock: a disabled worker takes no new placements (with the reason), its running tasks go on,
 * the coordinator disables idle workers and re-enables them when work queues up (a pass follows at
 * once), a user's disable is never undone by it, one log line per toggle, history entries, and a
 * disable outlasts a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';
import { tempDir } from '../state/helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const ELASTIC = { idleDisableMs: 1000, queueMax: 0, enableThreshold: 0, minActive: 1, cooldownMs: 1000, pollMs: 200 };

/** `log` collects the coordinator's lines (the controller also logs one line per dispatch). */
function setup(log: string[] = []): Harness {
  h = harness([workerSpec('w1'), workerSpec('w2')], undefined, undefined, {
    elastic: ELASTIC,
    log: (m) => {
      if (m.startsWith('elastic:')) log.push(m);
    },
  });
  return h;
}

/** Give the pass loop (setImmediate / short timers) a chance to act, to show that it did not. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('disabled workers', () => {
  it(
    'take no new placements (with the reason), keep their running tasks, and take work again at once when ' + 'enabled',
    async () => {
      const { store, controller, runtime, until } = setup();
      controller.start();
      store.submit(
        spec('/a', {
          command: LONG,
          constraints: [],
          resources: { cpuMillis: 4000, memoryBytes: 1 << 20, device: null },
        }),
      );
      await until(() => store.task('/a/task-0')?.state === 'RUNNING');
      const on = store.task('/a/task-0')!.workerId!;
      const other = on === 'w1' ? 'w2' : 'w1';
      controller.setWorkerEnabled(on, false, 'user', '');
      controller.setWorkerEnabled(other, false, 'user', 'disk check');
      expect(store.worker(on)).toMatchObject({ state: 'DISABLED', disabled: { by: 'user', reason: '' } });
      await settle();
      expect(store.task('/a/task-0')!.state).toBe('RUNNING'); // unlike a drain

      store.submit(spec('/b', { resources: { cpuMillis: 1000, memoryBytes: 1 << 20, device: null } }));
      controller.requestPass();
      await until(() => store.waitingReason('/b') !== null);
      expect(store.waitingReason('/b')).toMatch(/^all 2 workers are disabled/);
      expect(store.task('/b/task-0')!.state).toBe('PENDING');

      expect(controller.setWorkerEnabled(other, true)).toBe(true);
      await until(() => store.task('/b/task-0')?.state !== 'PENDING');
      expect(store.task('/b/task-0')!.workerId).toBe(other);
      runtime.exit('/a/task-0', 0);
      await until(() => store.task('/a/task-0')?.state === 'SUCCEEDED');
    },
  );

  it(
    'a disable and an enable are history entries with who and why; disabling twice changes nothing; drained is a ' +
      'conflict',
    () => {
      const { store, controller } = setup();
      expect(controller.setWorkerEnabled('w1', false, 'user', 'disk check')).toBe(true);
      expect(controller.setWorkerEnabled('w1', false, 'user', 'again')).toBe(false);
      expect(controller.setWorkerEnabled('w1', true)).toBe(true);
      expect(controller.setWorkerEnabled('w1', true)).toBe(false);
      const entries = store.history('w1').map((e) => [e.state, e.reason]);
      expect(entries.slice(-2)).toEqual([
        ['DISABLED', 'by user: disk check'],
        ['READY', null],
      ]);
      store.drainWorker('w2');
      expect(() => controller.setWorkerEnabled('w2', false)).toThrow(/worker w2 is DRAINED/);
      expect(() => controller.setWorkerEnabled('w2', true)).toThrow(/not disabled/);
      expect(() => controller.setWorkerEnabled('nope', false)).toThrow(/worker nope not found/);
    },
  );
});

describe('the elastic coordinator', () => {
  it('disables an idle worker, keeps min-active, and re-enables it when work queues up', async () => {
    const log: string[] = [];
    const { store, controller, timers, until } = setup(log);
    controller.start();
    timers.advance(800);
    expect(store.workers().map((w) => w.state)).toEqual(['READY', 'READY']);
    timers.advance(200); // idle 1 s at the poll
    expect(store.workers().map((w) => w.state)).toEqual(['DISABLED', 'READY']);
    expect(store.worker('w1')!.disabled).toMatchObject({ by: 'elastic', reason: 'idle 1s' });
    expect(log).toEqual(['elastic: disabled worker w1 (idle for 1s, queue 0 <= queue-max 0)']);
    timers.advance(2000);
    expect(store.worker('w2')!.state).toBe('READY'); // min-active 1

    // Two tasks of 4 CPUs: w2 takes one, the other waits; the next poll enables w1 and a pass places it.
    const big = { cpuMillis: 4000, memoryBytes: 1 << 20, device: null };
    store.submit(spec('/j', { command: LONG, replicas: 2, resources: big }));
    controller.requestPass();
    await until(() => store.tasksOf('/j').some((t) => t.state === 'RUNNING'));
    await until(() => store.waitingReason('/j') !== null);
    expect(store.waitingReason('/j')).toMatch(/worker w1 is disabled|1 disabled/);
    timers.advance(200);
    expect(store.worker('w1')!.state).toBe('READY');
    expect(log[1]).toBe('elastic: enabled worker w1 (queue 1 > enable-threshold 0)');
    await until(() => store.tasksOf('/j').every((t) => t.state === 'RUNNING'));
  });

  it('does not re-enable a worker the user disabled, however long the queue', async () => {
    const { store, controller, timers, until } = setup();
    controller.start();
    controller.setWorkerEnabled('w1', false, 'user', '');
    store.submit(
      spec('/j', { command: LONG, replicas: 2, resources: { cpuMillis: 4000, memoryBytes: 1 << 20, device: null } }),
    );
    controller.requestPass();
    await until(() => store.tasksOf('/j').some((t) => t.state === 'RUNNING'));
    timers.advance(2000);
    expect(store.worker('w1')).toMatchObject({ state: 'DISABLED', disabled: { by: 'user' } });
  });

  it('a disable outlasts a restart (who, why and since)', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = `${dir}/state.db`;
      const first = ClusterStore.open({ path, now: () => 5000 });
      first.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
      first.disableWorker('w1', 'elastic', 'idle 1m');
      first.close();
      const again = ClusterStore.open({ path, now: () => 9000 });
      again.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
      expect(again.worker('w1')).toMatchObject({
        state: 'DISABLED',
        disabled: { by: 'elastic', reason: 'idle 1m', disabledAt: 5000 },
      });
      expect(again.enableWorker('w1', 'user')).toBe(false); // only the elastic one's
      expect(again.enableWorker('w1')).toBe(true);
      expect(again.worker('w1')).toMatchObject({ state: 'READY', disabled: null });
      again.close();
    } finally {
      cleanup();
    }
  });
});
