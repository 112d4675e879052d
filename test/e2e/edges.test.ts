/**
 * E2E: the edges of time and input. A time limit beyond what one Node timer holds (2^31-1 ms,
 * ~24.8 days), given by flag or by the config's default, lets the task run; bad values are usage
 * errors (exit 2) with their echo cut short; a bad config file is a usage error (exit 2) however
 * the cluster is started.
 */
import { describe, expect, it } from 'vitest';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
time-limit: 720h
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('time limits longer than a Node timer', () => {
  const c = withCluster(CONFIG);

  // The task outlives the instant an overflowed timer fires (1 ms) by far, and then ends by itself.
  const TASK = ['sh', '-c', 'sleep 2; echo still-running-after-2s'];

  it('--time-limit 25d: the task keeps running and succeeds', async () => {
    const args = ['run', '--name', 'long-flag', '--cpu', '0.1', '--time-limit', '25d', '--', ...TASK];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('still-running-after-2s');
    const job = await c.job('/long-flag');
    expect(job.state).toBe('SUCCEEDED');
    expect(job.taskList[0]!.attempts.map((a) => [a.state, a.reason])).toEqual([['SUCCEEDED', null]]);
  });

  it('config time-limit: 720h (the default of a job without one) lets the task run too', async () => {
    const args = ['run', '--name', 'long-config', '--cpu', '0.1', '--', ...TASK];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const job = await c.job('/long-config');
    expect(job.timeoutMs).toBe(720 * 3_600_000);
    expect(job.state).toBe('SUCCEEDED');
  });

  it('bad submissions are usage errors (exit 2) that echo a huge value cut short', async () => {
    const cases: Array<[string[], RegExp]> = [
      // The flag and the value as typed (issue 34), not the API's `invalid cpu "…"`.
      [['--cpu', '99999999999'], /--cpu 99999999999: at most 1000000 cores/],
      [['--cpu', '1e308'], /--cpu 1e308: not a number of cores/],
      [['--name', ''], /name may not be empty/],
      [['--name', 'x'.repeat(10_000) + '!'], /invalid job name "x+…" \(10001 characters\)/],
    ];
    for (const [flags, message] of cases) {
      const args = ['submit', ...flags, '--', 'true'];
      const r = await c.iris(args);
      expect(
        r.code,
        describeRun(
          args.map((a) => a.slice(0, 40)),
          r,
        ),
      ).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.length).toBeLessThan(1000);
    }
    expect((await c.jobs()).map((j) => j.name).sort()).toEqual(['/long-config', '/long-flag']);
  });
});

describe('a bad config file is a usage error (exit 2)', () => {
  const c = withCluster({ config: 'workers:\n  - {name: big, cpu: 1e308}\n', noStart: true });

  it.each([
    ['cluster start', ['cluster', 'start']],
    ['cluster start --detach', ['cluster', 'start', '--detach']],
    ['submit (starts a cluster)', ['submit', '--', 'true']],
  ])('%s exits 2 and names the key', async (_label, args) => {
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toContain('workers[0].cpu: invalid cpu 1e+308: at most 1000000 cores');
    expect(c.pid()).toBeNull();
  });
});
