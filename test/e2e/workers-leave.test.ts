/**
 * E2E: workers that leave the config. Restarted with a config that no longer names a worker (or a
 * slice's hosts), the cluster no longer shows them — `iris workers`, `iris cluster status`
 * capacity, `iris watch --once`, the pending reasons — while `iris status`/`history` of what ran
 * there still name them; `resume`/`enable`/`disable` of one say it left and how to bring it back.
 * One killed while its task ran (kill -9, the task then recovered) is gone after the restart too,
 * its task run again elsewhere. Named again, a worker comes back READY.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterInfo, JobDetail, RunInfo, WorkerInfo } from '../../src/api/types.js';
import { describeRun, isRunning, waitUntil, withCluster } from './harness.js';

const W1 = '  - {name: w1, cpu: 2, memory: 1GiB}';
const W2 = '  - {name: w2, cpu: 2, memory: 1GiB, attributes: {pool: b}}';
const SLICE =
  'slices:\n  - {name: sa, tpu: v5litepod-16, cpu: 1, memory: 1GiB, devices: [/dev/zero, /dev/zero, /dev/zero, ' +
  '/dev/zero]}';
const BOTH = `stop-grace: 1s\nworkers:\n${W1}\n${W2}\n${SLICE}\n`;
const ONLY_W1 = `stop-grace: 1s\nworkers:\n${W1}\n`;

describe('workers that leave the config', () => {
  const c = withCluster(BOTH);

  const ok = async (args: string[]) => {
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    return r;
  };
  const restartWith = async (config: string) => {
    await c.stop();
    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), config, { mode: 0o644 });
    await c.start();
  };

  it('an idle worker and a slice no longer configured are gone after a restart; their history stays', async () => {
    expect((await c.json<WorkerInfo[]>(['workers'])).map((w) => w.id)).toEqual([
      'w1',
      'w2',
      'sa-0',
      'sa-1',
      'sa-2',
      'sa-3',
    ]);
    await ok(['run', '--name', 'ran', '--cpu', '0.5', '-c', 'pool=b', '--', 'true']);
    await restartWith(ONLY_W1);

    // Gone from the workers, the capacity and the watch view.
    expect((await c.json<WorkerInfo[]>(['workers'])).map((w) => [w.id, w.state])).toEqual([['w1', 'READY']]);
    const text = await ok(['workers']);
    expect(text.stdout).not.toMatch(/w2|sa-\d|DRAINED/);
    const status = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(status.workers.map((w) => w.id)).toEqual(['w1']);
    expect(status.cpu.capacityMillis).toBe(2000);
    expect((await ok(['cluster', 'status'])).stdout).not.toMatch(/drained/);
    const watch = await ok(['watch', '--once']);
    expect(watch.stdout).toContain('w1');
    expect(watch.stdout).not.toMatch(/w2|sa-\d/);

    // What ran there still names it.
    const ran = await c.json<JobDetail>(['status', 'ran']);
    expect(ran.taskList[0]!.workerId).toBe('w2');
    const runs = await c.json<RunInfo[]>(['history', 'ran']);
    expect(runs[0]!.attempts.map((a) => a.workerId)).toEqual(['w2']);

    // Pending reasons count only the workers of the cluster.
    await ok(['workers', 'disable', 'w1', '--reason', 'test']);
    await c.submit(['--name', 'waits', '--cpu', '0.5'], ['true']);
    const waiting = await c.waitForJob(
      '/waits',
      (j) => j.state === 'PENDING' && /disabled/.test(j.reason ?? ''),
      'a pending reason',
    );
    expect(waiting.reason).toMatch(/^all 1 workers are disabled(;|$)/);
    await ok(['workers', 'enable', 'w1']);
    await c.waitForState('/waits', 'SUCCEEDED');
  });

  it('resume, enable and disable of a worker that left say so and how to bring it back', async () => {
    for (const args of [
      ['workers', 'resume', 'w2'],
      ['workers', 'enable', 'sa-1'],
      ['workers', 'disable', 'w2'],
      ['workers', 'drain', 'sa-0'],
    ]) {
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(4);
      expect(r.stderr).toContain(`has left the cluster: it is no longer in the cluster's configuration`);
      expect(r.stderr).toContain('declare it again under `workers:` (or `slices:`) in the config file');
      expect(r.stderr).not.toContain('iris workers resume');
    }
    const unknown = await c.iris(['workers', 'resume', 'w9']);
    expect(unknown.code, describeRun(['workers', 'resume', 'w9'], unknown)).toBe(3);
  });

  it('named in the config again, a worker comes back READY', async () => {
    await restartWith(BOTH);
    const back = await c.json<WorkerInfo[]>(['workers']);
    expect(back.map((w) => [w.id, w.state]).sort()).toEqual([
      ['sa-0', 'READY'],
      ['sa-1', 'READY'],
      ['sa-2', 'READY'],
      ['sa-3', 'READY'],
      ['w1', 'READY'],
      ['w2', 'READY'],
    ]);
  });
});

describe('a worker that left while its task ran', () => {
  const c = withCluster(`stop-grace: 1s\nworkers:\n${W1}\n${W2}\n`);

  it('is gone after the restart and its task runs again on a worker of the config', async () => {
    // w1 disabled: the task goes to w2 (the disable outlives the restart: w1 is still configured).
    const disable = await c.iris(['workers', 'disable', 'w1']);
    expect(disable.code, describeRun(['workers', 'disable', 'w1'], disable)).toBe(0);
    const gate = c.gate('long');
    await c.submit(['--name', 'long', '--cpu', '0.5', '--max-preemptions', '3'], ['sh', '-c', gate.hold]);
    await c.waitForState('/long', 'RUNNING');
    expect((await c.json<JobDetail>(['status', 'long'])).taskList[0]!.workerId).toBe('w2');

    const clusterPid = c.pid()!;
    process.kill(clusterPid, 'SIGKILL');
    await waitUntil(
      'the cluster to die',
      async () => isRunning(clusterPid),
      (alive) => !alive,
    );
    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), `stop-grace: 1s\nworkers:\n${W1}\n`, { mode: 0o644 });
    await c.start();

    expect((await c.json<WorkerInfo[]>(['workers'])).map((w) => [w.id, w.state])).toEqual([['w1', 'DISABLED']]);
    const enable = await c.iris(['workers', 'enable', 'w1']);
    expect(enable.code, describeRun(['workers', 'enable', 'w1'], enable)).toBe(0);
    gate.open();
    const done = await c.waitForState('/long', 'SUCCEEDED');
    expect(done.taskList[0]!.workerId).toBe('w1');
    expect((await c.json<JobDetail>(['status', 'long'])).taskList[0]!.attempts.map((a) => a.workerId)).toEqual([
      'w2',
      'w1',
    ]);
    expect((await c.json<WorkerInfo[]>(['workers'])).map((w) => w.id)).toEqual(['w1']);
  });
});
