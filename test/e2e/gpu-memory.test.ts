/**
 * E2E: what workers advertise and jobs ask for (issue 15 §1) on the built CLI. Two fake GPU
 * workers (process runtime, no real GPUs): `--gpu-memory 40GiB` lands on the 80GiB one, a
 * request no GPU has is refused at submit (exit 5), a worker of unknown GPU memory never takes a
 * job that asks for some, and `iris workers` shows cost per hour and GPU memory (text and --json).
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, WorkerInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const GiB = 1024 ** 3;
// The small worker comes first: first-fit order alone would pick it.
const CONFIG = `
stop-grace: 1s
workers:
  - {name: gpu-small, cpu: 2, memory: 2GiB, cost-per-hour: 0.5, gpu: {variant: L4, count: 1, memory: 24GiB}}
  - {name: gpu-unknown, cpu: 2, memory: 2GiB, gpu: {count: 2}}
  - {name: gpu-big, cpu: 2, memory: 2GiB, cost-per-hour: 12.5, gpu: {variant: H100, count: 2, memory: 80GiB}}
`;

describe('gpu memory and cost per hour', () => {
  const c = withCluster(CONFIG);

  it('--gpu-memory 40GiB runs on the worker with 80GiB GPUs; status shows the request', async () => {
    const args = [
      'run',
      '--name',
      'ft',
      '--gpu',
      '1',
      '--gpu-memory',
      '40GiB',
      '--category',
      'training',
      '--uses',
      'llama-3-8b',
      '--json',
      '--',
      'true',
    ];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    const job = JSON.parse(r.stdout) as JobDetail;
    expect(job.state).toBe('SUCCEEDED');
    expect(job.taskList[0]!.workerId).toBe('gpu-big');
    expect(job).toMatchObject({
      category: 'training',
      uses: ['llama-3-8b'],
      resources: { device: 'gpu anyx1 (40GiB each)', gpuMemoryBytes: 40 * GiB },
    });
    const status = await c.iris(['status', '/ft']);
    expect(status.stdout).toMatch(/Resources: +cpu 1 memory 256MiB device gpu anyx1 \(40GiB each\)/);
  });

  it('a request no GPU of the cluster has is refused at submit with exit code 5', async () => {
    const args = ['submit', '--name', 'huge', '--gpu', '1', '--gpu-memory', '200GiB', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(5);
    expect(r.stderr).toContain(
      'job /huge can never run on this cluster: need 200GiB gpu memory, largest gpu worker has 80GiB',
    );
    expect((await c.jobs()).map((j) => j.name)).not.toContain('/huge');
  });

  it('bad gpu memory requests name the flag and exit 2', async () => {
    const without = await c.iris(['submit', '--gpu-memory', '40GiB', '--', 'true']);
    expect(without.code, describeRun(['submit', '--gpu-memory'], without)).toBe(2);
    expect(without.stderr).toContain('--gpu-memory 40GiB: applies only to a gpu request, got "40GiB" without one');
    const bad = await c.iris(['submit', '--gpu', '1', '--gpu-memory', 'lots', '--', 'true']);
    expect(bad.code, describeRun(['submit', '--gpu-memory', 'lots'], bad)).toBe(2);
    expect(bad.stderr).toContain('--gpu-memory lots: not a size');
  });

  it('iris workers shows cost per hour and GPU memory, unknown included', async () => {
    const workers = await c.json<WorkerInfo[]>(['workers']);
    const byId = new Map(workers.map((w) => [w.id, w]));
    expect(byId.get('gpu-big')).toMatchObject({
      costPerHour: 12.5,
      device: { type: 'gpu', variant: 'H100', count: 2, memoryBytes: 80 * GiB },
    });
    expect(byId.get('gpu-small')).toMatchObject({ costPerHour: 0.5, device: { memoryBytes: 24 * GiB } });
    expect(byId.get('gpu-unknown')!.costPerHour).toBe(1);
    expect(byId.get('gpu-unknown')!.device.memoryBytes).toBeUndefined();
    const text = await c.iris(['workers']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/WORKER +STATE +GPUS +GPU MEMORY +IN USE +CPU +MEMORY +COST\/H +TASKS/);
    expect(text.stdout).toMatch(/gpu-big +READY +H100 x 2 +80GiB .* 12\.5 /);
    expect(text.stdout).toMatch(/gpu-unknown +READY +any x 2 +unknown .* 1 /);
  });
});
