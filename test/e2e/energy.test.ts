/**
 * E2E: energy and the disabled-worker rule on the built CLI. Two workers declare `power-watts`
 * (100 W idle, 300 W busy): while a task holds all of one, its `iris_energy_joules_total` grows
 * about three times as fast as the idle one's, and `iris history` shows the run's estimate (text
 * column and --json). A worker disabled with `iris workers disable` leaves the cluster-wide cost
 * per hour (metrics and `iris cluster status`), power and energy: its own total stops growing.
 */
import { describe, expect, it } from 'vitest';
import type { MetricSample } from '../../src/api/metrics.js';
import type { ClusterInfo, JobDetail, RunInfo, WorkerInfo } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
placement: {mode: first-fit}
workers:
  - {name: w0, cpu: 2, memory: 2GiB, cost-per-hour: 2, power-watts: {idle: 100, busy: 300}}
  - {name: w1, cpu: 2, memory: 2GiB, cost-per-hour: 5, power-watts: {idle: 100, busy: 300}}
`;

type Reading = { w0: number; w1: number; cluster: number; watts: number; cost: number };

describe('energy', () => {
  const c = withCluster(CONFIG);

  const read = async (): Promise<Reading> => {
    const samples = await c.json<MetricSample[]>(['metrics']);
    const value = (name: string, labels: Record<string, string> = {}) => {
      const found = samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels));
      if (!found) throw new Error(`no ${name} ${JSON.stringify(labels)}`);
      return found.value;
    };
    return {
      w0: value('iris_energy_joules_total', { worker: 'w0' }),
      w1: value('iris_energy_joules_total', { worker: 'w1' }),
      cluster: value('iris_cluster_energy_joules_total'),
      watts: value('iris_workers_power_watts'),
      cost: value('iris_workers_cost_per_hour'),
    };
  };

  it('a worker running a task draws more than an idle one, and history estimates the run', async () => {
    const gate = c.gate('busy');
    const job = await c.submit(['--name', 'busy', '--cpu', '2'], ['sh', '-c', gate.hold]);
    const detail = await waitUntil(
      'the task to run',
      () => c.json<JobDetail>(['status', job]),
      (d) => d.taskList[0]?.state === 'RUNNING',
      { client: c.client },
    );
    const busy = detail.taskList[0]!.attempts[0]!.workerId as 'w0' | 'w1';
    const idle = busy === 'w0' ? 'w1' : 'w0';
    const first = await read();
    expect(first.watts).toBeCloseTo(400); // 300 busy + 100 idle
    // iris workers and cluster status say the same by the same rule.
    const workers = await c.json<WorkerInfo[]>(['workers']);
    const draw = Object.fromEntries(workers.map((w) => [w.id, w.drawWatts]));
    expect(draw).toEqual({ [busy]: 300, [idle]: 100 });
    expect(workers[0]!.powerWatts).toEqual({ idle: 100, busy: 300 });
    const table = await c.iris(['workers']);
    expect(table.stdout).toMatch(new RegExp(`${busy} .* 300W`));
    const summary = await c.iris(['cluster', 'status']);
    expect(summary.stdout).toMatch(/Power: +400 W now \(2 workers with power-watts/);
    // Until the idle worker drew 100 J more (1 s): the busy one drew about three times as much.
    const later = await waitUntil('energy to grow', read, (r) => r[idle] - first[idle] >= 100, { timeoutMs: 15_000 });
    const busyDelta = later[busy] - first[busy];
    const idleDelta = later[idle] - first[idle];
    expect(busyDelta).toBeGreaterThan(2.5 * idleDelta);
    expect(busyDelta).toBeLessThan(3.5 * idleDelta);
    expect(later.cluster).toBeCloseTo(later.w0 + later.w1, -1);
    gate.open();
    await waitUntil(
      'the job to end',
      () => c.json<JobDetail>(['status', job]),
      (d) => d.state === 'SUCCEEDED',
      {
        client: c.client,
      },
    );

    const [run] = await c.json<RunInfo[]>(['history', 'busy']);
    const attempt = run!.attempts[0]!;
    // --json prints instants as ISO 8601.
    const at = (instant: unknown) => Date.parse(instant as string);
    const seconds = (at(attempt.finishedAt) - at(attempt.startedAt)) / 1000;
    // All of a 300 W worker for its run time.
    expect(attempt.energyJoules).toBeCloseTo(300 * seconds, 3);
    expect(run!.energyJoules).toBe(attempt.energyJoules);
    expect(run!.energyJoules).toBeGreaterThan(300);
    const text = await c.iris(['history', 'busy']);
    expect(text.code, describeRun(['history'], text)).toBe(0);
    expect(text.stdout).toMatch(/\bENERGY\b/);
    expect(text.stdout).toMatch(/\d+(\.\d)?kJ|\d+J/);
  }, 60_000);

  it('a disabled worker is left out of the cluster-wide cost, power and energy', async () => {
    const before = await read();
    expect(before.cost).toBe(7);
    const r = await c.iris(['workers', 'disable', 'w1']);
    expect(r.code, describeRun(['workers', 'disable'], r)).toBe(0);
    const first = await read();
    expect(first.cost).toBe(2);
    expect(first.watts).toBeCloseTo(100);
    const status = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(status.cost?.perHour).toBe(2);
    expect(status.workers.find((w) => w.id === 'w1')!.drawWatts).toBe(0);
    const later = await waitUntil('energy to grow', read, (x) => x.w0 - first.w0 >= 100, { timeoutMs: 15_000 });
    expect(later.w1).toBe(first.w1);
    expect(later.cluster - first.cluster).toBeCloseTo(later.w0 - first.w0, 0);
  }, 60_000);
});
