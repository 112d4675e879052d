/**
 * E2E: a full disk. IRIS_HOME lies on an 8 MiB tmpfs (real, mounted for the test; root only,
 * as in CI) and a task prints without end until its log fills it. The controller must not die:
 * the task fails with "no space left on <log>", reads keep working, submissions are refused with
 * exit 7, a restart after a crash while still full comes up, and once space returns the cluster accepts work
 * again by itself — without running the job that filled the disk again.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, isRunning, waitUntil, withCluster } from './harness.js';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';

describe('a full disk under IRIS_HOME', () => {
  const c = withCluster({ config: 'stop-grace: 1s\nworkers:\n  - {name: w0, cpu: 2, memory: 1GiB}\n', noStart: true });
  let fs: Tmpfs | null = null;
  beforeAll(async () => {
    mkdirSync(c.home, { recursive: true });
    fs = mountTmpfs(8, c.home);
    if (fs) await c.start();
  });
  afterAll(async () => {
    await c?.stop();
    fs?.unmount();
  });

  it(
    'fails the task that filled it, keeps serving, refuses work until space returns, survives a restart, and never ' +
      're-runs the task',
    async (ctx) => {
      if (!fs) return ctx.skip();
      const pid = c.pid()!;
      await c.submit(['--name', 'flood', '--cpu', '0.5'], ['sh', '-c', 'yes 0123456789abcdefghijklmnopqrstuvwxyz']);
      const flood = await c.waitForEnd('/flood', { timeoutMs: 30_000 });
      const logPath = path.join(c.home, 'logs', 'flood', `@${flood.run}`, 'task-0', 'attempt-0.log');
      expect(flood.state).toBe('FAILED');
      expect(flood.taskList[0]!.attempts.map((a) => [a.state, a.reason])).toEqual([
        ['FAILED', `no space left on ${logPath}`],
      ]);
      expect(isRunning(pid)).toBe(true);

      // The ended attempt's spool files gave some space back: the disk is full again (another
      // writer took it). Reads work; a submission is refused with the documented exit code and a hint.
      fs.fill();
      const jobs = await c.iris(['jobs']);
      expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
      expect(jobs.stdout).toContain('/flood');
      const refused = await c.iris(['submit', '--name', 'later', '--', 'true']);
      expect(refused.code, describeRun(['submit'], refused)).toBe(7);
      expect(refused.stderr).toContain(`no space left on ${path.join(c.home, 'state.db')}`);
      expect(refused.stderr).toMatch(/free space/);

      // The controller dies (kill -9, as in a crash) and is started again while the disk is still
      // full: it comes up and serves what it knows.
      process.kill(pid, 'SIGKILL');
      await waitUntil(
        'the controller gone',
        async () => isRunning(pid),
        (running) => !running,
      );
      fs.fill();
      await c.start();
      expect(c.pid()).not.toBe(pid);
      expect((await c.job('/flood')).state).toBe('FAILED');
      expect((await c.iris(['submit', '--name', 'later', '--', 'true'])).code).toBe(7);

      // Space returns: the cluster takes submissions again on its own, and the flood stays failed.
      rmSync(logPath);
      fs.free();
      await waitUntil(
        'a submission accepted',
        () => c.iris(['submit', '--name', 'later', '--', 'echo', 'back']),
        (r) => r.code === 0,
        { timeoutMs: 20_000 },
      );
      expect((await c.waitForEnd('/later')).state).toBe('SUCCEEDED');
      const after = await c.job('/flood');
      expect(after.state).toBe('FAILED');
      expect(after.taskList[0]!.attempts).toHaveLength(1);
    },
  );
});
