/**
 * E2E: the queue policy of a real cluster as a user sees it — `iris queue` lists pending jobs
 * in scheduling order with the reserved start the easy policy computed from the time limits of
 * running jobs, `iris submit --dry-run` says when a job would start without submitting it, and a
 * `queue: {policy: fcfs}` config stops the queue at the first blocked job, and a conservative
 * queue holds no more reservations than `max-reservation-depth`.
 */
import { describe, expect, it } from 'vitest';
import type { EstimateResponse, JobDetail, QueueInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';
import { joined } from '../helpers/regex.js';

const WORKERS = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB, attributes: {pool: a}}
  - {name: w1, cpu: 1.5, memory: 2GiB, attributes: {pool: b}}
`;

const MIN = 60_000;
const startOf = (job: JobDetail): number => job.taskList[0]!.attempts[0]!.startedAt;

describe('iris queue and submit --dry-run (default policy: easy)', () => {
  const c = withCluster(WORKERS);

  it(
    'reserves the blocked job at the end of the running time limit, backfills a job that does not delay it, and ' +
      'estimates without submitting',
    async () => {
      const hold = c.gate('hold');
      const side = c.gate('side');
      await c.submit(['--name', 'hold', '-c', 'pool=a', '--cpu', '2', '--time-limit', '10m'], ['sh', '-c', hold.hold]);
      const running = await c.waitForState('/hold', 'RUNNING');
      await c.submit(['--name', 'big', '--cpu', '2', '--time-limit', '5m'], ['true']);
      await c.submit(['--name', 'side', '--cpu', '1', '--time-limit', '1m'], ['sh', '-c', side.hold]);
      // /side fits on w1 now and cannot delay /big (which only fits on w0): it starts at once.
      await c.waitForState('/side', 'RUNNING');

      const queue = await c.json<QueueInfo>(['queue']);
      expect(queue.policy).toBe('easy');
      expect(queue.jobs.map((j) => j.job)).toEqual(['/big']);
      const reservedAt = startOf(running) + 10 * MIN;
      // --json prints instants as ISO 8601 strings (docs/cli.md, "Time style").
      const iso = (ms: number): string => new Date(ms).toISOString();
      expect(queue.jobs[0]).toMatchObject({
        position: 1,
        pendingTasks: 1,
        timeLimitMs: 5 * MIN,
        reservedStart: iso(reservedAt),
      });
      // Both workers are named: w1 is too small for /big at all, w0 has no CPU free now.
      expect(queue.jobs[0]!.reason).toMatch(
        joined(
          /^no worker fits: 1 too little CPU \(need 2, largest [\d.]+\), 1 too l/,
          /ittle free CPU \(need 2, largest free [\d.]+\); reserved to start at /,
        ),
      );
      expect(queue.jobs[0]!.reason!.endsWith(`reserved to start at ${new Date(reservedAt).toISOString()}`)).toBe(true);

      const plain = await c.iris(['queue']);
      expect(plain.code, describeRun(['queue'], plain)).toBe(0);
      expect(plain.stdout).toMatch(/policy easy, queue depth 32/);
      expect(plain.stdout).toMatch(/RESERVED START/);
      expect(plain.stdout).toMatch(/\/big .* 5m00s .*\(in (9m5\ds|10m00s)\)/);

      // Behind /big: it cannot start before /big's reservation has run its 5 minutes.
      const later = await c.json<EstimateResponse>([
        'submit',
        '--dry-run',
        '--name',
        'probe',
        '--cpu',
        '2',
        '--time-limit',
        '1m',
        '--',
        'true',
      ]);
      expect(later).toMatchObject({ name: '/probe', tasks: 1, policy: 'easy', start: iso(reservedAt + 5 * MIN) });
      expect(later.reason).toMatch(/too little free CPU \(need 2, /);
      const now = await c.json<EstimateResponse>([
        'submit',
        '--dry-run',
        '--cpu',
        '0.5',
        '--time-limit',
        '1m',
        '--',
        'true',
      ]);
      expect(now.start).toBe(now.now);
      const text = await c.iris(['submit', '--dry-run', '--name', 'probe', '--cpu', '2', '--', 'true']);
      expect(text.code, describeRun(['submit', '--dry-run'], text)).toBe(0);
      expect(text.stdout).toMatch(
        joined(
          /^\/probe \(1 task\): would start at (\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d) \(in \d+m\d+s\) /,
          /under policy easy\n  why: no worker fits: .*too little free CPU \(need 2, /,
        ),
      );
      expect(text.stdout).toMatch(/nothing was submitted/);
      expect((await c.jobs()).map((j) => j.name).sort()).toEqual(['/big', '/hold', '/side']);

      // A request no worker could ever take is refused as on a real submit.
      const never = await c.iris(['submit', '--dry-run', '--cpu', '64', '--', 'true']);
      expect(never.code, describeRun(['submit', '--dry-run'], never)).toBe(5);
      expect(never.stderr).toMatch(/the job can never run on this cluster: need 64 CPU, largest worker has 2/);

      hold.open();
      side.open();
      const big = await c.waitForState('/big', 'SUCCEEDED');
      expect(startOf(big)).toBeGreaterThanOrEqual((await c.job('/hold')).taskList[0]!.attempts[0]!.finishedAt!);
      expect((await c.json<QueueInfo>(['queue'])).jobs).toEqual([]);
      expect((await c.iris(['queue'])).stdout).toMatch(/no pending jobs/);
    },
  );
});

describe('a cluster configured with queue policy fcfs', () => {
  const c = withCluster(`${WORKERS}queue: {policy: fcfs}\n`);

  it('does not start a later job that fits while an earlier one is blocked', async () => {
    const hold = c.gate('hold');
    await c.submit(['--name', 'hold', '-c', 'pool=a', '--cpu', '2', '--time-limit', '10m'], ['sh', '-c', hold.hold]);
    await c.waitForState('/hold', 'RUNNING');
    await c.submit(['--name', 'big', '--cpu', '2', '--time-limit', '5m'], ['true']);
    await c.submit(['--name', 'small', '--cpu', '0.5', '--time-limit', '1m'], ['true']);
    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.policy).toBe('fcfs');
    expect(queue.jobs.map((j) => [j.position, j.job])).toEqual([
      [1, '/big'],
      [2, '/small'],
    ]);
    // Still pending after a pass that saw freed resources (a cancel triggers one).
    await c.submit(['--name', 'filler', '--cpu', '0.1'], ['true']);
    expect((await c.iris(['cancel', '/filler'])).code).toBe(0);
    expect((await c.job('/small')).state).toBe('PENDING');
    expect((await c.job('/small')).reason).toMatch(/fcfs|earlier job|blocked/);
    hold.open();
    const small = await c.waitForState('/small', 'SUCCEEDED');
    const big = await c.job('/big');
    expect(startOf(small)).toBeGreaterThanOrEqual(startOf(big));
  });
});

describe('a cluster configured with queue policy conservative and max-reservation-depth 1', () => {
  const c = withCluster(`${WORKERS}queue: {policy: conservative, max-reservation-depth: 1}\n`);

  it('holds one reservation at most: the second blocked job gets none', async () => {
    const hold = c.gate('hold');
    await c.submit(['--name', 'hold', '-c', 'pool=a', '--cpu', '2', '--time-limit', '10m'], ['sh', '-c', hold.hold]);
    await c.waitForState('/hold', 'RUNNING');
    await c.submit(['--name', 'big1', '--cpu', '2', '--time-limit', '5m'], ['true']);
    await c.submit(['--name', 'big2', '--cpu', '2', '--time-limit', '5m'], ['true']);
    await c.waitForJob('/big2', (j) => !!j.reason, 'a pending reason');
    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.policy).toBe('conservative');
    expect(queue.jobs.map((j) => [j.job, j.reservedStart !== null])).toEqual([
      ['/big1', true],
      ['/big2', false],
    ]);
    hold.open();
    await c.waitForState('/big2', 'SUCCEEDED');
  });
});

describe('a cluster with a default time limit', () => {
  const c = withCluster(`${WORKERS}time-limit: 2s\n`);

  it('applies it to a job that gives none: planned with it, and stopped with reason time-limit', async () => {
    const name = await c.submit(['--name', 'endless'], ['sleep', '60']);
    const job = await c.waitForEnd(name, { timeoutMs: 20_000 });
    expect(job.timeoutMs).toBe(2000);
    expect(job.state).toBe('TIMEOUT');
    expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/time-limit/);
    // Its own limit wins over the default.
    const own = await c.submit(['--name', 'own', '--time-limit', '1h'], ['true']);
    expect((await c.waitForState(own, 'SUCCEEDED')).timeoutMs).toBe(3_600_000);
  });
});
