/**
 * E2E: finished work leaves the controller's memory (docs/architecture.md, "Finished work"). With
 * `keep-finished: 2` the cluster keeps only the two newest finished trees live; older ones are
 * archived runs (`archived: true` in `iris jobs --json`), and every view of an old finished job
 * answers as before from the archive: `iris jobs` (recent trees) and `--all`, `status` (of the job
 * and of one of its tasks), `logs`,
 * `history`, `wait`, `cancel` (already ended), `--after` and children (refused as before), also
 * after a restart; and `iris retry` runs one again.
 */
import { describe, expect, it } from 'vitest';
import type { CancelResponse, JobDetail, JobSummary, RunInfo, TaskDetail } from '../../src/api/types.js';
import { type E2ECluster, describeRun, waitUntil, withCluster } from './harness.js';

async function jobsOf(c: E2ECluster, args: string[]): Promise<Map<string, JobSummary>> {
  const list = await c.json<JobSummary[]>(['jobs', ...args]);
  return new Map(list.map((j) => [j.name, j]));
}

/** Every view of the two old jobs, as a user reads them. */
async function checkOldJobs(c: E2ECluster): Promise<void> {
  const recent = await jobsOf(c, []);
  expect(recent.get('/old-ok')).toMatchObject({ state: 'SUCCEEDED', archived: true });
  const all = await jobsOf(c, ['--all']);
  expect(all.get('/old-ok')).toMatchObject({ state: 'SUCCEEDED', archived: true });
  expect(all.get('/old-bad')).toMatchObject({ state: 'FAILED', archived: true });
  expect(all.get('/old-ok/child')).toMatchObject({ state: 'SUCCEEDED', archived: true });
  expect(all.get('/new-3')).toMatchObject({ state: 'SUCCEEDED', archived: false });

  const status = await c.json<JobDetail>(['status', 'old-ok']);
  expect(status).toMatchObject({ name: '/old-ok', state: 'SUCCEEDED' });
  expect(status.taskList.map((t) => t.state)).toEqual(['SUCCEEDED']);
  const bad = await c.json<JobDetail>(['status', 'old-bad']);
  expect(bad.state).toBe('FAILED');
  const task = await c.json<TaskDetail>(['status', 'old-bad/task-0']);
  expect(task).toMatchObject({ job: '/old-bad', jobState: 'FAILED', id: '/old-bad/task-0', exitCode: 3 });
  expect(task.attempts.map((a) => a.exitCode)).toEqual([3]);
  const noTask = await c.iris(['status', 'old-bad/task-4']);
  expect(noTask.code, describeRun(['status', 'old-bad/task-4'], noTask)).not.toBe(0);
  expect(noTask.stderr).toContain('job /old-bad has no task-4');

  const logs = await c.iris(['logs', 'old-ok']);
  expect(logs.code, describeRun(['logs', 'old-ok'], logs)).toBe(0);
  expect(logs.stdout).toContain('hello from the old job');

  const history = await c.json<RunInfo[]>(['history', 'old-ok']);
  expect(history.map((r) => [r.name, r.state])).toContainEqual(['/old-ok', 'SUCCEEDED']);

  const wait = await c.iris(['wait', 'old-ok']);
  expect(wait.code, describeRun(['wait', 'old-ok'], wait)).toBe(0);
  const cancel = await c.json<CancelResponse>(['cancel', 'old-ok']);
  expect(cancel.alreadyEnded).toEqual([{ name: '/old-ok', state: 'SUCCEEDED' }]);

  const after = await c.iris(['submit', '--name', 'after-bad', '--after', 'old-bad', '--', 'true']);
  expect(after.code, describeRun(['submit'], after)).not.toBe(0);
  expect(after.stderr).toContain('can never start');
  const child = await c.iris(['submit', '--name', 'old-ok/late', '--', 'true']);
  expect(child.code, describeRun(['submit'], child)).not.toBe(0);
  expect(child.stderr).toContain('has ended');
}

describe('finished work leaves memory', () => {
  const c = withCluster('keep-finished: 2\nworkers:\n  - {name: w0, cpu: 4, memory: 2GiB}\n');

  it('archives all but the newest finished trees; every view of an old job answers, also after a restart', async () => {
    const gate = c.gate('old');
    await c.submit(['--name', 'old-ok', '--cpu', '0.5'], ['sh', '-c', `echo hello from the old job; ${gate.hold}`]);
    await c.submit(['--name', 'old-ok/child', '--cpu', '0.5'], ['true']);
    gate.open();
    await c.submit(['--name', 'old-bad', '--cpu', '0.5'], ['sh', '-c', 'exit 3']);
    await c.waitForState('/old-ok/child', 'SUCCEEDED');
    await c.waitForState('/old-bad', 'FAILED');
    for (const name of ['new-1', 'new-2', 'new-3']) await c.submit(['--name', name, '--cpu', '0.5'], ['true']);
    for (const name of ['/new-1', '/new-2', '/new-3']) await c.waitForState(name, 'SUCCEEDED');
    // The archiver runs within a second of the last change: the old trees leave memory.
    await waitUntil(
      'the old trees archived',
      () => c.client.jobs(),
      (list) => {
        const archived = new Set(list.filter((j) => j.archived).map((j) => j.name));
        return ['/old-ok', '/old-ok/child', '/old-bad', '/new-1'].every((n) => archived.has(n));
      },
      { client: c.client },
    );
    await checkOldJobs(c);

    await c.stop();
    await c.start();
    await checkOldJobs(c);

    // `iris retry` runs an archived job again from its stored spec (a new run of the name).
    const down = await c.iris(['retry', 'old-bad', '--downstream']);
    expect(down.code, describeRun(['retry', '--downstream'], down)).not.toBe(0);
    expect(down.stderr).toContain('has left memory');
    const ok = await c.iris(['retry', 'old-ok']);
    expect(ok.stderr).toContain('job /old-ok succeeded');
    const retried = await c.iris(['retry', 'old-bad']);
    expect(retried.code, describeRun(['retry', 'old-bad'], retried)).toBe(0);
    await c.waitForState('/old-bad', 'FAILED');
    const runs = await c.json<RunInfo[]>(['history', 'old-bad']);
    expect(runs.map((r) => [r.state, r.archived])).toEqual([
      ['FAILED', false],
      ['FAILED', true],
    ]);
  }, 120_000); // two rounds of every view's CLI call and a restart: over the 30 s default on a loaded machine
});
