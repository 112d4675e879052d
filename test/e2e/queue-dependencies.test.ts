/**
 * E2E: jobs that wait on `--after` dependencies, as `iris queue` and the metrics see them. The
 * queue lists them (after the jobs the scheduler considers) with `(Dependency) waiting for /prep
 * (RUNNING)`, in text and --json, as squeue does; `iris_queue_waiting_jobs` counts only the jobs
 * that still wait: one that failed on its dependency leaves the gauge at once, not at a prune.
 */
import { describe, expect, it } from 'vitest';
import type { QueueInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

describe('jobs waiting on dependencies', () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 4, memory: 2GiB}\n');

  const waitingGauge = async (): Promise<number | undefined> => {
    const samples = await c.json<Sample[]>(['metrics']);
    return samples.find((s) => s.name === 'iris_queue_waiting_jobs')?.value;
  };

  it('iris queue lists them with the reason, in text and --json', async () => {
    const gate = c.gate('prep');
    await c.submit(['--name', 'prep', '--cpu', '0.5'], ['sh', '-c', `${gate.hold}; exit 3`]);
    await c.waitForState('/prep', 'RUNNING');
    await c.submit(['--name', 'train', '--cpu', '0.5', '--after', 'prep'], ['true']);
    await c.submit(['--name', 'cleanup', '--cpu', '0.5', '--after', 'prep:failed'], ['true']);

    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.jobs.map((j) => [j.job, j.reason, j.pendingTasks])).toEqual([
      ['/train', '(Dependency) waiting for /prep (RUNNING)', 1],
      ['/cleanup', '(Dependency) waiting for /prep (RUNNING)', 1],
    ]);
    expect(queue.jobs.map((j) => j.position)).toEqual([1, 2]);
    expect(queue.jobs[0]!.reservedStart).toBeNull();
    const text = await c.iris(['queue']);
    expect(text.code, describeRun(['queue'], text)).toBe(0);
    expect(text.stdout).not.toContain('no pending jobs');
    expect(text.stdout).toMatch(/\/train .*\(Dependency\) waiting for \/prep \(RUNNING\)/);
    expect(text.stdout).toMatch(/\/cleanup .*\(Dependency\) waiting for \/prep \(RUNNING\)/);

    // prep fails: /train can never run (FAILED), /cleanup is released and runs; none is listed.
    gate.open();
    await c.waitForState('/train', 'FAILED');
    await c.waitForState('/cleanup', 'SUCCEEDED');
    expect((await c.json<QueueInfo>(['queue'])).jobs).toEqual([]);
    expect((await c.iris(['queue'])).stdout).toContain('no pending jobs');
  });

  it('iris_queue_waiting_jobs counts only the jobs still waiting', async () => {
    const gate = c.gate('setup');
    await c.submit(['--name', 'setup', '--cpu', '0.5'], ['sh', '-c', `${gate.hold}; exit 3`]);
    await c.waitForState('/setup', 'RUNNING');
    await c.submit(['--name', 'fit', '--cpu', '0.5', '--after', 'setup'], ['true']);
    await c.submit(['--name', 'report', '--cpu', '0.5', '--after', 'fit'], ['true']);
    expect(await waitingGauge()).toBe(2);

    // setup fails: fit and report fail on their dependencies and wait no more.
    gate.open();
    await c.waitForState('/report', 'FAILED');
    expect((await c.json<{ state: string }>(['status', 'fit'])).state).toBe('FAILED');
    expect(await waitingGauge()).toBe(0);
  });
});
