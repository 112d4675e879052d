import { afterEach, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { jobReason } from '../../../src/server/pending-reason.js';
import { harness, LONG, spec, type Harness } from './helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the controller and jobs waiting on dependencies', () => {
  it('leaves a waiting job out of every snapshot, then places it once its dependency succeeded', async () => {
    h = harness();
    const { store, runtime, controller, until, clock } = h;
    store.submit(spec('/prep', { command: LONG }));
    store.submit(spec('/train', { command: LONG, replicas: 2, after: [{ job: '/prep', condition: 'ok' }] }));
    controller.start();
    await until(() => store.task('/prep/task-0')?.state === 'RUNNING');
    const snapshot = buildSnapshot(store, new Map(), clock.t);
    expect(snapshot.pending.map((t) => t.job)).toEqual([]);
    expect(snapshot.jobs.has('/train')).toBe(false);
    expect(jobReason(store, store.job('/train')!, store.tasksOf('/train'), clock.t)).toBe(
      'waiting for /prep (RUNNING)',
    );
    expect(runtime.launches.map((l) => l.key.task)).toEqual(['/prep/task-0']);

    runtime.exit('/prep/task-0', 0);
    await until(() => store.tasksOf('/train').every((t) => t.state === 'RUNNING'));
    expect(runtime.launches.map((l) => l.key.task).sort()).toEqual(['/prep/task-0', '/train/task-0', '/train/task-1']);
  });
});
