/**
 * E2E: failures — retries with attempt numbers, the --max-task-failures failure domain, gangs
 * failing and retrying together, --timeout, --scheduling-timeout, and `workers drain` turning a
 * running task into a preemption that runs again elsewhere without counting as a failure.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, WorkerInfo } from '../../src/api/types.js';
import { byIndex, describeRun, marker, pidsWithMarker, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB, attributes: {host: w0, rack: r1}}
  - {name: w1, cpu: 4, memory: 4GiB, attributes: {host: w1, rack: r1}}
`;

describe('failures, retries and timeouts', () => {
  const c = withCluster(CONFIG);

  const run = async (flags: string[], command: string[], expectOk: boolean): Promise<JobDetail> => {
    const args = ['run', ...flags, '--cpu', '0.1', '--', ...command];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    if (expectOk) expect(r.code, describeRun(args, r)).toBe(0);
    else expect(r.code, describeRun(args, r)).toBe(1);
    const name = flags[flags.indexOf('--name') + 1]!;
    return c.waitForEnd('/' + name);
  };

  it('--max-retries reruns a failed task; attempts are numbered in status', async () => {
    const job = await run(
      ['--name', 'retry', '--max-retries', '2'],
      ['sh', '-c', 'echo "try $IRIS_ATTEMPT"; [ "$IRIS_ATTEMPT" -ge 2 ]'],
      true,
    );
    expect(job.state).toBe('SUCCEEDED');
    const task = job.taskList[0]!;
    expect(task.attempt).toBe(2);
    expect(task.attempts.map((a) => [a.attempt, a.state, a.exitCode])).toEqual([
      [0, 'FAILED', 1],
      [1, 'FAILED', 1],
      [2, 'SUCCEEDED', 0],
    ]);
    // Each retry is a requeue event, counted and listed by iris status.
    expect(job.requeues).toMatchObject({ total: 2, byReason: { retry: 2 } });
    expect(job.requeues!.recent.map((e) => [e.task, e.attempt, e.detail])).toEqual([
      ['/retry/task-0', 0, 'exit 1; retry 1 of 2'],
      ['/retry/task-0', 1, 'exit 1; retry 2 of 2'],
    ]);
    const status = await c.iris(['status', 'retry']);
    expect(status.stdout).toMatch(/attempt|#/i);
    expect(status.stdout).toMatch(/Requeues:\s+2 \(retry 2\)\n/);
    expect(status.stdout).toMatch(/\/retry\/task-0\s+1\s+retry\s+exit 1; retry 2 of 2/);
    const logs = await c.iris(['logs', 'retry']);
    for (const n of [0, 1, 2]) expect(logs.stdout).toMatch(new RegExp(`task-0\\[${n}\\] try ${n}`));
  });

  it('a task that exhausts its retries fails the job with its exit code', async () => {
    const job = await run(['--name', 'exhaust', '--max-retries', '1'], ['sh', '-c', 'exit 7'], false);
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.attempts.map((a) => a.exitCode)).toEqual([7, 7]);
  });

  it('--max-task-failures tolerates that many failed tasks', async () => {
    const job = await run(
      ['--name', 'tolerant', '--replicas', '3', '--max-task-failures', '1'],
      ['sh', '-c', '[ "$IRIS_TASK_INDEX" != 0 ]'],
      true,
    );
    expect(job.state).toBe('SUCCEEDED');
    expect(byIndex(job).map((t) => t.state)).toEqual(['FAILED', 'SUCCEEDED', 'SUCCEEDED']);
  });

  it('one failure more than --max-task-failures fails the job and kills its other tasks', async () => {
    const tag = marker('domain');
    const job = await run(
      ['--name', 'domain', '--replicas', '3', '--max-task-failures', '1'],
      ['sh', '-c', 'if [ "$IRIS_TASK_INDEX" = 2 ]; then sleep 120; else exit 1; fi', tag],
      false,
    );
    expect(job.state).toBe('FAILED');
    expect(byIndex(job).map((t) => t.state)).toEqual(['FAILED', 'FAILED', 'KILLED']);
    await waitUntil(
      'killed task to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });

  it('a gang member failing for good makes its siblings COSCHED_FAILED and fails the job', async () => {
    const job = await run(
      ['--name', 'gangfail', '--replicas', '2', '--coschedule', 'rack'],
      ['sh', '-c', 'if [ "$IRIS_TASK_INDEX" = 1 ]; then exit 1; fi; sleep 120'],
      false,
    );
    expect(job.state).toBe('FAILED');
    expect(byIndex(job).map((t) => t.state)).toEqual(['COSCHED_FAILED', 'FAILED']);
  });

  it('a gang member retried makes the whole gang run again as new attempts', async () => {
    const job = await run(
      ['--name', 'gangretry', '--replicas', '2', '--coschedule', 'rack', '--max-retries', '1'],
      [
        'sh',
        '-c',
        'if [ "$IRIS_ATTEMPT" = 0 ]; then if [ "$IRIS_TASK_INDEX" = 1 ]; then exit 1; fi; sleep 120; fi; echo "ok ' +
          '$IRIS_ATTEMPT"',
      ],
      true,
    );
    expect(job.state).toBe('SUCCEEDED');
    for (const task of byIndex(job)) {
      expect(task.attempt).toBe(1);
      expect(task.attempts.map((a) => a.attempt)).toEqual([0, 1]);
      expect(task.attempts[1]!.state).toBe('SUCCEEDED');
    }
    expect(new Set(job.taskList.map((t) => t.workerId))).toEqual(new Set(['w0', 'w1']));
    expect(job.requeues!.recent.map((e) => [e.task, e.reason, e.detail])).toEqual([
      ['/gangretry/task-1', 'retry', 'exit 1; retry 1 of 1'],
      ['/gangretry/task-0', 'gang_restart', 'gang member /gangretry/task-1 failed'],
    ]);
  });

  it('--time-limit stops an attempt that runs too long: task and job TIMEOUT, reason time-limit', async () => {
    const tag = marker('timeout');
    const job = await run(['--name', 'slow', '--time-limit', '1s'], ['sh', '-c', 'sleep 120', tag], false);
    expect(job.state).toBe('TIMEOUT');
    const task = job.taskList[0]!;
    expect(task.state).toBe('TIMEOUT');
    expect(`${task.reason} ${task.attempts[0]!.reason} ${job.reason}`).toMatch(/time-limit/);
    expect(task.attempts[0]!.finishedAt! - task.attempts[0]!.startedAt).toBeLessThan(10_000);
    await waitUntil(
      'timed-out task to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });

  it('--scheduling-timeout makes a job that could not be placed in time UNSCHEDULABLE', async () => {
    const gate = c.gate('full-w1');
    await c.submit(['--name', 'fill-w1', '-c', 'host=w1', '--cpu', '4'], ['sh', '-c', gate.hold]);
    await c.waitForState('/fill-w1', 'RUNNING');
    await c.submit(['--name', 'late', '-c', 'host=w1', '--cpu', '1', '--scheduling-timeout', '1s'], ['true']);
    const job = await c.waitForEnd('/late', { timeoutMs: 15_000 });
    expect(job.state).toBe('UNSCHEDULABLE');
    expect(job.taskList[0]!.attempts).toHaveLength(0);
    gate.open();
    await c.waitForState('/fill-w1', 'SUCCEEDED');
  });

  it('workers drain preempts the running task, which runs again elsewhere without counting as a failure', async () => {
    const tag = marker('drain');
    await c.submit(
      ['--name', 'drainme', '-c', 'rack=r1', '--cpu', '0.1'],
      ['sh', '-c', 'echo "run $IRIS_ATTEMPT on $IRIS_WORKER_ID"; if [ "$IRIS_ATTEMPT" = 0 ]; then sleep 120; fi', tag],
    );
    const running = await c.waitForState('/drainme', 'RUNNING');
    const first = running.taskList[0]!.workerId!;
    const other = first === 'w0' ? 'w1' : 'w0';
    const drain = await c.iris(['workers', 'drain', first]);
    expect(drain.code, describeRun(['workers', 'drain', first], drain)).toBe(0);

    const job = await c.waitForEnd('/drainme');
    expect(job.state).toBe('SUCCEEDED');
    const task = job.taskList[0]!;
    expect(task.attempts.map((a) => [a.attempt, a.state, a.workerId])).toEqual([
      [0, 'PREEMPTED', first],
      [1, 'SUCCEEDED', other],
    ]);
    expect(task.failures).toBe(0);
    expect(task.preemptions).toBe(1);
    expect(job.requeues).toMatchObject({
      total: 1,
      byReason: { preemption: 1 },
      recent: [{ task: '/drainme/task-0', attempt: 0, detail: `worker ${first} drained` }],
    });
    const workers = await c.json<WorkerInfo[]>(['workers']);
    expect(workers.find((w) => w.id === first)!.state).not.toBe(workers.find((w) => w.id === other)!.state);
    // A drained worker takes no new work.
    const after = await c
      .json<JobDetail>(['run', '-c', `host=${first}`, '--cpu', '0.1', '--scheduling-timeout', '1s', '--', 'true'])
      .catch((error: Error) => error);
    expect(after).toBeInstanceOf(Error);
    await waitUntil(
      'preempted process to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });

  it('a preemption beyond --max-preemptions ends the job WORKER_FAILED', async () => {
    // One of w0/w1 is drained already (previous test): the job lands on the other one.
    await c.submit(
      ['--name', 'fragile', '-c', 'rack=r1', '--cpu', '0.1', '--max-preemptions', '0'],
      ['sh', '-c', 'sleep 120; :'],
    );
    const running = await c.waitForState('/fragile', 'RUNNING');
    const worker = running.taskList[0]!.workerId!;
    const drain = await c.iris(['workers', 'drain', worker]);
    expect(drain.code, describeRun(['workers', 'drain', worker], drain)).toBe(0);
    const job = await c.waitForEnd('/fragile');
    expect(job.state).toBe('WORKER_FAILED');
    expect(job.taskList[0]!.state).toBe('WORKER_FAILED');
    expect(job.taskList[0]!.attempts.map((a) => a.state)).toEqual(['PREEMPTED']);
    expect(job.taskList[0]!.failures).toBe(0);
  });

  it('draining an unknown worker is a clear error with exit 3', async () => {
    const r = await c.iris(['workers', 'drain', 'no-such-worker']);
    expect(r.code, describeRun(['workers', 'drain', 'no-such-worker'], r)).toBe(3);
    expect(r.stderr).toMatch(/unknown worker no-such-worker/);
  });
});
