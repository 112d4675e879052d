/**
 * E2E (issue 13, operator basics) on the built binary: pending reasons that name every filter
 * that excluded workers, for the waiting tasks of a partly running array too; `iris status
 * JOB/task-N` and `iris cancel JOB/task-N`; `--retry-backoff`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CancelResponse, JobSummary, TaskDetail } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

// Two workers: `a` (zone a, 2 CPU) and `b` (zone b, 4 CPU).
const CONFIG = `
workers:
  - name: a
    cpu: 2
    memory: 2GiB
    attributes: { zone: a }
  - name: b
    cpu: 4
    memory: 2GiB
    attributes: { zone: b }
`;

describe('task-level operations, complete pending reasons, retry backoff', () => {
  const c = withCluster(CONFIG);

  it('a pending reason names the constraint that excluded the free worker, beside the busy one', async () => {
    const hog = c.gate('hog');
    await c.submit(['--name', 'hog', '--cpu', '2', '--constraint', 'zone=a'], ['sh', '-c', hog.hold]);
    await c.waitForState('/hog', 'RUNNING');
    await c.submit(['--name', 'want', '--cpu', '2', '--constraint', 'zone=a'], ['true']);
    const expected = 'no worker fits: 1 excluded by constraint zone=a, 1 too little free CPU (need 2, largest free 0)';
    const job = await c.waitForJob('/want', (j) => j.reason !== null, 'a pending reason');
    // The queue policy may add the start it reserves: `; reserved to start at …`.
    expect(job.reason).toContain(expected);
    const shown = await c.iris(['status', 'want']);
    expect(shown.code, describeRun(['status', 'want'], shown)).toBe(0);
    expect(shown.stdout).toMatch(/Pending reason: +no worker fits: 1 excluded by constraint zone=a, /);
    const queue = await c.iris(['queue']);
    expect(queue.stdout).toContain(expected);
    hog.open();
    await c.waitForState('/want', 'SUCCEEDED');
  });

  it(
    'status and cancel of one task of an array: the waiting task has a reason; the job ends by its other ' + 'tasks',
    async () => {
      const go = c.gate('arr');
      await c.submit(
        ['--name', 'arr', '--replicas', '3', '--cpu', '2', '--constraint', 'zone=b'],
        ['sh', '-c', go.hold],
      );
      const waiting = 'no worker fits: 1 excluded by constraint zone=b, 1 too little free CPU (need 2, largest free 0)';
      await c.waitForJob(
        '/arr',
        (j) => j.state === 'RUNNING' && j.taskList.filter((t) => t.state === 'RUNNING').length === 2,
        'two tasks running',
      );

      // The job names how many tasks still wait and why; so do `jobs` and the task itself.
      const pendingIndex = (await c.job('/arr')).taskList.find((t) => t.state === 'PENDING')!.index;
      const jobs = await c.json<JobSummary[]>(['jobs']);
      // (The queue policy may add the start it reserves: `; reserved to start at …`.)
      expect(jobs.find((j) => j.name === '/arr')!.reason!.startsWith(`1 pending: ${waiting}`)).toBe(true);
      const task = await c.json<TaskDetail>(['status', `arr/task-${pendingIndex}`]);
      expect(task).toMatchObject({
        id: `/arr/task-${pendingIndex}`,
        job: '/arr',
        jobState: 'RUNNING',
        state: 'PENDING',
        attempts: [],
      });
      expect(task.reason!.startsWith(waiting)).toBe(true);
      const plain = await c.iris(['status', `arr/task-${pendingIndex}`]);
      expect(plain.code, describeRun(['status'], plain)).toBe(0);
      expect(plain.stdout).toMatch(new RegExp(`Task: +/arr/task-${pendingIndex}`));
      expect(plain.stdout).toMatch(/State: +PENDING/);
      expect(plain.stdout).toContain(waiting);

      // An unknown index: exit 3, and the hint says how many tasks there are.
      const unknown = await c.iris(['status', 'arr/task-9']);
      expect(unknown.code, describeRun(['status', 'arr/task-9'], unknown)).toBe(3);
      expect(unknown.stderr).toContain('job /arr has no task-9');
      expect(unknown.stderr).toContain('it has 3 tasks: task-0 … task-2');
      expect((await c.iris(['cancel', 'arr/task-9'])).code).toBe(3);

      // Cancel the waiting task and one running task: both end CANCELLED, the job keeps running.
      const running = (await c.job('/arr')).taskList.find((t) => t.state === 'RUNNING')!.index;
      const cancel = await c.iris(['cancel', `arr/task-${pendingIndex}`, `arr/task-${running}`]);
      expect(cancel.code, describeRun(['cancel'], cancel)).toBe(0);
      expect(cancel.stdout.trim().split('\n')).toEqual([
        `cancelled /arr/task-${pendingIndex}`,
        `cancelled /arr/task-${running}`,
      ]);
      const after = await c.waitForTask(
        '/arr',
        running,
        (t) => t.state === 'CANCELLED' && t.attempts[0]!.stopping !== true,
        'cancelled and stopped',
      );
      expect(after.reason).toBe('cancelled by user');
      expect((await c.job('/arr')).state).toBe('RUNNING');

      go.open();
      const done = await c.waitForState('/arr', 'SUCCEEDED');
      expect(done.taskList.map((t) => t.state).sort()).toEqual(['CANCELLED', 'CANCELLED', 'SUCCEEDED']);
      expect((await c.iris(['jobs'])).stdout).toMatch(/\/arr +\d+ +SUCCEEDED +1\/3 ok, 2 cancelled/);

      // A task that already ended: nothing to cancel, exit 0.
      const last = done.taskList.find((t) => t.state === 'SUCCEEDED')!.index;
      const ended = await c.json<CancelResponse>(['cancel', `arr/task-${last}`]);
      expect(ended).toEqual({ cancelled: [], alreadyEnded: [{ name: `/arr/task-${last}`, state: 'SUCCEEDED' }] });
      const again = await c.iris(['cancel', `arr/task-${last}`]);
      expect(again.code).toBe(0);
      expect(again.stdout.trim()).toBe(`nothing to cancel: /arr/task-${last} already ended (SUCCEEDED)`);
    },
  );

  it('--retry-backoff: a failed task waits, PENDING with the backoff as its reason, before each retry', async () => {
    const starts = path.join(c.cwd, 'starts');
    const flaky = c.script('flaky.sh', `date +%s%N >> '${starts}'\nexit 1`);
    await c.submit(
      ['--name', 'flaky', '--cpu', '0.1', '--max-retries', '2', '--retry-backoff', '2s', '--retry-backoff-max', '2s'],
      [flaky],
    );
    const task = await c.waitForTask(
      '/flaky',
      0,
      (t) => t.state === 'PENDING' && t.failures === 1,
      'waiting after its first failure',
    );
    expect(task.reason).toMatch(/^retrying after exit 1; retry 1\/2 in [12]s \(backoff\)$/);
    // `iris queue` lists it too (after the jobs a pass considers), with the same reason.
    const queued = (await c.client.queue()).jobs.find((j) => j.job === '/flaky');
    expect(queued).toMatchObject({ pendingTasks: 1, reservedStart: null });
    expect(queued!.reason).toMatch(/^retry 1\/2 in [12]s \(backoff\)$/);
    const job = await c.job('/flaky');
    expect(job.reason).toMatch(/^retry 1\/2 in [12]s \(backoff\)$/);
    expect((await c.iris(['status', 'flaky'])).stdout).toContain('max 2 retries (backoff 2s doubling to 2s)');

    const ended = await c.waitForEnd('/flaky', { timeoutMs: 30_000 });
    expect(ended.state).toBe('FAILED');
    expect(ended.taskList[0]!.attempts).toHaveLength(3);
    const times = readFileSync(starts, 'utf8')
      .trim()
      .split('\n')
      .map((ns) => Number(BigInt(ns) / 1_000_000n));
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(2000);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2000);
  });

  it('a bad --retry-backoff is refused naming the flag', async () => {
    const bad = await c.iris(['submit', '--name', 'bad', '--retry-backoff', 'soon', '--', 'true']);
    expect(bad.code, describeRun(['submit'], bad)).toBe(2);
    expect(bad.stderr).toContain('--retry-backoff soon: not a duration');
    expect(bad.stderr).not.toContain('retryBackoff');
    const zero = await c.iris(['submit', '--name', 'bad', '--retry-backoff', '0s', '--', 'true']);
    expect(zero.code, describeRun(['submit'], zero)).toBe(2);
    expect(zero.stderr).toContain('--retry-backoff 0s: must be longer than 0');
    const max = await c.iris(['submit', '--name', 'bad', '--retry-backoff-max', '5s', '--', 'true']);
    expect(max.code, describeRun(['submit'], max)).toBe(2);
    expect(max.stderr).toContain('--retry-backoff-max 5s: a cap without a retry backoff');
    expect(max.stderr).toContain('Hint: give --retry-backoff too');
    expect(max.stderr).not.toContain('retryBackoff');
  });
});
