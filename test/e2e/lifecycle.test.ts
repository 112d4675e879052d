/**
 * E2E: cluster lifecycle — start --detach, status, workers, privacy of the state directory, a
 * refused second start, the auto-started cluster of `iris run`, and `cluster stop` stopping
 * running tasks with SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { ClusterInfo, WorkerInfo } from '../../src/api/types.js';
import { describeRun, isRunning, marker, pidsWithMarker, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 5s
workers:
  - name: w0
    cpu: 2
    memory: 4GiB
    attributes: {region: us-central1}
  - name: gpu-0
    cpu: 4
    memory: 8GiB
    gpu: {variant: H100, count: 8}
  - name: tpu-a-0
    cpu: 2
    memory: 4GiB
    tpu: {variant: v5litepod-16}
    attributes: {tpu-name: slice-a, tpu-worker-id: 0}
`;

describe('cluster lifecycle', () => {
  const c = withCluster(CONFIG);

  it('cluster status --json shows the configured workers, their devices and the queue', async () => {
    const info = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(info.pid).toBe(c.pid());
    expect(info.socket).toBe(c.socket);
    expect(info.workers.map((w) => w.id).sort()).toEqual(['gpu-0', 'tpu-a-0', 'w0']);
    const gpu = info.workers.find((w) => w.id === 'gpu-0')!;
    expect(gpu.attributes['device-type']).toBe('gpu');
    expect(gpu.attributes['device-variant']).toBe('H100');
    expect(gpu.capacity.devices).toBe(8);
    expect(gpu.capacity.cpuMillis).toBe(4000);
    const tpu = info.workers.find((w) => w.id === 'tpu-a-0')!;
    expect(tpu.attributes['device-type']).toBe('tpu');
    expect(tpu.attributes['device-variant']).toBe('v5litepod-16');
    expect(tpu.attributes['tpu-name']).toBe('slice-a');
    const w0 = info.workers.find((w) => w.id === 'w0')!;
    expect(w0.attributes.region).toBe('us-central1');
    expect(w0.capacity.memoryBytes).toBe(4 * 1024 ** 3);
    expect(info.queue.pending).toBe(0);
  });

  it('cluster status and workers print the workers in plain text', async () => {
    const status = await c.iris(['cluster', 'status']);
    expect(status.code, describeRun(['cluster', 'status'], status)).toBe(0);
    for (const name of ['w0', 'gpu-0', 'tpu-a-0']) expect(status.stdout).toContain(name);
    const workers = await c.iris(['workers']);
    expect(workers.code).toBe(0);
    for (const name of ['w0', 'gpu-0', 'tpu-a-0']) expect(workers.stdout).toContain(name);
    expect(workers.stdout).toContain('H100');
    const json = await c.json<WorkerInfo[]>(['workers']);
    expect(json.map((w) => w.id).sort()).toEqual(['gpu-0', 'tpu-a-0', 'w0']);
  });

  it('keeps the state directory and the socket private to the user', () => {
    expect(statSync(c.home).mode & 0o077).toBe(0);
    expect(statSync(c.socket).mode & 0o077).toBe(0);
  });

  it('refuses a second start while the cluster runs, and the first keeps answering', async () => {
    const pid = c.pid();
    const second = await c.iris(['cluster', 'start', '--detach']);
    expect(second.code, describeRun(['cluster', 'start', '--detach'], second)).not.toBe(0);
    expect(second.stderr).toMatch(/already running/i);
    expect(c.pid()).toBe(pid);
    const info = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(info.pid).toBe(pid);
  });

  it('cluster stop stops running tasks with SIGTERM and the cluster exits', async () => {
    const tag = marker('lifecycle-term');
    const script = c.script('trap.sh', `trap 'echo got-term; exit 0' TERM\necho ready\nwhile true; do sleep 0.1; done`);
    const job = await c.submit(['--name', 'trapper', '--cpu', '0.5'], ['sh', script, tag]);
    expect(job).toBe('/trapper');
    await c.waitForLog(job, 'ready');
    expect(pidsWithMarker(tag).length).toBeGreaterThan(0);
    const pid = c.pid()!;

    const stop = await c.iris(['cluster', 'stop']);
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
    await waitUntil(
      'cluster process to exit',
      async () => isRunning(pid),
      (alive) => !alive,
      { timeoutMs: 20_000 },
    );
    await waitUntil(
      'task processes to be gone',
      async () => pidsWithMarker(tag),
      (pids) => pids.length === 0,
      { timeoutMs: 10_000 },
    );

    // The task saw SIGTERM (graceful stop); its log survives for the next cluster.
    await c.start();
    const lines = await c.logs(job);
    expect(lines.map((l) => l.text)).toContain('got-term');
    const detail = await c.job(job);
    expect(detail.name).toBe(job);
  });

  it(
    'commands that act (other than submit/run) report that no cluster is running (exit 6); reading ones show the ' +
      'saved state',
    async () => {
      await c.stop();
      const queue = await c.iris(['queue']);
      expect(queue.code, describeRun(['queue'], queue)).toBe(6);
      expect(queue.stderr).toMatch(/no iris cluster is running/i);
      expect(queue.stderr).toMatch(/cluster start/);
      const jobs = await c.iris(['jobs']);
      expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
      expect(jobs.stderr).toMatch(/no cluster is running; showing the state saved in .* \(read-only\)/);
    },
  );
});

describe('auto-start', () => {
  const c = withCluster({
    noStart: true,
    config: 'stop-grace: 2s\nworkers:\n  - {name: solo, cpu: 2, memory: 2GiB}\n',
  });

  it('iris run starts a detached local cluster when none is running, says so, and runs the job', async () => {
    expect(c.pid()).toBeNull();
    const args = ['run', '--name', 'auto', '--', 'sh', '-c', 'echo auto-ran'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('auto-ran');
    expect(r.stderr).toMatch(/start/i);
    expect(r.stderr).toMatch(/cluster/i);
    const pid = c.pid();
    expect(pid).not.toBeNull();
    expect(isRunning(pid!)).toBe(true);
    const info = await c.json<ClusterInfo>(['cluster', 'status']);
    expect(info.home).toBe(path.resolve(c.home));
  });
});

describe('configuration errors', () => {
  const c = withCluster({ noStart: true, config: 'workers:\n  - {name: w0, cpu: 2, memory: lots}\n' });

  it('cluster start reports an invalid config with the file path and the offending key', async () => {
    const r = await c.iris(['cluster', 'start', '--detach']);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).not.toBe(0);
    expect(r.stderr).toContain(path.join(c.cwd, '.irisrc.yaml'));
    expect(r.stderr).toMatch(/workers\[0\]\.memory/);
    expect(c.pid()).toBeNull();
  });
});
