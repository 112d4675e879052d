/**
 * E2E: adaptive placement, the default mode (docs/configuration.md, "Placement"), on the built
 * binary. Two workers at the same (default) price, w0 small and w1 larger: adaptive scores
 * throughput, so a job goes to w1 although w0 comes first; `iris status` shows the decision and
 * `--json` carries it on the attempt. With `placement: {mode: first-fit}` the same job goes to w0
 * and nothing is recorded. Mixed workloads: on a cheap small worker and an expensive big one, a
 * training job (λ 0.8) goes to the big one and an inference job (λ 0.4) to the cheap one, each
 * with its score recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { E2ECluster, describeRun } from './harness.js';
import { joined } from '../helpers/regex.js';

const WORKERS = `workers:
  - {name: w0, cpu: 2, memory: 2GiB}
  - {name: w1, cpu: 4, memory: 4GiB}
`;

describe('adaptive placement', () => {
  let c: E2ECluster | null = null;
  afterEach(async () => {
    await c?.dispose();
    c = null;
  });

  const runOne = async (cluster: E2ECluster) => {
    const name = await cluster.submit(['--cpu', '0.5', '--memory', '100MiB'], ['true']);
    const wait = await cluster.iris(['wait', name]);
    expect(wait.code, describeRun(['wait', name], wait)).toBe(0);
    return name;
  };

  it('sends a job to the bigger of two equally priced workers and shows why', async () => {
    c = await E2ECluster.create({ config: WORKERS });
    const name = await runOne(c);
    const detail = await c.json<JobDetail>(['status', name]);
    const attempt = detail.taskList[0]!.attempts[0]!;
    expect(attempt.workerId).toBe('w1');
    expect(attempt.placement).toMatchObject({
      mode: 'adaptive',
      pool: 2,
      lambda: 0.5,
      reuseHit: false,
      runnerUp: { workerId: 'w0' },
    });
    const status = await c.iris(['status', name]);
    expect(status.code, describeRun(['status', name], status)).toBe(0);
    expect(status.stdout).toMatch(
      joined(
        /Placement:\n\s+TASK\s+ATTEMPT\s+WORKER\s+DECISION\n\s+\S+\/task-0\s+0\s+/,
        /w1\s+adaptive: 2 candidates, λ 0\.5, score 0\.50 \(next w0 -?0\.00\)\n/,
      ),
    );
  });

  it('mixed workloads: training lands on the expensive big worker, inference on the cheap one, as λ says', async () => {
    c = await E2ECluster.create({
      config: `workers:
  - {name: cheap, cpu: 2, memory: 2GiB, cost-per-hour: 1}
  - {name: big, cpu: 8, memory: 16GiB, cost-per-hour: 10}
`,
    });
    const placed = async (category: string) => {
      const name = await c!.submit(['--cpu', '0.5', '--memory', '100MiB', '--category', category], ['true']);
      const wait = await c!.iris(['wait', name]);
      expect(wait.code, describeRun(['wait', name], wait)).toBe(0);
      return (await c!.json<JobDetail>(['status', name])).taskList[0]!.attempts[0]!;
    };
    // μ̂ and cost normalised over the two: big (1, 1), cheap (0, 0). Training: 0.8·1 − 0.2·1 = 0.6 > 0.
    const training = await placed('training');
    expect(training.workerId).toBe('big');
    expect(training.placement).toMatchObject({
      mode: 'adaptive',
      pool: 2,
      lambda: 0.8,
      runnerUp: { workerId: 'cheap' },
    });
    expect(training.placement!.score).toBeCloseTo(0.6, 2);
    // Inference: 0.4·1 − 0.6·1 = −0.2 < 0, so the cheap worker wins.
    const inference = await placed('inference');
    expect(inference.workerId).toBe('cheap');
    expect(inference.placement).toMatchObject({ lambda: 0.4, runnerUp: { workerId: 'big' } });
    expect(inference.placement!.runnerUp!.score).toBeCloseTo(-0.2, 2);
  });

  it('reuse priority: a job that uses a model goes where it was loaded, until the hint lapses', async () => {
    c = await E2ECluster.create({
      config: `workers:
  - {name: a, cpu: 2, memory: 2GiB}
  - {name: b, cpu: 2, memory: 2GiB}
placement: {cache-ttl: 3s}
`,
    });
    const run = async () => {
      const name = await c!.submit(['--cpu', '0.5', '--memory', '100MiB', '--uses', 'llama-3'], ['true']);
      const wait = await c!.iris(['wait', name]);
      expect(wait.code, describeRun(['wait', name], wait)).toBe(0);
      return (await c!.json<JobDetail>(['status', name])).taskList[0]!.attempts[0]!;
    };
    const first = await run();
    expect(first.placement!.reuseHit).toBe(false);
    // Identical workers: only the hint tells them apart, so every next run goes to the same one.
    for (let i = 0; i < 3; i++) {
      const next = await run();
      expect(next.workerId).toBe(first.workerId);
      expect(next.placement).toMatchObject({ reuseHit: true, pool: 2 });
    }
    const workers = await c.json<Array<{ id: string; cache: Array<{ key: string }> }>>(['workers']);
    expect(workers.find((w) => w.id === first.workerId)!.cache.map((h) => h.key)).toEqual(['llama-3']);
    // Past the TTL the hint is stale and neutral: no reuse hit any more.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect((await run()).placement!.reuseHit).toBe(false);
  });

  it('with placement mode first-fit takes the first worker and records no decision', async () => {
    c = await E2ECluster.create({ config: `${WORKERS}placement: {mode: first-fit}\n` });
    const name = await runOne(c);
    const attempt = (await c.json<JobDetail>(['status', name])).taskList[0]!.attempts[0]!;
    expect(attempt.workerId).toBe('w0');
    expect(attempt.placement).toBeNull();
    expect((await c.iris(['status', name])).stdout).not.toContain('Placement:');
  });

  it('refuses an unknown placement mode at start: exit 2, the key, the choices', async () => {
    c = await E2ECluster.create({ config: `${WORKERS}placement: {mode: fastest}\n`, noStart: true });
    const args = ['cluster', 'start', '--detach'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toContain('placement.mode: invalid placement mode "fastest"');
    expect(r.stderr).toContain('adaptive, first-fit');
    expect(c.pid()).toBeNull();
  });
});
