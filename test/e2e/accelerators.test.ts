/**
 * E2E: accelerators are kept for accelerator work (issue 31 §3) on the built CLI, with the
 * README's workers (a pool of two 4-CPU workers and `gpu-0` with 8 H100s; fake GPUs on the
 * process runtime). Jobs that ask for no GPU go to the CPU workers while they can hold them, also
 * when `gpu-0` is priced and the λ score ties; a GPU job still gets `gpu-0`; and no placement
 * decision reads `-0.00`.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { describeRun, withCluster, type E2ECluster } from './harness.js';

const config = (gpuCost: string) => `
stop-grace: 1s
workers:
  - { name: cpu, count: 2, cpu: 4, memory: 8GiB }
  - { name: gpu-0, cpu: 8, memory: 32GiB, gpu: { variant: H100, count: 8 }${gpuCost} }
`;

async function runJson(c: E2ECluster, flags: string[]): Promise<JobDetail> {
  const args = ['run', ...flags, '--json', '--', 'true'];
  const r = await c.iris(args);
  expect(r.code, describeRun(args, r)).toBe(0);
  const job = JSON.parse(r.stdout) as JobDetail;
  expect(job.state).toBe('SUCCEEDED');
  return job;
}

describe('accelerators kept for accelerator work (README workers)', () => {
  const c = withCluster(config(''));

  it('three 1-CPU tasks run on the CPU workers, not on gpu-0', async () => {
    const job = await runJson(c, ['--name', 'small', '--replicas', '3', '--cpu', '1']);
    const workers = job.taskList.map((t) => t.workerId);
    expect(workers).toHaveLength(3);
    for (const w of workers) expect(w).toMatch(/^cpu-[01]$/);
  });

  it('a GPU job still runs on gpu-0', async () => {
    const job = await runJson(c, ['--name', 'train', '--gpu', '1', '--cpu', '1']);
    expect(job.taskList[0]!.workerId).toBe('gpu-0');
  });
});

describe('accelerators kept for accelerator work (gpu-0 priced at 12 per hour)', () => {
  const c = withCluster(config(', cost-per-hour: 12'));

  it('2-CPU jobs go to the cheaper CPU workers although the λ score ties, and no score reads -0.00', async () => {
    const names = ['two-a', 'two-b', 'two-c', 'two-d', 'two-e', 'two-f'];
    const placed: Record<string, string> = {};
    const statuses: string[] = [];
    for (const name of names) {
      placed[name] = (await runJson(c, ['--name', name, '--cpu', '2'])).taskList[0]!.workerId!;
      const status = await c.iris(['status', `/${name}`]);
      expect(status.code, describeRun(['status', `/${name}`], status)).toBe(0);
      statuses.push(status.stdout);
    }
    for (const name of names) expect(placed[name], name).toMatch(/^cpu-[01]$/);
    const text = statuses.join('\n');
    expect(text).not.toContain('-0.00');
    // Each decision line: `adaptive: 2 candidates, λ 0.5, score 0.00`. The two CPU workers are one
    // class (same size and price, issue 36), and a runner-up comes from another class: none here.
    for (const status of statuses) {
      expect(status).toMatch(/adaptive: 2 candidates, λ 0\.5, score \d\.\d\d\n/);
      expect(status).not.toContain('(next ');
    }
  });
});

describe('a tie of throughput against cost goes to the cheaper worker', () => {
  // Under λ 0.5 the big worker priced 2 and the small one priced 1 both score 0 before the tie
  // margin (one is the fastest and dearest, the other the slowest and cheapest).
  const c = withCluster(`
stop-grace: 1s
workers:
  - { name: big, cpu: 8, memory: 32GiB, cost-per-hour: 2 }
  - { name: small, cpu: 4, memory: 16GiB, cost-per-hour: 1 }
`);

  it('each 1-CPU job runs on the cheaper worker, the dearer one its runner-up', async () => {
    for (const name of ['t-a', 't-b', 't-c', 't-d', 't-e', 't-f']) {
      const job = await runJson(c, ['--name', name, '--cpu', '1']);
      expect(job.taskList[0]!.workerId, name).toBe('small');
      const status = await c.iris(['status', `/${name}`]);
      // Both round to 0.00 (the margin is 2·jitter = 0.002); never -0.00.
      expect(status.stdout).toMatch(/adaptive: 2 candidates, λ 0\.5, score 0\.00 \(next big 0\.00\)/);
    }
  });
});
