/**
 * E2E (issue 32 §2): quotas that lend and reclaim, on the built binary with the process runtime.
 * - Borrowing: a user past a soft quota on idle capacity runs the extra task, shown as borrowed
 *   (`iris status`, `iris queue --users`); another user's interactive work within its quota
 *   reclaims it by preemption, and the task within the quota keeps running.
 * - A hard quota holds work at the quota, with a pending reason naming it; a task bigger than it
 *   is refused at submit (exit 5).
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, QueueInfo, UserShareInfo } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
preemption: { grace: 1s, exempt: 0s }
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
quotas:
  alice: { cpu: 1 }
  bob: { cpu: 1 }
  carol: { cpu: 1, hard: true }
`;

const BORROWED = "borrowed: beyond alice's cpu quota 1";

describe('quotas lend idle capacity and reclaim it', () => {
  const c = withCluster(CONFIG);

  it("borrows past alice's soft quota, shows it, and bob's interactive job reclaims it by preemption", async () => {
    const hold = c.gate('alice');
    const run = ['sh', '-c', `trap 'exit 0' TERM; ${hold.hold}`];
    await c.submit(['--name', 'a-first', '--user', 'alice', '--cpu', '1', '--memory', '64MiB'], run);
    await c.waitForState('/a-first', 'RUNNING');
    await c.submit(['--name', 'a-second', '--user', 'alice', '--cpu', '1', '--memory', '64MiB'], run);
    await c.waitForState('/a-second', 'RUNNING');

    // The most recently started task is the borrowed one; the first stays within the quota.
    const second = await c.job('/a-second');
    expect(second.taskList[0]!.borrowed).toBe(BORROWED);
    expect((await c.job('/a-first')).taskList[0]!.borrowed).toBeUndefined();
    const status = await c.iris(['status', '/a-second']);
    expect(status.code, describeRun(['status', '/a-second'], status)).toBe(0);
    expect(status.stdout).toContain(BORROWED);
    const task = await c.iris(['status', '/a-second/task-0']);
    expect(task.stdout).toMatch(new RegExp(`Quota:\\s+${BORROWED}`));

    const users = await c.json<UserShareInfo[]>(['queue', '--users']);
    const alice = users.find((u) => u.user === 'alice')!;
    expect(alice).toMatchObject({
      running: { cpu: 2, accelerators: 0 },
      quota: { cpu: 1, memoryBytes: null, accelerators: null, weight: 1, hard: false },
      borrowed: { cpu: 1 },
      borrowedTasks: 1,
    });
    expect(alice.share).toBeCloseTo(1, 5);
    expect(users.find((u) => u.user === 'bob')).toMatchObject({ running: { cpu: 0 }, borrowedTasks: 0, share: 0 });
    const plain = await c.iris(['queue', '--users']);
    expect(plain.code, describeRun(['queue', '--users'], plain)).toBe(0);
    expect(plain.stdout).toMatch(/USER\s+RUNNING\s+QUOTA\s+SHARE\s+BORROWED/);
    expect(plain.stdout).toMatch(/alice\s+2 CPU, 128MiB\s+cpu 1\s+100\.0%\s+1 CPU, 64MiB \(1 task\)/);
    expect(plain.stdout).toMatch(/carol\s+-\s+cpu 1, hard\s+0\.0%\s+-/);
    // The whole queue view carries the users too.
    expect((await c.json<QueueInfo>(['queue'])).users?.map((u) => u.user)).toEqual(['alice', 'bob', 'carol']);

    // Bob, within his quota, submits interactive work: alice's borrowed task is reclaimed.
    await c.submit(['--name', 'bob-job', '--user', 'bob', '--cpu', '1', '--memory', '64MiB'], ['sh', '-c', hold.hold]);
    await c.waitForState('/bob-job', 'RUNNING', { timeoutMs: 30_000 });
    const reclaimed = await waitUntil(
      'the borrowed attempt to end PREEMPTED',
      () => c.job('/a-second'),
      (j: JobDetail) => j.taskList[0]!.attempts[0]?.state === 'PREEMPTED',
      { client: c.client },
    );
    expect(reclaimed.taskList[0]!.attempts[0]!.reason).toBe('preempted by /bob-job (interactive)');
    expect(reclaimed.taskList[0]!.state).toBe('PENDING');
    expect(reclaimed.taskList[0]!.preemptions).toBe(1);
    const first = await c.job('/a-first');
    expect(first.taskList[0]!.state).toBe('RUNNING');
    expect(first.taskList[0]!.attempts).toHaveLength(1);
    // Alice is within her quota again: nothing of hers is borrowed.
    const after = await c.json<UserShareInfo[]>(['queue', '--users']);
    expect(after.find((u) => u.user === 'alice')).toMatchObject({ running: { cpu: 1 }, borrowedTasks: 0 });
    hold.open();
  }, 60_000);
});

describe('a hard quota holds work at the quota', () => {
  const c = withCluster(CONFIG);

  it("starts only what keeps carol within her hard quota; the rest waits with the quota's name", async () => {
    const hold = c.gate('carol');
    await c.submit(
      ['--name', 'sweep', '--user', 'carol', '--replicas', '2', '--cpu', '1', '--memory', '64MiB'],
      ['sh', '-c', hold.hold],
    );
    const held = await waitUntil(
      'one task running, one held at the quota',
      () => c.job('/sweep'),
      (j: JobDetail) => j.taskList.filter((t) => t.state === 'RUNNING').length === 1 && j.reason !== null,
      { client: c.client },
    );
    expect(held.reason).toBe("1 pending: held at carol's hard cpu quota (1 of 1 CPU)");
    expect(held.taskList.map((t) => t.state).sort()).toEqual(['PENDING', 'RUNNING']);
    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.jobs.find((j) => j.job === '/sweep')?.reason).toBe(
      "1 pending: held at carol's hard cpu quota (1 of 1 CPU)",
    );
    // Another user takes the CPU the hold leaves free.
    await c.submit(['--name', 'other', '--user', 'bob', '--cpu', '1', '--memory', '64MiB'], ['true']);
    await c.waitForState('/other', 'SUCCEEDED');

    // A task bigger than the hard quota could never start: refused at submit.
    const args = ['submit', '--name', 'big', '--user', 'carol', '--cpu', '2', '--', 'true'];
    const big = await c.iris(args);
    expect(big.code, describeRun(args, big)).toBe(5);
    expect(big.stderr).toContain("needs 2 CPU, more than carol's hard cpu quota 1");

    // When the running task ends, the held one starts.
    hold.open();
    await c.waitForState('/sweep', 'SUCCEEDED', { timeoutMs: 30_000 });
  }, 60_000);
});
