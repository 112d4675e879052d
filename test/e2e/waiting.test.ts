/**
 * E2E: waiting (docs/architecture.md, "Waiting") on the built binary. A task blocked in a wait on
 * its own subtree releases its CPU, so trees of default-resource jobs (1 CPU each) complete on a
 * 1-CPU worker; released and oversubscribed CPU show in `iris workers --json`; `iris wait` exit
 * codes, `--json` and `--timeout`.
 */
import { describe, expect, it } from 'vitest';
import type { WaitResponse, WorkerInfo } from '../../src/api/types.js';
import { EXIT } from '../../src/model/errors.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const ONE_CPU = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 1, memory: 16GiB}
`;

const TWO_CPUS = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 16GiB}
`;

describe('waiting on one 1-CPU worker', () => {
  const c = withCluster(ONE_CPU);

  it('a chain of depth 8, each level `iris run` of the next with default resources, completes', async () => {
    const script = c.script(
      'chain.sh',
      [
        'depth=$1',
        'if [ "$depth" -ge 8 ]; then echo "leaf at $IRIS_JOB_ID"; exit 0; fi',
        `iris run --name n -- sh '${c.cwd}/chain.sh' $((depth + 1))`,
      ].join('\n'),
    );
    const args = ['run', '--name', 'chain', '--', 'sh', script, '1'];
    const r = await c.iris(args, { timeoutMs: 120_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('leaf at /chain/n/n/n/n/n/n/n');
    const leaf = await c.job('/chain/n/n/n/n/n/n/n');
    expect(leaf.state).toBe('SUCCEEDED');
    expect(leaf.depth).toBe(8);
  }, 150_000);

  it('shows released CPU while a parent waits and oversubscribed CPU after its wait times out; `iris wait ' +
    '--timeout` exits 124', async () => {
    const kid = c.gate('kid');
    const parent = c.gate('parent');
    const script = c.script(
      'parent.sh',
      [
        `iris submit --name kid -- sh -c "${kid.hold}" > /dev/null || exit 1`,
        'iris wait kid --timeout 3s > /dev/null 2>&1',
        'echo "wait-exit $?"',
        parent.hold,
      ].join('\n'),
    );
    const name = await c.submit(['--name', 'p'], ['sh', script]);
    expect(name).toBe('/p');
    const w0 = async () => (await c.json<WorkerInfo[]>(['workers'])).find((w) => w.id === 'w0')!;
    const waiting = await waitUntil(
      'the parent waiting, its CPU released to the kid',
      w0,
      (w) => w.cpuReleasedMillis === 1000 && w.runningTasks.length === 2,
    );
    expect(waiting).toMatchObject({ used: { cpuMillis: 1000 }, cpuOversubscribedMillis: 0 });

    // The wait times out: the parent takes its CPU back beside the running kid.
    const over = await waitUntil('the worker oversubscribed', w0, (w) => w.cpuOversubscribedMillis === 1000, {
      timeoutMs: 30_000,
    });
    expect(over).toMatchObject({ used: { cpuMillis: 2000 }, cpuReleasedMillis: 0 });
    const text = await c.iris(['workers']);
    expect(text.stdout).toContain('2/1 (1 over)');
    const status = await c.json<{ cpu: { oversubscribedMillis: number } }>(['cluster', 'status']);
    expect(status.cpu.oversubscribedMillis).toBe(1000);
    await c.waitForLog('/p', 'wait-exit 124');

    // Nothing new is placed on the oversubscribed worker.
    await c.submit(['--name', 'later'], ['true']);
    const later = await c.waitForJob('/later', (j) => j.reason !== null, 'a pending reason');
    expect(later.state).toBe('PENDING');
    kid.open();
    parent.open();
    await c.waitForState('/p', 'SUCCEEDED', { timeoutMs: 30_000 });
    await c.waitForState('/later', 'SUCCEEDED', { timeoutMs: 30_000 });
  }, 90_000);

  it('`iris wait` exits 0 when all succeeded, 1 when one failed, 3 for an unknown job; --json prints the ' +
    'jobs', async () => {
    await c.submit(['--name', 'ok'], ['true']);
    await c.submit(['--name', 'bad'], ['sh', '-c', 'exit 3']);
    const ok = await c.iris(['wait', 'ok', '--json'], { timeoutMs: 30_000 });
    expect(ok.code, describeRun(['wait', 'ok', '--json'], ok)).toBe(EXIT.ok);
    const answer = JSON.parse(ok.stdout) as WaitResponse;
    expect(answer.done).toBe(true);
    expect(answer.jobs.map((j) => [j.name, j.state])).toEqual([['/ok', 'SUCCEEDED']]);

    const both = await c.iris(['wait', 'ok', 'bad'], { timeoutMs: 30_000 });
    expect(both.code, describeRun(['wait', 'ok', 'bad'], both)).toBe(EXIT.jobFailed);
    expect(both.stdout).toContain('/ok SUCCEEDED');
    expect(both.stdout).toContain('/bad FAILED');

    const failedJson = await c.iris(['wait', 'bad', '--json'], { timeoutMs: 30_000 });
    expect(failedJson.code).toBe(EXIT.jobFailed);
    expect((JSON.parse(failedJson.stdout) as WaitResponse).jobs[0]!.state).toBe('FAILED');

    const unknown = await c.iris(['wait', 'nope']);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toContain('unknown job /nope');
  }, 90_000);

  it('`iris wait --timeout` on a job that does not end exits 124 with done: false', async () => {
    const gate = c.gate('forever');
    await c.submit(['--name', 'forever'], ['sh', '-c', gate.hold]);
    const args = ['wait', 'forever', '--timeout', '500ms', '--json'];
    const r = await c.iris(args, { timeoutMs: 30_000 });
    expect(r.code, describeRun(args, r)).toBe(EXIT.timeout);
    const answer = JSON.parse(r.stdout) as WaitResponse;
    expect(answer.done).toBe(false);
    expect(answer.jobs[0]!.state).toMatch(/PENDING|RUNNING/);
    expect(r.stderr).toContain('timed out after 500ms');
    gate.open();
    const any = await c.iris(['wait', 'forever', 'ok', '--any'], { timeoutMs: 30_000 });
    expect(any.code, describeRun(['wait', 'forever', 'ok', '--any'], any)).toBe(EXIT.ok);
  }, 60_000);
});

describe('waiting on one 2-CPU worker', () => {
  const c = withCluster(TWO_CPUS);

  it('two trees whose parents each hold one of the only two CPUs both complete', async () => {
    const leaf = c.script('leaf.sh', 'echo "leaf of $IRIS_JOB_ID"');
    const mid = c.script('mid.sh', `iris run --name leaf -- sh '${leaf}'`);
    const runs = ['t1', 't2'].map((name) => {
      const args = ['run', '--name', name, '--', 'sh', mid];
      return c.iris(args, { timeoutMs: 90_000 }).then((r) => ({ args, r }));
    });
    for (const { args, r } of await Promise.all(runs)) {
      expect(r.code, describeRun(args, r)).toBe(0);
    }
    expect((await c.job('/t1/leaf')).state).toBe('SUCCEEDED');
    expect((await c.job('/t2/leaf')).state).toBe('SUCCEEDED');
  }, 120_000);
});
