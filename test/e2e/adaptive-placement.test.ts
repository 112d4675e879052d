/**
 * E2E: adaptive placement, the default mode (docs/configuration.md, "Placement"), on the built
 * binary. Two workers at the same (default) price, w0 small and w1 larger: adaptive scores
 * throughput, so a job goes to w1 although w0 comes first; `iris status` shows the decision and
 * `--json` carries it on the attempt. With `placement: {mode: first-fit}` the same job goes to w0
 * and nothing is recorded. (Different prices need the `cost-per-hour` worker key: issue 15 §1.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { E2ECluster, describeRun } from './harness.js';

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
    expect(attempt.placement).toMatchObject({ mode: 'adaptive', pool: 2, lambda: 0.5, reuseHit: false, runnerUp: { workerId: 'w0' } });
    const status = await c.iris(['status', name]);
    expect(status.code, describeRun(['status', name], status)).toBe(0);
    expect(status.stdout).toMatch(/Placement:\n\s+TASK\s+ATTEMPT\s+WORKER\s+DECISION\n\s+\S+\/task-0\s+0\s+w1\s+adaptive: 2 candidates, λ 0\.5, score 0\.50 \(next w0 -?0\.00\)\n/);
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
