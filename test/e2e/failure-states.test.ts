/**
 * E2E on the built binary, process runtime: the states that say how a task failed (sacct's words).
 * A task stopped by `--time-limit` ends TIMEOUT, one the kernel killed for memory OUT_OF_MEMORY; the
 * job takes its deciding task's state, and both are failures for `--max-retries`, `--after
 * JOB:failed` / `--after JOB`, `iris retry` and the exit codes of `iris wait` / `iris run`;
 * `iris jobs`, `status` and `history` (text, `--json`, `--state`) show them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail, JobSummary, RunInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

/**
 * Whether a task may put a memory limit on its own memory cgroup here (root, and the memory
 * controller in a v1 hierarchy or offered by the v2 root): the kernel then OOM-kills it for real.
 */
function ownMemoryLimitPossible(): boolean {
  if (process.getuid?.() !== 0) return false;
  if (existsSync('/sys/fs/cgroup/memory/memory.oom_control')) return true;
  try {
    return readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('memory');
  } catch {
    return false;
  }
}

/** Puts a 16 MiB limit on the task's own memory cgroup (v1, else v2), then grows without bound. */
const OOM_SCRIPT = [
  'v1=$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)',
  'v2=$(sed -n "s/^0:://p" /proc/self/cgroup)',
  'if [ -n "$v1" ]; then echo 16M > "/sys/fs/cgroup/memory$v1/memory.limit_in_bytes" || exit 9',
  'else echo 16M > "/sys/fs/cgroup$v2/memory.max" || exit 9; echo 0 > "/sys/fs/cgroup$v2/memory.swap.max"; fi',
  'tail /dev/zero',
].join('\n');

describe('TIMEOUT and OUT_OF_MEMORY', () => {
  const c = withCluster('stop-grace: 1s\nworkers:\n  - {name: w0, cpu: 8, memory: 4GiB}\n');

  it('a task stopped by its time limit ends TIMEOUT, and so does its job: status, jobs, history --state, ' +
    "wait's and run's exit codes, --after", async () => {
    // /slow starts only once its dependents are submitted (it waits on /hold, which waits on a gate).
    const gate = c.gate('slow');
    await c.submit(['--name', 'broken', '--cpu', '0.5'], ['sh', '-c', 'exit 3']);
    await c.submit(['--name', 'hold', '--cpu', '0.5'], ['sh', '-c', gate.hold]);
    await c.submit(['--name', 'slow', '--cpu', '0.5', '--time-limit', '1s', '--after', 'hold'], ['sleep', '30']);
    await c.submit(['--name', 'on-fail', '--cpu', '0.5', '--after', 'slow:failed'], ['true']);
    await c.submit(['--name', 'on-ok', '--cpu', '0.5', '--after', 'slow'], ['true']);
    gate.open();

    const wait = await c.iris(['wait', 'slow'], { timeoutMs: 30_000 });
    expect(wait.code, describeRun(['wait', 'slow'], wait)).toBe(1);
    expect(wait.stdout).toMatch(/^\/slow TIMEOUT: task \/slow\/task-0 timed out \(time-limit\)$/m);

    const job = await c.json<JobDetail>(['status', 'slow']);
    expect(job.state).toBe('TIMEOUT');
    expect(job.taskList[0]).toMatchObject({ state: 'TIMEOUT', reason: 'time-limit' });
    expect(job.taskList[0]!.attempts).toMatchObject([{ state: 'FAILED', reason: 'time-limit' }]);
    const status = await c.iris(['status', 'slow']);
    expect(status.stdout).toMatch(/^State:\s+TIMEOUT$/m);
    expect(status.stdout).toMatch(/^Tasks:\s+0\/1 ok, 1 timeout/m);

    const jobs = await c.iris(['jobs']);
    expect(jobs.stdout).toMatch(/^\/slow\s+\d+\s+TIMEOUT\s+0\/1 ok, 1 timeout/m);
    expect((await c.json<JobSummary[]>(['jobs', '--state', 'timeout'])).map((j) => j.name)).toEqual(['/slow']);

    // --after slow:failed is met by a TIMEOUT; --after slow (ok) can never be.
    expect((await c.waitForState('/on-fail', 'SUCCEEDED')).state).toBe('SUCCEEDED');
    expect(await c.waitForState('/on-ok', 'FAILED')).toMatchObject({
      reason: 'dependency /slow ended TIMEOUT',
      cause: { kind: 'dependency_failure', parent: '/slow' },
    });

    // history --state TIMEOUT: the timed-out run only, not the one that FAILED.
    await c.waitForState('/broken', 'FAILED');
    const history = await c.iris(['history', '--state', 'TIMEOUT']);
    expect(history.code, describeRun(['history', '--state', 'TIMEOUT'], history)).toBe(0);
    expect(history.stdout).toMatch(/\/slow\s+\S+\s+TIMEOUT\s/);
    expect(history.stdout).not.toMatch(/\/broken/);
    const runs = await c.json<RunInfo[]>(['history', '--state', 'timeout,failed']);
    expect(runs.map((r) => `${r.name} ${r.state}`).sort()).toEqual([
      '/broken FAILED',
      '/on-ok FAILED',
      '/slow TIMEOUT',
    ]);

    // iris run: a TIMEOUT is exit 1 as any failure.
    const run = await c.iris(['run', '--name', 'limited', '--cpu', '0.5', '--time-limit', '1s', '--', 'sleep', '30'], {
      timeoutMs: 30_000,
    });
    expect(run.code, describeRun(['run'], run)).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/\/limited TIMEOUT/);

    // iris retry runs it again, and the chain its failure cascaded to.
    const retry = await c.iris(['retry', '--downstream', 'slow']);
    expect(retry.code, describeRun(['retry', 'slow'], retry)).toBe(0);
    expect(await c.waitForState('/slow', 'TIMEOUT')).toMatchObject({ run: expect.any(Number) });
    expect((await c.json<JobDetail>(['status', 'slow'])).run).toBeGreaterThan(job.run);
  }, 90_000);

  it('a TIMEOUT counts against --max-retries: retried once, then the task and job end TIMEOUT', async () => {
    await c.submit(['--name', 'twice', '--cpu', '0.5', '--time-limit', '1s', '--max-retries', '1'], ['sleep', '30']);
    const job = await c.waitForState('/twice', ['TIMEOUT', 'FAILED', 'SUCCEEDED', 'KILLED'], { timeoutMs: 30_000 });
    expect(job.state).toBe('TIMEOUT');
    const task = job.taskList[0]!;
    expect(task).toMatchObject({ state: 'TIMEOUT', attempt: 1, failures: 2 });
    expect(task.attempts.map((a) => `${a.attempt} ${a.state} ${a.reason}`)).toEqual([
      '0 FAILED time-limit',
      '1 FAILED time-limit',
    ]);
  }, 60_000);

  it.skipIf(!ownMemoryLimitPossible())(
    'a task the kernel OOM-kills ends OUT_OF_MEMORY (its memory cgroup counted the kill)',
    async () => {
      await c.submit(['--name', 'hog', '--cpu', '0.5'], ['sh', '-c', OOM_SCRIPT]);
      const wait = await c.iris(['wait', 'hog'], { timeoutMs: 30_000 });
      expect(wait.code, describeRun(['wait', 'hog'], wait)).toBe(1);
      const job = await c.json<JobDetail>(['status', 'hog']);
      expect(job.state, JSON.stringify(job.taskList[0])).toBe('OUT_OF_MEMORY');
      expect(job.taskList[0]!.state).toBe('OUT_OF_MEMORY');
      expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/^OOM killed by the kernel/);
      const history = await c.json<RunInfo[]>(['history', '--state', 'out-of-memory']);
      expect(history.map((r) => r.name)).toEqual(['/hog']);
      expect((await c.iris(['jobs'])).stdout).toMatch(/^\/hog\s+\d+\s+OUT_OF_MEMORY\s+0\/1 ok, 1 out-of-memory/m);
    },
    60_000,
  );

  it("iris's time-limit note comes before the task's last words; the log's times run forward", async () => {
    const script = 'trap "echo bye; exit 1" TERM; echo up; while :; do sleep 0.1; done';
    await c.submit(['--name', 'bye', '--cpu', '0.5', '--time-limit', '1s'], ['sh', '-c', script]);
    expect((await c.iris(['wait', 'bye'], { timeoutMs: 30_000 })).code).toBe(1);
    // One stream, in the log's order (the note is on stderr, the task's `bye` on stdout).
    const logs = await c.iris(['logs', 'bye', '--json']);
    const lines = logs.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { time: string; text: string });
    const note = lines.findIndex((l) => l.text.startsWith('iris: stopping attempt (time-limit'));
    const bye = lines.findIndex((l) => l.text === 'bye');
    expect(note, logs.stdout).toBeGreaterThan(0);
    expect(bye, logs.stdout).toBeGreaterThan(note);
    const times = lines.map((l) => l.time);
    expect(times, logs.stdout).toEqual([...times].sort());
  }, 60_000);

  it('the states survive a restart: read offline from state.db, then by the restarted cluster', async () => {
    const stop = await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 });
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
    const offline = await c.iris(['jobs', '--state', 'timeout', '--json']);
    expect(offline.code, describeRun(['jobs', '--state', 'timeout'], offline)).toBe(0);
    const names = (JSON.parse(offline.stdout) as JobSummary[]).map((j) => `${j.name} ${j.state}`).sort();
    expect(names).toEqual(['/bye TIMEOUT', '/limited TIMEOUT', '/slow TIMEOUT', '/twice TIMEOUT']);
    await c.start();
    expect((await c.json<JobDetail>(['status', 'twice'])).taskList[0]!.state).toBe('TIMEOUT');
    expect((await c.json<JobSummary[]>(['jobs', '--state', 'TIMEOUT'])).length).toBe(4);
  }, 60_000);

  it('a pipeline stage stopped by its time limit ends TIMEOUT; the stages needing it fail, and the run', async () => {
    const text =
      'name: tl\nstages:\n  a:\n    cpu: 0.5\n    time-limit: 1s\n    command: sleep 30\n  b:\n' +
      '    cpu: 0.5\n    needs: [a]\n    command: [echo, never]\n';
    writeFileSync(path.join(c.cwd, 'tl.yaml'), text);
    const run = await c.iris(['run', '-f', 'tl.yaml'], { timeoutMs: 30_000 });
    expect(run.code, describeRun(['run', '-f', 'tl.yaml'], run)).toBe(1);
    expect((await c.job('/tl/a')).state).toBe('TIMEOUT');
    expect(await c.job('/tl/b')).toMatchObject({ state: 'FAILED', reason: 'dependency /tl/a ended TIMEOUT' });
    expect((await c.job('/tl')).state).toBe('FAILED');
    expect((await c.iris(['status', 'tl'])).stdout).toMatch(/^\s*a\s+TIMEOUT\b/m);
  }, 60_000);
});
