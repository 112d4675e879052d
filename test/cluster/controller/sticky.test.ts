import { afterEach, describe, expect, it } from 'vitest';
import { stickyPlacement } from '../../../src/cluster/controller/snapshot.js';
import { parseConstraint } from '../../../src/model/constraints.js';
import { harness, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A pipeline /p whose stage train ran and succeeded on w2 (a real store, the fake runtime). */
async function trainedOnW2(): Promise<Harness> {
  h = harness([workerSpec('w1', { attributes: { host: 'a' } }), workerSpec('w2', { attributes: { host: 'b' } })]);
  const { store, runtime, controller, until } = h;
  store.submit(
    spec('/p', {
      command: ['sh', '-c', 'sleep 1000'],
      resources: { cpuMillis: 100, memoryBytes: 1 << 20, device: null },
    }),
  );
  // It runs until the test ends it (a bare `true` could end before the test sees it RUNNING).
  store.submit(
    spec('/p/train', {
      command: ['sh', '-c', 'sleep 1000'],
      stage: { name: 'train', needs: [] },
      constraints: [parseConstraint('host=b')],
    }),
  );
  controller.start();
  await until(() => store.task('/p/train/task-0')?.state === 'RUNNING');
  runtime.exit('/p/train/task-0', 0);
  await until(() => store.task('/p/train/task-0')?.state === 'SUCCEEDED');
  return h;
}

describe('where a sticky stage must run (snapshot)', () => {
  it('the worker task-0 of its parent stage ran on, while that worker is READY', async () => {
    const { store } = await trainedOnW2();
    const evalJob = store.submit(spec('/p/eval', { stage: { name: 'eval', needs: ['train'], stickTo: 'train' } }));
    expect(stickyPlacement(store, evalJob)).toEqual({ workerId: 'w2', parent: '/p/train' });
    // Not a sticky stage, or a gang: nothing.
    expect(
      stickyPlacement(store, store.submit(spec('/p/other', { stage: { name: 'other', needs: ['train'] } }))),
    ).toBeNull();
    expect(stickyPlacement(store, { ...evalJob, spec: { ...evalJob.spec, coschedule: 'host' } })).toBeNull();
  });

  it('nothing once that worker is drained, or when it could never hold one task', async () => {
    const { store } = await trainedOnW2();
    const big = store.submit(
      spec('/p/big', {
        stage: { name: 'big', needs: ['train'], stickTo: 'train' },
        resources: { cpuMillis: 64_000, memoryBytes: 1 << 20, device: null },
      }),
    );
    expect(stickyPlacement(store, big)).toBeNull();
    const evalJob = store.submit(spec('/p/eval', { stage: { name: 'eval', needs: ['train'], stickTo: 'train' } }));
    store.drainWorker('w2');
    expect(stickyPlacement(store, evalJob)).toBeNull();
  });
});
