/**
 * E2E: logs — a job's logs include all tasks and descendants with time/task/attempt prefixes,
 * one task's logs, stdout vs stderr, -f following until the job ends, --tail, --attempt, --json,
 * and logs surviving a cluster restart.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { LogLine } from '../../src/api/types.js';
import { BIN, cleanEnv, describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

const PREFIX = /^\d\d:\d\d:\d\d\.\d{3} /;

describe('logs', () => {
  const c = withCluster(CONFIG);
  beforeAll(async () => {
    const script = c.script(
      'lg.sh',
      [
        'echo "out-$IRIS_TASK_INDEX"',
        'echo "err-$IRIS_TASK_INDEX" >&2',
        'if [ "$IRIS_TASK_INDEX" = 0 ]; then iris run --name sub --cpu 0.1 -- sh -c "echo sub-line" > /dev/null ' +
          '2>&1 || exit 1; fi',
      ].join('\n'),
    );
    const r = await c.iris(['run', '--name', 'lg', '--replicas', '2', '--cpu', '0.1', '--', 'sh', script]);
    if (r.code !== 0) throw new Error(describeRun(['run', 'lg'], r));
  });

  it('iris logs JOB shows every task and descendant, prefixed with time, task and attempt', async () => {
    const r = await c.iris(['logs', 'lg']);
    expect(r.code, describeRun(['logs', 'lg'], r)).toBe(0);
    const out = r.stdout.trim().split('\n');
    for (const line of out) expect(line).toMatch(PREFIX);
    expect(out.map((l) => l.replace(PREFIX, '')).sort()).toEqual([
      'sub/task-0[0] sub-line',
      'task-0[0] out-0',
      'task-1[0] out-1',
    ]);
    const err = r.stderr
      .trim()
      .split('\n')
      .map((l) => l.replace(PREFIX, ''))
      .sort();
    expect(err).toEqual(['task-0[0] err-0', 'task-1[0] err-1']);
  });

  it('iris logs JOB/task-N shows one task only', async () => {
    const r = await c.iris(['logs', 'lg/task-1']);
    expect(r.code, describeRun(['logs', 'lg/task-1'], r)).toBe(0);
    expect(r.stdout).toMatch(/out-1/);
    expect(r.stdout).not.toMatch(/out-0|sub-line/);
    expect(r.stderr).toMatch(/err-1/);
  });

  it('--json prints one LogLine per line', async () => {
    const r = await c.iris(['logs', '/lg', '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Omit<LogLine, 'time'> & { time: unknown });
    expect(lines).toHaveLength(5);
    expect(lines.find((l) => l.text === 'err-1')).toMatchObject({ task: '/lg/task-1', attempt: 0, stream: 'stderr' });
    expect(lines.find((l) => l.text === 'sub-line')).toMatchObject({
      task: '/lg/sub/task-0',
      attempt: 0,
      stream: 'stdout',
    });
    // Instants in --json are ISO 8601 strings (docs/cli.md, "Time style").
    for (const line of lines) {
      expect(typeof line.time).toBe('string');
      expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Number.isNaN(Date.parse(String(line.time)))).toBe(false);
    }
  });

  it('--since filters by time', async () => {
    const recent = await c.iris(['logs', 'lg', '--since', '1h']);
    expect(recent.code).toBe(0);
    expect(recent.stdout).toBe((await c.iris(['logs', 'lg'])).stdout);
    const future = await c.iris(['logs', 'lg', '--since', '2999-01-01T00:00:00Z']);
    expect(future.code, describeRun(['logs', 'lg', '--since', '2999-01-01T00:00:00Z'], future)).toBe(0);
    expect(future.stdout.trim()).toBe('');
  });

  it('-f follows the job until it ends', async () => {
    const gate = c.gate('follow');
    await c.submit(['--name', 'fol', '--cpu', '0.1'], ['sh', '-c', `echo before-gate; ${gate.hold}; echo after-gate`]);
    await c.waitForLog('/fol', 'before-gate');
    const follower = spawn(process.execPath, [BIN, 'logs', '-f', 'fol'], {
      cwd: c.cwd,
      env: cleanEnv(c.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    follower.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => follower.on('close', (code) => resolve(code)));
    // The follower prints what exists, then waits; it must not exit while the job runs.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`logs -f printed nothing: ${stdout}`)), 20_000);
      follower.stdout.on('data', () => {
        if (stdout.includes('before-gate')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(follower.exitCode).toBeNull();
    gate.open();
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000)),
    ]);
    if (code === 'hung') follower.kill('SIGKILL');
    expect(code).toBe(0);
    expect(stdout).toMatch(/task-0\[0\] after-gate/);
    expect((await c.job('/fol')).state).toBe('SUCCEEDED');
  });

  it('--tail N shows only the last N lines', async () => {
    const r0 = await c.iris([
      'run',
      '--name',
      'five',
      '--cpu',
      '0.1',
      '--',
      'sh',
      '-c',
      'for i in 1 2 3 4 5; do echo "line-$i"; done',
    ]);
    expect(r0.code).toBe(0);
    const r = await c.iris(['logs', 'five', '--tail', '2']);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.replace(PREFIX, '')),
    ).toEqual(['task-0[0] line-4', 'task-0[0] line-5']);
  });

  it('--attempt N shows one attempt; logs of every attempt are kept', async () => {
    const args = [
      'run',
      '--name',
      'att',
      '--max-retries',
      '1',
      '--cpu',
      '0.1',
      '--',
      'sh',
      '-c',
      'echo "attempt-$IRIS_ATTEMPT"; [ "$IRIS_ATTEMPT" = 1 ]',
    ];
    const r0 = await c.iris(args);
    expect(r0.code, describeRun(args, r0)).toBe(0);
    const all = await c.iris(['logs', 'att']);
    expect(all.stdout).toMatch(/task-0\[0\] attempt-0/);
    expect(all.stdout).toMatch(/task-0\[1\] attempt-1/);
    const zero = await c.iris(['logs', 'att', '--attempt', '0']);
    expect(zero.stdout).toMatch(/attempt-0/);
    expect(zero.stdout).not.toMatch(/attempt-1/);
    const one = await c.iris(['logs', 'att/task-0', '--attempt', '1']);
    expect(one.stdout).toMatch(/task-0\[1\] attempt-1/);
    expect(one.stdout).not.toMatch(/attempt-0/);
  });

  it('logs survive a cluster restart', async () => {
    const before = await c.iris(['logs', 'lg']);
    const stop = await c.iris(['cluster', 'stop']);
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
    await c.start();
    const after = await c.iris(['logs', 'lg']);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(after.stdout).toMatch(/sub-line/);
    expect((await c.iris(['logs', 'att', '--attempt', '0'])).stdout).toMatch(/attempt-0/);
  });
});
