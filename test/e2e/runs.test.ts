/**
 * E2E: run identity and `iris history` on the built binary. A name submitted again after it
 * ended starts a new run; the old run keeps its tasks, attempts and logs, is selected as
 * NAME@RUN (or --run) by status and logs, and all of it survives a restart of the cluster.
 * `iris history` lists live and archived runs and its filters narrow them.
 */
import { describe, expect, it } from 'vitest';
import type { EstimateResponse, JobDetail, RunInfo, SubmitResponse } from '../../src/api/types.js';
import { type E2ECluster, describeRun, withCluster } from './harness.js';

/** The text of each line `iris logs ARGS` prints (time and task prefix cut off). */
async function logTexts(c: E2ECluster, args: string[]): Promise<string[]> {
  const r = await c.iris(['logs', ...args]);
  expect(r.code, describeRun(['logs', ...args], r)).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^\S+ \S+ /, ''));
}

describe('runs: a name submitted again keeps its earlier runs', () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 4, memory: 2GiB}\n');

  it('keeps both runs apart (logs, status, IRIS_RUN_ID) and across a restart', async () => {
    const first = await c.json<SubmitResponse>([
      'submit',
      '--name',
      'x',
      '--cpu',
      '0.5',
      '--',
      'sh',
      '-c',
      'echo "first run $IRIS_RUN_ID"',
    ]);
    expect(first.name).toBe('/x');
    expect(Number.isInteger(first.run) && first.run > 0).toBe(true);
    await c.waitForState('/x', 'SUCCEEDED');

    const dry = await c.json<EstimateResponse>(['submit', '--dry-run', '--name', 'x', '--cpu', '0.5', '--', 'true']);
    expect(dry.supersedes).toEqual({ run: first.run, state: 'SUCCEEDED' });
    const dryText = await c.iris(['submit', '--dry-run', '--name', 'x', '--cpu', '0.5', '--', 'true']);
    expect(dryText.stdout).toContain(`run ${first.run}`);

    const second = await c.json<SubmitResponse>([
      'submit',
      '--name',
      'x',
      '--cpu',
      '0.5',
      '--',
      'sh',
      '-c',
      'echo "second run $IRIS_RUN_ID"; exit 3',
    ]);
    expect(second.run).toBeGreaterThan(first.run);
    const latest = await c.waitForState('/x', 'FAILED');
    expect(latest.run).toBe(second.run);

    const check = async () => {
      // The name shows its latest run only; NAME@RUN, NAME@RUN/task-0 and --run the first one only.
      expect(await logTexts(c, ['x'])).toEqual([`second run ${second.run}`]);
      expect(await logTexts(c, [`x@${first.run}`])).toEqual([`first run ${first.run}`]);
      expect(await logTexts(c, [`/x@${first.run}/task-0`])).toEqual([`first run ${first.run}`]);
      expect(await logTexts(c, ['x', '--run', String(first.run)])).toEqual([`first run ${first.run}`]);

      const old = await c.json<JobDetail>(['status', `x@${first.run}`]);
      expect(old).toMatchObject({ name: '/x', run: first.run, archived: true, state: 'SUCCEEDED' });
      expect(old.taskList.map((t) => [t.id, t.state, t.attempts.map((a) => [a.attempt, a.state, a.exitCode])])).toEqual(
        [['/x/task-0', 'SUCCEEDED', [[0, 'SUCCEEDED', 0]]]],
      );
      const now = await c.json<JobDetail>(['status', 'x']);
      expect(now).toMatchObject({ run: second.run, archived: false, state: 'FAILED' });
      expect(now.taskList[0]!.attempts.map((a) => a.exitCode)).toEqual([3]);
      expect((await c.json<JobDetail>(['status', 'x', '--run', String(first.run)])).run).toBe(first.run);
      const text = await c.iris(['status', `x@${first.run}`]);
      expect(text.stdout).toMatch(new RegExp(`Run:\\s+${first.run} \\(an older run`));

      const unknown = await c.iris(['status', 'x@999999']);
      expect(unknown.code, describeRun(['status', 'x@999999'], unknown)).toBe(3);
      expect(unknown.stderr).toContain(`/x@${first.run}, /x@${second.run}`);
      expect(unknown.stderr).toContain('iris history /x');

      const runs = await c.json<RunInfo[]>(['history', 'x']);
      expect(runs.map((r) => [r.run, r.name, r.state, r.exitCode, r.archived])).toEqual([
        [second.run, '/x', 'FAILED', 3, false],
        [first.run, '/x', 'SUCCEEDED', 0, true],
      ]);
    };
    await check();
    await c.stop();
    await c.start();
    await check();
  });

  it('refuses a malformed run reference with exit 2', async () => {
    const r = await c.iris(['status', 'x@abc']);
    expect(r.code, describeRun(['status', 'x@abc'], r)).toBe(2);
    expect(r.stderr).toContain('NAME@RUN');
  });
});

describe('iris history', () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 4, memory: 2GiB}\n');

  it('lists live and archived runs of several names and states; filters narrow them', async () => {
    const gate = c.gate('slow');
    const submit = async (name: string, script: string, extra: string[] = []) =>
      (await c.json<SubmitResponse>(['submit', '--name', name, '--cpu', '0.5', ...extra, '--', 'sh', '-c', script]))
        .run;
    const a1 = await submit('h/a', 'echo a1');
    await c.waitForState('/h/a', 'SUCCEEDED');
    const b = await submit('h/b', 'exit 2');
    await c.waitForState('/h/b', 'FAILED');
    const a2 = await submit('h/a', 'echo a2');
    await c.waitForState('/h/a', 'SUCCEEDED');
    const bob = await submit('h/c', 'true', ['--user', 'bob']);
    await c.waitForState('/h/c', 'SUCCEEDED');
    const slow = await submit('h/slow', gate.hold);
    await c.waitForState('/h/slow', 'RUNNING');
    const other = await submit('other', 'true');
    await c.waitForState('/other', 'SUCCEEDED');

    const runsOf = async (args: string[]) => (await c.json<RunInfo[]>(['history', ...args])).map((r) => r.run);
    expect(await runsOf(['h'])).toEqual([slow, bob, a2, b, a1]);
    expect(await runsOf([])).toEqual([other, slow, bob, a2, b, a1]);
    expect(await runsOf(['--name', 'h/a'])).toEqual([a2, a1]);
    expect(await runsOf(['h', '--state', 'failed'])).toEqual([b]);
    expect(await runsOf(['h', '--state', 'running', '--state', 'failed'])).toEqual([slow, b]);
    expect(await runsOf(['h', '--user', 'bob'])).toEqual([bob]);
    expect(await runsOf(['h', '--limit', '2'])).toEqual([slow, bob]);
    expect(await runsOf(['h', '--since', '1h'])).toEqual([slow, bob, a2, b, a1]);
    expect(await runsOf(['h', '--until', '2000-01-01T00:00:00Z'])).toEqual([]);
    expect(await runsOf(['h', '--since', '2999-01-01T00:00:00Z'])).toEqual([slow]); // still running

    const [running, ...rest] = await c.json<RunInfo[]>(['history', 'h']);
    expect(running).toMatchObject({
      name: '/h/slow',
      state: 'RUNNING',
      finishedAt: null,
      exitCode: null,
      archived: false,
    });
    const failed = rest.find((r) => r.run === b)!;
    expect(failed).toMatchObject({
      name: '/h/b',
      user: expect.any(String),
      state: 'FAILED',
      exitCode: 2,
      archived: false,
    });
    for (const key of ['submittedAt', 'startedAt', 'finishedAt', 'reason', 'cpuSeconds', 'peakMemoryBytes'])
      expect(failed).toHaveProperty(key);
    expect(failed.attempts).toEqual([
      expect.objectContaining({ task: '/h/b/task-0', attempt: 0, state: 'FAILED', exitCode: 2 }),
    ]);
    expect(failed.attempts[0]).toHaveProperty('cpuSeconds');
    expect(failed.attempts[0]).toHaveProperty('peakMemoryBytes');
    expect(rest.find((r) => r.run === a1)).toMatchObject({ archived: true, state: 'SUCCEEDED', exitCode: 0 });

    const table = await c.iris(['history', 'h']);
    expect(table.code, describeRun(['history', 'h'], table)).toBe(0);
    const header = table.stdout.split('\n')[0]!;
    for (const column of ['RUN', 'NAME', 'USER', 'STATE', 'START', 'END', 'ELAPSED', 'EXIT', 'CPU', 'MAXMEM', 'REASON'])
      expect(header).toContain(column);
    expect(table.stdout.trim().split('\n')).toHaveLength(6); // the header and five runs
    const perAttempt = await c.iris(['history', 'h/b', '--attempts']);
    expect(perAttempt.stdout).toMatch(/\/h\/b\/task-0\[0\]\s+\S+\s+FAILED/);

    const bad = await c.iris(['history', '--state', 'bogus']);
    expect(bad.code, describeRun(['history', '--state', 'bogus'], bad)).toBe(2);
    gate.open();
    await c.waitForState('/h/slow', 'SUCCEEDED');
  });
});
