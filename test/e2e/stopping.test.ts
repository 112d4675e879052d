/**
 * E2E: capacity is free only when the process is gone. A task that ignores SIGTERM is cancelled;
 * until the grace period ends and it is killed, it still holds its CPUs: a job needing them stays
 * pending, `iris status` shows the attempt as stopping, and the job starts only once the old
 * process has gone (checked on the real process table).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, isRunning, waitUntil, withCluster } from './harness.js';

describe('stopping tasks hold their resources', () => {
  const c = withCluster('stop-grace: 3s\nworkers:\n  - {name: w0, cpu: 2, memory: 2GiB}\n');

  it('a cancelled task that ignores SIGTERM keeps its CPUs until it is gone', async () => {
    const pidFile = path.join(c.cwd, 'stubborn.pid');
    const stubborn = c.script(
      'stubborn.sh',
      `trap '' TERM\necho $$ > '${pidFile}'\necho up\nwhile true; do sleep 0.05; done`,
    );
    await c.submit(['--name', 'stubborn', '--cpu', '2'], [stubborn]);
    await c.waitForLog('/stubborn', 'up');
    const oldPid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(isRunning(oldPid)).toBe(true);

    const cancel = await c.iris(['cancel', 'stubborn']);
    expect(cancel.code, describeRun(['cancel'], cancel)).toBe(0);
    // The second job records whether the first one's process was still there (alive, not a
    // zombie) when it started.
    await c.submit(
      ['--name', 'next', '--cpu', '2'],
      [
        'sh',
        '-c',
        `s=$(sed 's/.*) //' /proc/${oldPid}/stat 2>/dev/null | cut -c1); if [ -n "$s" ] && [ "$s" != Z ]; then echo ` +
          `OVERLAP; else echo ALONE; fi`,
      ],
    );

    const during = await c.job('/stubborn');
    expect(during.state).toBe('KILLED');
    if (isRunning(oldPid)) {
      expect(during.taskList[0]!.attempts[0]).toMatchObject({ state: 'KILLED', stopping: true });
      expect((await c.job('/next')).state).toBe('PENDING');
      const status = await c.iris(['status', 'stubborn']);
      expect(status.stdout).toContain('KILLED (stopping)');
    }

    const next = await c.waitForEnd('/next', { timeoutMs: 20_000 });
    expect(next.state).toBe('SUCCEEDED');
    expect((await c.logs('/next')).map((l) => l.text)).toEqual(['ALONE']);
    expect(isRunning(oldPid)).toBe(false);
    const after = await waitUntil(
      'attempt no longer stopping',
      () => c.job('/stubborn'),
      (j) => !j.taskList[0]!.attempts[0]!.stopping,
    );
    expect(after.taskList[0]!.attempts[0]!.state).toBe('KILLED');
  });
});
