import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../src/cluster/state/store.js';
import { runHistory } from '../../src/server/runs.js';
import { Clock, spec, start, workerSpec } from '../cluster/state/helpers.js';

describe('iris history energy estimate', () => {
  it('charges each attempt the busy draw of its share of its worker, up to now while it runs', () => {
    const clock = new Clock();
    const store = ClusterStore.open({ path: ':memory:', now: clock.now });
    store.syncWorkers([
      workerSpec('w1', { cpuMillis: 4000, powerWatts: { idle: 50, busy: 200 } }),
      workerSpec('w2', { cpuMillis: 4000 }),
    ]);
    const cpu = (cpuMillis: number) => ({ cpuMillis, memoryBytes: 1 << 20, device: null });
    store.submit(spec('/done', { resources: cpu(1000), maxRetries: 1 }));
    start(store, '/done/task-0', 'w1');
    clock.tick(10_000);
    store.finishAttempt('/done/task-0', 0, { kind: 'exited', exitCode: 1 });
    start(store, '/done/task-0', 'w1');
    clock.tick(4_000);
    store.finishAttempt('/done/task-0', 1, { kind: 'exited', exitCode: 0 });
    store.submit(spec('/live', { resources: cpu(2000) }));
    start(store, '/live/task-0', 'w1');
    store.submit(spec('/elsewhere', { resources: cpu(2000) }));
    start(store, '/elsewhere/task-0', 'w2');
    const now = clock.now() + 3_000;
    const runs = new Map(runHistory(store, {}, now).map((r) => [r.name, r]));
    // A quarter of a 200 W worker: 50 W, for 10 s then 4 s.
    expect(runs.get('/done')!.attempts.map((a) => a.energyJoules)).toEqual([500, 200]);
    expect(runs.get('/done')!.energyJoules).toBe(700);
    // Half of it for the 3 s it has run so far.
    expect(runs.get('/live')!.energyJoules).toBe(300);
    // A worker without power-watts: no estimate.
    expect(runs.get('/elsewhere')!.energyJoules).toBeNull();
    expect(runs.get('/elsewhere')!.attempts[0]).not.toHaveProperty('energyJoules');
  });

  it('shares a merged batch among the runs it served: together they are charged one attempt', () => {
    const clock = new Clock();
    const store = ClusterStore.open({ path: ':memory:', now: clock.now });
    store.syncWorkers([workerSpec('w1', { cpuMillis: 1000, powerWatts: { idle: 50, busy: 150 } })]);
    const cpu = { cpuMillis: 1000, memoryBytes: 1 << 20, device: null };
    for (const name of ['/a', '/b', '/c']) store.submit(spec(name, { resources: cpu, mergeKey: 'k' }));
    const lead = store.assignMerged('/a/task-0', ['/b/task-0', '/c/task-0'], 'w1', '/logs/a.log', [], null);
    store.markRunning('/a/task-0', lead.attempt, 4242);
    clock.tick(3_000);
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    const runs = runHistory(store, {}, clock.now());
    // The whole 150 W worker for 3 s is 450 J: 150 J each, never 450 J each.
    expect(runs.map((r) => [r.name, r.energyJoules])).toEqual(
      expect.arrayContaining([
        ['/a', 150],
        ['/b', 150],
        ['/c', 150],
      ]),
    );
  });
});
