/**
 * E2E: with the cluster stopped, `iris jobs`, `status` (of a job, a task or an older run), `logs`
 * and `history` read the state saved in the
 * state directory (one line on stderr says so) instead of exiting 6, and change nothing there;
 * commands that need a running cluster still exit 6; a state directory that never held a
 * cluster says so (exit 6).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobDetail, JobSummary } from '../../src/api/types.js';
import { describeRun, runIris, withJson, withCluster } from './harness.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 2
    memory: 2GiB
`;

const NOTICE = /no cluster is running; showing the state saved in .* \(read-only\)/;

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('reading a stopped cluster', () => {
  const c = withCluster(CONFIG);
  let firstDone = 0;
  beforeAll(async () => {
    // /done runs twice: the first run is kept in the archive (NAME@RUN).
    await c.submit(['--name', 'done', '--cpu', '0.1'], ['sh', '-c', 'echo first-run']);
    firstDone = (await c.waitForState('/done', 'SUCCEEDED')).run;
    await c.submit(
      ['--name', 'done', '--cpu', '0.1'],
      ['sh', '-c', 'echo saved-line-1; echo saved-line-2 >&2; exit 0'],
    );
    await c.submit(['--name', 'bad', '--cpu', '0.1'], ['sh', '-c', 'echo oops; exit 3']);
    await c.waitForState('/done', 'SUCCEEDED');
    await c.waitForState('/bad', 'FAILED');
    await c.stop();
  });

  it('jobs, status and logs answer from the saved state with a one-line notice, and write nothing', async () => {
    const db = path.join(c.home, 'state.db');
    const before = digest(db);

    const jobs = await c.iris(withJson(['jobs']));
    expect(jobs.code, describeRun(['jobs', '--json'], jobs)).toBe(0);
    expect(jobs.stderr).toMatch(NOTICE);
    expect(jobs.stderr.trim().split('\n')).toHaveLength(1);
    const listed = JSON.parse(jobs.stdout) as JobSummary[];
    expect(listed.map((j) => [j.name, j.state])).toEqual([
      ['/bad', 'FAILED'],
      ['/done', 'SUCCEEDED'],
    ]);

    const table = await c.iris(['jobs']);
    expect(table.code, describeRun(['jobs'], table)).toBe(0);
    expect(table.stdout).toMatch(/done.*SUCCEEDED/);

    const status = await c.iris(withJson(['status', 'bad']));
    expect(status.code, describeRun(['status', 'bad', '--json'], status)).toBe(0);
    const bad = JSON.parse(status.stdout) as JobDetail;
    expect(bad.state).toBe('FAILED');
    expect(bad.taskList[0]!.exitCode).toBe(3);

    const logs = await c.iris(['logs', 'done']);
    expect(logs.code, describeRun(['logs', 'done'], logs)).toBe(0);
    expect(logs.stdout).toContain('saved-line-1');
    expect(logs.stderr).toContain('saved-line-2');
    expect(logs.stderr).toMatch(NOTICE);

    // Following a stopped cluster's logs prints what was saved and ends: nothing runs.
    const follow = await c.iris(['logs', '-f', 'bad'], { timeoutMs: 20_000 });
    expect(follow.code, describeRun(['logs', '-f', 'bad'], follow)).toBe(0);
    expect(follow.stdout).toContain('oops');

    // One task, an older run (NAME@RUN) and the history read the saved state too.
    const task = await c.iris(withJson(['status', 'bad/task-0']));
    expect(task.code, describeRun(['status', 'bad/task-0', '--json'], task)).toBe(0);
    expect(JSON.parse(task.stdout)).toMatchObject({ id: '/bad/task-0', state: 'FAILED', exitCode: 3 });
    const old = await c.iris(withJson(['status', `done@${firstDone}`]));
    expect(old.code, describeRun(['status', `done@${firstDone}`], old)).toBe(0);
    expect(JSON.parse(old.stdout)).toMatchObject({ name: '/done', run: firstDone, archived: true });
    const oldLogs = await c.iris(['logs', `done@${firstDone}`]);
    expect(oldLogs.stdout).toContain('first-run');
    expect(oldLogs.stdout).not.toContain('saved-line-1');
    const history = await c.iris(withJson(['history']));
    expect(history.code, describeRun(['history', '--json'], history)).toBe(0);
    expect(history.stderr).toMatch(NOTICE);
    const runs = JSON.parse(history.stdout) as { name: string; run: number; state: string }[];
    expect(runs.map((r) => [r.name, r.state])).toEqual([
      ['/bad', 'FAILED'],
      ['/done', 'SUCCEEDED'],
      ['/done', 'SUCCEEDED'],
    ]);

    const unknown = await c.iris(['status', 'nope']);
    expect(unknown.code, describeRun(['status', 'nope'], unknown)).toBe(3);
    expect(unknown.stderr).toContain('unknown job /nope');

    expect(digest(db)).toBe(before);
    expect(c.pid() === null || !(await c.client.ping())).toBe(true);
  });

  it('commands that need a running cluster still exit 6 with the hint to start one', async () => {
    for (const args of [['cancel', 'done'], ['queue'], ['workers', 'drain', 'w0']]) {
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(6);
      expect(r.stderr).toContain('iris cluster start');
    }
  });

  it('a state directory where no cluster ever ran says so and exits 6', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'iris-empty-'));
    try {
      const r = await runIris(['jobs'], { env: { IRIS_HOME: path.join(root, 'home') }, cwd: root });
      expect(r.code, describeRun(['jobs'], r)).toBe(6);
      expect(r.stderr).toContain('holds no saved cluster state');
      expect(r.stderr).toContain('iris cluster start');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
