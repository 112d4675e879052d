/**
 * E2E: crash recovery — `kill -9` of the cluster while a task runs, then `iris cluster start`:
 * every job is still there, the running task is retried as a preemption (attempt 1, no failure
 * counted), no process of the first attempt survives, and attempt 0's logs are kept.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { describeRun, isRunning, marker, pidsWithMarker, waitUntil, killMarked, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('crash recovery', () => {
  const c = withCluster(CONFIG);
  afterAll(async () => {
    killMarked(tag);
  });

  const tag = marker('crash');

  it(
    'after kill -9 and a restart, jobs survive, the running task reruns as a preemption and no orphan ' + 'remains',
    async () => {
      const done = await c.iris(['run', '--name', 'before', '--cpu', '0.1', '--', 'sh', '-c', 'echo finished-before']);
      expect(done.code).toBe(0);
      const gate = c.gate('pending-after');
      await c.submit(['--name', 'holder', '--cpu', '2'], ['sh', '-c', gate.hold, tag]);
      await c.waitForState('/holder', 'RUNNING');
      await c.submit(['--name', 'queued', '--cpu', '2'], ['sh', '-c', 'echo queued-ran']);
      await c.waitForState('/queued', 'PENDING');
      gate.open();
      await c.waitForState('/holder', 'SUCCEEDED');
      await c.waitForState('/queued', 'SUCCEEDED');

      const script = c.script(
        'crashy.sh',
        [
          'echo "attempt $IRIS_ATTEMPT pid $$"',
          'if [ "$IRIS_ATTEMPT" = 0 ]; then',
          `  sleep 300 &`,
          '  echo "child $!"',
          '  wait',
          'fi',
          'echo "finished $IRIS_ATTEMPT"',
        ].join('\n'),
      );
      await c.submit(['--name', 'crashy', '--cpu', '0.5'], ['sh', script, tag]);
      const lines = await c.waitForLog('/crashy', 'child ');
      const shPid = Number(/pid (\d+)/.exec(lines.find((l) => l.text.startsWith('attempt 0'))!.text)![1]);
      const childPid = Number(/child (\d+)/.exec(lines.find((l) => l.text.startsWith('child'))!.text)![1]);
      expect(isRunning(shPid)).toBe(true);
      expect(isRunning(childPid)).toBe(true);

      const clusterPid = c.pid()!;
      process.kill(clusterPid, 'SIGKILL');
      await waitUntil(
        'the cluster to die',
        async () => isRunning(clusterPid),
        (alive) => !alive,
      );
      // With the cluster dead, reading commands show the state it saved: the job as it last was.
      const down = await c.iris(['jobs']);
      expect(down.code, describeRun(['jobs'], down)).toBe(0);
      expect(down.stderr).toMatch(/no cluster is running; showing the state saved in/);
      expect(down.stdout).toMatch(/crashy.*RUNNING/);
      const cancel = await c.iris(['cancel', 'crashy']);
      expect(cancel.code, describeRun(['cancel', 'crashy'], cancel)).toBe(6);

      const restart = await c.iris(['cluster', 'start', '--detach']);
      expect(restart.code, describeRun(['cluster', 'start', '--detach'], restart)).toBe(0);
      expect(c.pid()).not.toBe(clusterPid);
      // Reclaiming happens before the socket answers: the first attempt's processes are gone.
      expect(isRunning(shPid)).toBe(false);
      await waitUntil(
        "the first attempt's sleep to be gone",
        async () => isRunning(childPid),
        (alive) => !alive,
        { timeoutMs: 5_000 },
      );

      const job: JobDetail = await c.waitForState('/crashy', 'SUCCEEDED');
      const task = job.taskList[0]!;
      expect(task.attempts.map((a) => [a.attempt, a.state])).toEqual([
        [0, 'PREEMPTED'],
        [1, 'SUCCEEDED'],
      ]);
      expect(task.failures).toBe(0);
      expect(task.preemptions).toBe(1);

      const zero = await c.iris(['logs', 'crashy', '--attempt', '0']);
      expect(zero.stdout).toMatch(/task-0\[0\] attempt 0 pid/);
      expect(zero.stdout).toMatch(/task-0\[0\] child \d+/);
      const one = await c.iris(['logs', 'crashy', '--attempt', '1']);
      expect(one.stdout).toMatch(/task-0\[1\] finished 1/);

      for (const name of ['/before', '/holder', '/queued']) expect((await c.job(name)).state).toBe('SUCCEEDED');
      expect((await c.iris(['logs', 'before'])).stdout).toMatch(/finished-before/);
      expect(pidsWithMarker(tag)).toEqual([]);
    },
  );

  it('a job pending at the crash is still pending afterwards and runs', async () => {
    const gate = c.gate('pending-crash');
    await c.submit(['--name', 'hold2', '--cpu', '2'], ['sh', '-c', gate.hold, tag]);
    await c.waitForState('/hold2', 'RUNNING');
    await c.submit(['--name', 'waiting', '--cpu', '2'], ['sh', '-c', 'echo waited']);
    await c.waitForState('/waiting', 'PENDING');
    const clusterPid = c.pid()!;
    process.kill(clusterPid, 'SIGKILL');
    await waitUntil(
      'the cluster to die',
      async () => isRunning(clusterPid),
      (alive) => !alive,
    );
    gate.open();
    await c.start();
    await c.waitForState('/hold2', 'SUCCEEDED');
    const waiting = await c.waitForState('/waiting', 'SUCCEEDED');
    expect(waiting.taskList[0]!.attempts).toHaveLength(1);
  });
});
