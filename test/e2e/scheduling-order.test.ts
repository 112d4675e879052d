/**
 * E2E: queue order on a real cluster — depth-first progress (a child of an older tree before a
 * newer root), no head-of-line blocking (with the pending reason shown), and per-user quotas
 * (pending limit refused with numbers; a user at a running limit moved behind others).
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';
import { joined } from '../helpers/regex.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: solo, cpu: 1, memory: 2GiB, attributes: {pool: solo}}
  - {name: small, cpu: 2, memory: 2GiB, attributes: {pool: small}}
  - {name: big, cpu: 4, memory: 4GiB, attributes: {pool: big}}
quotas:
  limited: {pending-tasks: 3}
  capped: {cpu: 1}
`;

const startOf = (job: JobDetail): number => job.taskList[0]!.attempts[0]!.startedAt;

describe('scheduling order', () => {
  const c = withCluster(CONFIG);

  it('depth-first: a child of an older tree starts before a newer root on a 1-cpu worker', async () => {
    const blk = c.gate('blk');
    const goKid = c.gate('go-kid');
    await c.submit(['--name', 'blk', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', blk.hold]);
    await c.waitForState('/blk', 'RUNNING');
    const old = c.script(
      'old.sh',
      `${goKid.hold}\niris submit --name kid -c pool=solo --cpu 1 -- sh -c 'echo kid-ran' || exit 1\niris logs -f ` +
        `"$IRIS_JOB_ID/kid" > /dev/null`,
    );
    await c.submit(['--name', 'old', '-c', 'pool=big', '--cpu', '0.5'], ['sh', old]);
    await c.waitForState('/old', 'RUNNING');
    // /new is submitted (as a root) before /old/kid exists, so a FIFO queue would run it first.
    await c.submit(['--name', 'new', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', 'echo new-ran']);
    const pendingNew = await c.waitForState('/new', 'PENDING');
    goKid.open();
    await c.waitForState('/old/kid', 'PENDING');
    expect(pendingNew.submittedAt).toBeLessThan((await c.job('/old/kid')).submittedAt);
    blk.open();
    const kid = await c.waitForState('/old/kid', 'SUCCEEDED');
    const fresh = await c.waitForState('/new', 'SUCCEEDED');
    expect(startOf(kid)).toBeLessThanOrEqual(startOf(fresh));
    expect(fresh.taskList[0]!.attempts[0]!.startedAt).toBeGreaterThanOrEqual(kid.taskList[0]!.attempts[0]!.finishedAt!);
    await c.waitForState('/old', 'SUCCEEDED');
  });

  it(
    'no head-of-line blocking: behind a blocked job, a job that ends before its reservation starts now; a longer ' +
      'one waits and says why',
    async () => {
      const hog = c.gate('hog');
      await c.submit(
        ['--name', 'hog', '-c', 'pool=small', '--cpu', '1', '--time-limit', '10m'],
        ['sh', '-c', hog.hold],
      );
      await c.waitForState('/hog', 'RUNNING');
      await c.submit(['--name', 'bigjob', '-c', 'pool=small', '--cpu', '2'], ['true']);
      const big = await c.waitForJob('/bigjob', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
      // The workers outside pool=small are named too, not hidden behind the CPU shortfall.
      expect(big.reason).toMatch(
        joined(
          /^no worker fits: 2 excluded by constraint pool=small, 1 too li/,
          /ttle free CPU \(need 2, largest free 1\); reserved to start at /,
        ),
      );
      await c.submit(['--name', 'smalljob', '-c', 'pool=small', '--cpu', '1', '--time-limit', '1m'], ['true']);
      await c.waitForState('/smalljob', 'SUCCEEDED');
      expect((await c.job('/bigjob')).state).toBe('PENDING');
      await c.submit(['--name', 'longjob', '-c', 'pool=small', '--cpu', '1', '--time-limit', '1h'], ['true']);
      const long = await c.waitForJob('/longjob', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
      expect(long.reason).toMatch(/starting now would delay the reservation of \/bigjob at /);

      const status = await c.iris(['status', 'bigjob']);
      expect(status.code, describeRun(['status', 'bigjob'], status)).toBe(0);
      expect(status.stdout).toMatch(/PENDING/);
      expect(status.stdout).toMatch(
        /2 excluded by constraint pool=small, 1 too little free CPU \(need 2, largest free 1\)/,
      );
      const jobs = await c.iris(['jobs']);
      expect(jobs.stdout).toMatch(/bigjob.*PENDING|PENDING.*bigjob/);

      hog.open();
      const bigDone = await c.waitForState('/bigjob', 'SUCCEEDED');
      const longDone = await c.waitForState('/longjob', 'SUCCEEDED');
      expect(startOf(longDone)).toBeGreaterThanOrEqual(startOf(bigDone));
    },
  );

  it('refuses a submission above the pending-task quota with the numbers', async () => {
    const args = ['submit', '--user', 'limited', '--cpu', '0.1', '--replicas', '4', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(4);
    expect(r.stderr).toMatch(/user limited has 0 pending tasks, this job adds 4, limit is 3/);

    const solo = c.gate('quota-solo');
    await c.submit(['--name', 'qblk', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', solo.hold]);
    await c.waitForState('/qblk', 'RUNNING');
    await c.submit(['--name', 'q3', '--user', 'limited', '-c', 'pool=solo', '--replicas', '3'], ['true']);
    await c.waitForState('/q3', 'PENDING');
    const more = ['submit', '--user', 'limited', '-c', 'pool=solo', '--', 'true'];
    const refused = await c.iris(more);
    expect(refused.code, describeRun(more, refused)).toBe(4);
    expect(refused.stderr).toMatch(/user limited has 3 pending tasks, this job adds 1, limit is 3/);
    // Other users are not limited.
    await c.submit(['--name', 'q-other', '--user', 'someone', '-c', 'pool=solo'], ['true']);
    solo.open();
    await c.waitForState('/q3', 'SUCCEEDED');
    await c.waitForState('/q-other', 'SUCCEEDED');
  });

  it('a user at a running-CPU quota is moved behind other users', async () => {
    const cap = c.gate('cap');
    const blk = c.gate('blk3');
    await c.submit(['--name', 'cap-a', '--user', 'capped', '-c', 'pool=big', '--cpu', '1'], ['sh', '-c', cap.hold]);
    await c.waitForState('/cap-a', 'RUNNING');
    await c.submit(['--name', 'blk3', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', blk.hold]);
    await c.waitForState('/blk3', 'RUNNING');
    await c.submit(['--name', 'cap-b', '--user', 'capped', '-c', 'pool=solo', '--cpu', '1'], ['true']);
    await c.submit(['--name', 'other-b', '--user', 'other', '-c', 'pool=solo', '--cpu', '1'], ['true']);
    await c.waitForState('/other-b', 'PENDING');
    blk.open();
    const other = await c.waitForState('/other-b', 'SUCCEEDED');
    cap.open();
    const capped = await c.waitForState('/cap-b', 'SUCCEEDED');
    expect(startOf(other)).toBeLessThanOrEqual(startOf(capped));
    expect(capped.submittedAt).toBeLessThan(other.submittedAt);
  });
});
