import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { ClusterMetrics } from '../../../src/server/metrics/cluster-metrics.js';
import { EnergyMeter } from '../../../src/server/metrics/energy-meter.js';
import { Clock, spec, start, workerSpec } from '../../cluster/state/helpers.js';

/** Two 4-CPU workers drawing 100 W idle, 300 W busy, and one without power-watts. */
function powered(): { store: ClusterStore; clock: Clock } {
  const clock = new Clock();
  const store = ClusterStore.open({ path: ':memory:', now: clock.now });
  store.syncWorkers([
    workerSpec('w1', { powerWatts: { idle: 100, busy: 300 }, costPerHour: 2 }),
    workerSpec('w2', { powerWatts: { idle: 100, busy: 300 }, costPerHour: 5 }),
    workerSpec('w3'),
  ]);
  return { store, clock };
}

async function sample(metrics: ClusterMetrics, line: string): Promise<number> {
  const { text } = await metrics.exposition();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  if (found === undefined) throw new Error(`no ${line} in\n${text}`);
  return Number(found.slice(line.length + 1));
}

describe('the energy meter', () => {
  it('charges idle watts over time and more while a task holds part of the worker', () => {
    const { store, clock } = powered();
    const meter = new EnergyMeter(store, clock.now);
    clock.tick(10_000);
    expect(meter.totals().get('w1')).toBeCloseTo(1000); // 100 W × 10 s
    expect(meter.totals().has('w3')).toBe(false);
    store.submit(spec('/a', { resources: { cpuMillis: 2000, memoryBytes: 1 << 20, device: null } }));
    start(store, '/a/task-0', 'w1');
    clock.tick(10_000); // half used: 200 W
    expect(meter.totals().get('w1')).toBeCloseTo(3000);
    expect(meter.watts()).toBeCloseTo(300); // w1 200 + w2 100
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    clock.tick(10_000);
    expect(meter.totals().get('w1')).toBeCloseTo(4000);
    expect(meter.totals().get('w2')).toBeCloseTo(3000);
    meter.close();
  });

  it('a merged batch holds its worker as one task: its members add nothing', () => {
    const { store, clock } = powered();
    const meter = new EnergyMeter(store, clock.now);
    const cpu = { cpuMillis: 2000, memoryBytes: 1 << 20, device: null };
    for (const name of ['/a', '/b', '/c']) store.submit(spec(name, { resources: cpu, mergeKey: 'k' }));
    const lead = store.assignMerged('/a/task-0', ['/b/task-0', '/c/task-0'], 'w1', '/logs/a.log', [], null);
    store.markRunning('/a/task-0', lead.attempt, 4242);
    expect(meter.watts()).toBeCloseTo(300); // w1 half used: 200, w2 idle: 100 (not w1 fully used)
    clock.tick(10_000);
    expect(meter.totals().get('w1')).toBeCloseTo(2000);
  });

  it('a DISABLED worker draws nothing while disabled, and again once enabled', () => {
    const { store, clock } = powered();
    const meter = new EnergyMeter(store, clock.now);
    clock.tick(1000);
    store.disableWorker('w2', 'user', '');
    clock.tick(10_000);
    expect(meter.totals().get('w2')).toBeCloseTo(100);
    expect(meter.watts()).toBeCloseTo(100);
    store.enableWorker('w2');
    clock.tick(1000);
    expect(meter.totals().get('w2')).toBeCloseTo(200);
    meter.close();
  });

  it('a DRAINED worker (drained, or gone from the config) draws nothing', () => {
    const { store, clock } = powered();
    const meter = new EnergyMeter(store, clock.now);
    store.drainWorker('w1');
    store.syncWorkers([workerSpec('w1', { powerWatts: { idle: 100, busy: 300 } }), workerSpec('w3')]);
    expect(store.worker('w2')?.state).toBe('DRAINED');
    clock.tick(10_000);
    expect(meter.watts()).toBe(0);
    expect(meter.totals().get('w2')).toBe(0);
    meter.close();
  });
});

describe('aggregated cost and energy leave out DISABLED workers', () => {
  it('the cost per hour and the cluster-wide energy and power count only enabled workers', async () => {
    const { store, clock } = powered();
    const metrics = new ClusterMetrics(store, { processMetrics: false, now: clock.now });
    expect(await sample(metrics, 'iris_workers_cost_per_hour')).toBe(8); // 2 + 5 + 1 (unpriced)
    expect(await sample(metrics, 'iris_workers_power_watts')).toBe(200);
    store.disableWorker('w2', 'user', '');
    clock.tick(10_000);
    expect(await sample(metrics, 'iris_workers_cost_per_hour')).toBe(3);
    expect(await sample(metrics, 'iris_workers_power_watts')).toBe(100);
    expect(await sample(metrics, 'iris_cluster_energy_joules_total')).toBeCloseTo(1000);
    expect(await sample(metrics, 'iris_energy_joules_total{worker="w1"}')).toBeCloseTo(1000);
    expect(await sample(metrics, 'iris_energy_joules_total{worker="w2"}')).toBe(0);
    metrics.close();
  });
});
