import { afterEach, describe, expect, it } from 'vitest';
import { placementOptions } from '../../../src/cluster/scheduler/index.js';
import {
  loadPlacementMemory,
  PLACEMENT_MEMORY_KEY,
  savePlacementMemory,
} from '../../../src/cluster/controller/placement-memory.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const cpu = (n: number) => ({ resources: { cpuMillis: n * 1000, memoryBytes: 1 << 28, device: null } });

describe('baseline placement modes in the controller', () => {
  it(
    'static-worker: a submission and its subtree stay on one worker, which other submissions leave ' + 'alone',
    async () => {
      const lines: string[] = [];
      h = harness([workerSpec('w1'), workerSpec('w2')], undefined, undefined, {
        placement: placementOptions({ mode: 'static-worker' }),
        log: (l) => lines.push(l),
      });
      const { store, controller, until, runtime } = h;
      store.submit(spec('/a', { command: LONG }));
      store.submit(spec('/b', { command: LONG }));
      controller.start();
      await until(() => store.task('/a/task-0')?.state === 'RUNNING' && store.task('/b/task-0')?.state === 'RUNNING');
      // w1 has 3 CPUs free, but runs /a: /b went to w2.
      expect([store.task('/a/task-0')!.workerId, store.task('/b/task-0')!.workerId]).toEqual(['w1', 'w2']);
      expect(store.attemptsOf('/a/task-0')[0]!.placement).toEqual({
        mode: 'static-worker',
        pool: 2,
        lambda: 0.5,
        score: 0,
        runnerUp: null,
        reuseHit: false,
      });
      expect(lines).toContain('dispatch /b/task-0 attempt 0 -> w2: static-worker: 1 candidate');

      store.submit(spec('/a/c', { command: LONG, replicas: 2 }));
      store.submit(spec('/a/d', { command: LONG, ...cpu(2) }));
      controller.requestPass();
      await until(() => store.task('/a/c/task-1')?.state === 'RUNNING' && store.job('/a/d')!.reason !== null);
      expect(store.tasksOf('/a/c').map((t) => t.workerId)).toEqual(['w1', 'w1']);
      // w1 has one CPU left; w2 has three, but /a/d is bound to w1.
      expect(store.job('/a/d')!.reason).toBe('static-worker: bound to w1, which is busy');
      runtime.exit('/a/c/task-0', 0);
      await until(() => store.task('/a/d/task-0')?.state === 'RUNNING');
      expect(store.task('/a/d/task-0')!.workerId).toBe('w1');
    },
  );

  it('fixed-pipeline: the type binding is kept across passes and saved in the store', async () => {
    h = harness([workerSpec('w1'), workerSpec('w2')], undefined, undefined, {
      placement: placementOptions({ mode: 'fixed-pipeline' }),
    });
    const { store, controller, until, runtime } = h;
    store.submit(spec('/train', { command: LONG }));
    controller.start();
    await until(() => store.task('/train/task-0')?.state === 'RUNNING');
    expect(store.task('/train/task-0')!.workerId).toBe('w1');
    expect(loadPlacementMemory(store)!.types).toEqual(new Map([['train', 'w1']]));
    store.submit(spec('/busy', { command: LONG, ...cpu(3) }));
    store.submit(spec('/y', { command: LONG }));
    controller.requestPass();
    await until(() => store.task('/busy/task-0')?.state === 'RUNNING' && store.task('/y/task-0')?.state === 'RUNNING');
    expect(store.task('/y/task-0')!.workerId).toBe('w2');
    store.submit(spec('/y/train', { command: LONG }));
    controller.requestPass();
    await until(() => store.job('/y/train')!.reason !== null);
    expect(store.job('/y/train')!.reason).toBe('fixed-pipeline: type train runs only on w1, which is busy');
    runtime.exit('/busy/task-0', 0);
    await until(() => store.task('/y/train/task-0')?.state === 'RUNNING');
    expect(store.task('/y/train/task-0')!.workerId).toBe('w1');
  });

  it('round-robin: the cursor moves on from pass to pass', async () => {
    h = harness([workerSpec('w1'), workerSpec('w2'), workerSpec('w3')], undefined, undefined, {
      placement: placementOptions({ mode: 'round-robin' }),
    });
    const { store, controller, until } = h;
    controller.start();
    for (const name of ['/j0', '/j1', '/j2', '/j3']) {
      store.submit(spec(name, { command: LONG }));
      controller.requestPass();
      await until(() => store.task(`${name}/task-0`)?.state === 'RUNNING');
    }
    expect(['/j0', '/j1', '/j2', '/j3'].map((n) => store.task(`${n}/task-0`)!.workerId)).toEqual([
      'w1',
      'w2',
      'w3',
      'w1',
    ]);
    expect(loadPlacementMemory(store)!.cursor).toBe('w1');
  });

  it('the saved memory reads back; unreadable content is ignored', () => {
    const store = ClusterStore.open({ path: ':memory:', now: () => 0 });
    try {
      expect(loadPlacementMemory(store)).toBeUndefined();
      expect(
        savePlacementMemory(store, { roots: new Map([['/a', 'w1']]), types: new Map([['train', 'w2']]), cursor: 'w3' }),
      ).toBe(true);
      // The same memory again is not written again.
      expect(
        savePlacementMemory(store, { roots: new Map([['/a', 'w1']]), types: new Map([['train', 'w2']]), cursor: 'w3' }),
      ).toBe(false);
      expect(loadPlacementMemory(store)).toEqual({
        roots: new Map([['/a', 'w1']]),
        types: new Map([['train', 'w2']]),
        cursor: 'w3',
      });
      store.setMeta(PLACEMENT_MEMORY_KEY, '{not json');
      expect(loadPlacementMemory(store)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
