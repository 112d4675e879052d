// A retried task keeps its place in the queue (seed 000, test_requeued_task_maintains_priority),
// seen at the controller: the real pass loop (store -> snapshot -> scheduler -> apply) on the fake
// runtime. A task that fails and is retried goes back ahead of work submitted after it, in the
// same job and across jobs, because it keeps its submittedAt and seq (lifecycle/attempts.ts) and
// the snapshot passes them on as they are (controller/snapshot.ts). One worker with room for one
// task makes the order visible: whichever task the next pass puts first is the one that runs.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const ONE_CPU = [workerSpec('w1', { cpuMillis: 1000 })];

describe('a retried task keeps its place in the pending order (controller)', () => {
  it('within a job: task-0, retried, runs again before task-1, which has waited all along', async () => {
    h = harness(ONE_CPU);
    const { store, runtime, controller, until } = h;
    store.submit(spec('/j', { command: LONG, replicas: 2, maxRetries: 1 }));
    controller.start();
    await until(() => store.task('/j/task-0')?.state === 'RUNNING');
    expect(store.task('/j/task-1')!.state).toBe('PENDING');
    h.clock.tick(5000);

    runtime.exit('/j/task-0', 3);
    const retried = () => store.task('/j/task-0')!;
    await until(() => store.task('/j/task-1')!.state === 'RUNNING' || retried().attempt === 1);
    await until(() => store.task('/j/task-1')!.state === 'RUNNING' || retried().state === 'RUNNING');
    expect(retried()).toMatchObject({ state: 'RUNNING', attempt: 1 });
    expect(store.task('/j/task-1')!.state).toBe('PENDING');
  });

  it('across jobs: the retried task of /old runs before /new, submitted while it ran', async () => {
    h = harness(ONE_CPU);
    const { store, runtime, controller, clock, until } = h;
    store.submit(spec('/old', { command: LONG, maxRetries: 1 }));
    controller.start();
    await until(() => store.task('/old/task-0')?.state === 'RUNNING');
    clock.tick(5000);
    store.submit(spec('/new', { command: LONG }));
    controller.requestPass();
    clock.tick(5000);

    runtime.exit('/old/task-0', 3);
    await until(() => store.task('/new/task-0')!.state === 'RUNNING' || store.task('/old/task-0')!.attempt === 1);
    await until(() => store.task('/new/task-0')!.state === 'RUNNING' || store.task('/old/task-0')!.state === 'RUNNING');
    expect(store.task('/old/task-0')).toMatchObject({ state: 'RUNNING', attempt: 1 });
    expect(store.task('/new/task-0')!.state).toBe('PENDING');
  });
});
