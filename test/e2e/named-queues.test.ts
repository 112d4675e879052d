/**
 * E2E: named queues (config `queues:`) on a real cluster — each queue schedules with its own
 * policy over its own workers, a reservation one queue holds on a shared worker is respected by
 * another queue's backfill, `--queue` is checked at submit (unknown name: exit 2 with a
 * did-you-mean; a job no worker of its queue could run: exit 5), a child joins its parent's queue,
 * and the views show and filter by queue.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterInfo, JobDetail, QueueInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: shared, cpu: 2, memory: 2GiB, attributes: {pool: shared}}
  - {name: solo, cpu: 2, memory: 2GiB, attributes: {pool: solo}}
  - {name: wide, cpu: 4, memory: 2GiB, attributes: {pool: wide}}
queues:
  batch: {policy: easy, workers: "pool in (shared,wide)"}
  quick: {policy: first-fit, workers: pool=shared}
  strict: {policy: fcfs, workers: pool=solo}
default-queue: batch
`;

const startOf = (job: JobDetail): number => job.taskList[0]!.attempts[0]!.startedAt;

describe('named queues', () => {
  const c = withCluster(CONFIG);

  it("a reservation queue batch (easy) holds on a shared worker is respected by queue quick's first-fit", async () => {
    const hog = c.gate('hog');
    await c.submit(['--name', 'hog', '--queue', 'quick', '--cpu', '1', '--time-limit', '10m'], ['sh', '-c', hog.hold]);
    const running = await c.waitForState('/hog', 'RUNNING');
    expect(running.queue).toBe('quick');
    // /big (batch) needs the whole shared worker: easy reserves it from /hog's planned end.
    await c.submit(['--name', 'big', '-c', 'pool=shared', '--cpu', '2'], ['true']);
    const big = await c.waitForJob('/big', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
    expect(big.queue).toBe('batch');
    expect(big.reason).toMatch(/^queue batch: .*reserved to start at /);
    // A 1h job of queue quick would fit the free core now, but would delay /big's reservation.
    await c.submit(['--name', 'long', '--queue', 'quick', '--cpu', '1', '--time-limit', '1h'], ['true']);
    const long = await c.waitForJob('/long', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
    expect(long.reason).toMatch(/^queue quick: .*would delay the reservation of \/big \(queue batch\) at /);
    // A short one of queue quick backfills before it.
    await c.submit(['--name', 'short', '--queue', 'quick', '--cpu', '1', '--time-limit', '1m'], ['true']);
    await c.waitForState('/short', 'SUCCEEDED');
    expect((await c.job('/long')).state).toBe('PENDING');
    hog.open();
    const bigDone = await c.waitForState('/big', 'SUCCEEDED');
    const longDone = await c.waitForState('/long', 'SUCCEEDED');
    expect(startOf(longDone)).toBeGreaterThanOrEqual(startOf(bigDone));
  });

  it('queue strict (fcfs) keeps a fit job behind its blocked head; iris queue --queue, cluster status', async () => {
    const s1 = c.gate('s1');
    await c.submit(['--name', 's1', '--queue', 'strict', '--cpu', '1'], ['sh', '-c', s1.hold]);
    await c.waitForState('/s1', 'RUNNING');
    await c.submit(['--name', 's2', '--queue', 'strict', '--cpu', '2'], ['true']);
    await c.waitForState('/s2', 'PENDING');
    // /s3 fits the free core of solo, but fcfs keeps it behind /s2.
    await c.submit(['--name', 's3', '--queue', 'strict', '--cpu', '1'], ['true']);
    const s3 = await c.waitForJob('/s3', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
    expect(s3.reason).toMatch(/^queue strict: /);

    const args = ['queue', '--queue', 'strict', '--json'];
    const listed = await c.iris(args);
    expect(listed.code, describeRun(args, listed)).toBe(0);
    const info = JSON.parse(listed.stdout) as QueueInfo;
    expect(info.jobs.map((j) => j.job)).toEqual(['/s2', '/s3']);
    expect(info.jobs.every((j) => j.queue === 'strict')).toBe(true);
    const plain = await c.iris(['queue', '--queue', 'strict']);
    expect(plain.stdout).toMatch(/queue strict: policy fcfs/);
    expect(plain.stdout).not.toMatch(/queue batch/);

    const cluster = await c.json<ClusterInfo>(['cluster', 'status']);
    const strict = cluster.queues!.find((q) => q.name === 'strict');
    expect(strict).toMatchObject({ policy: 'fcfs', workers: 'pool=solo', workerCount: 1, pending: 2, running: 1 });
    expect(cluster.queues!.map((q) => `${q.name}:${q.default}`)).toEqual(['batch:true', 'quick:false', 'strict:false']);
    const text = await c.iris(['cluster', 'status']);
    expect(text.stdout).toMatch(/strict\s+fcfs\s+1 \(pool=solo\)\s+2\s+1/);

    const metrics = await c.iris(['metrics']);
    expect(metrics.code, describeRun(['metrics'], metrics)).toBe(0);
    expect(metrics.stdout).toMatch(/^iris_queue_tasks\{queue="strict"\} 2$/m);
    expect(metrics.stdout).toMatch(/^iris_queue_tasks\{queue="quick"\} 0$/m);

    s1.open();
    const s2Done = await c.waitForState('/s2', 'SUCCEEDED');
    const s3Done = await c.waitForState('/s3', 'SUCCEEDED');
    expect(startOf(s3Done)).toBeGreaterThanOrEqual(startOf(s2Done));
  });

  it('refuses an unknown queue with the names and a did-you-mean (exit 2)', async () => {
    const args = ['submit', '--queue', 'quik', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(/unknown queue "quik": the queues are batch, quick, strict/);
    expect(r.stderr).toMatch(/did you mean --queue quick\?/);
  });

  it("refuses a job no worker of its queue could ever run (exit 5), though another queue's could", async () => {
    const args = ['submit', '--queue', 'strict', '--cpu', '3', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(5);
    expect(r.stderr).toMatch(/can never run in queue strict \(workers pool=solo\)/);
    await c.submit(['--name', 'wide3', '--cpu', '3'], ['true']);
    await c.waitForState('/wide3', 'SUCCEEDED');
  });

  it("a child joins its parent's queue unless it names another; status shows it, a restart keeps it", async () => {
    const parent = c.script(
      'parent.sh',
      'iris submit --name kid -- true || exit 1\niris submit --name other --queue batch -- true || exit 1\n' +
        'iris wait "$IRIS_JOB_ID/kid" "$IRIS_JOB_ID/other"',
    );
    await c.submit(['--name', 'par', '--queue', 'strict', '--cpu', '0.5'], ['sh', parent]);
    await c.waitForState('/par', 'SUCCEEDED');
    expect((await c.job('/par/kid')).queue).toBe('strict');
    expect((await c.job('/par/other')).queue).toBe('batch');
    const status = await c.iris(['status', '/par/kid']);
    expect(status.stdout).toMatch(/Queue:\s+strict/);
    // The queue is stored with the job: a restarted cluster still knows it.
    await c.stop();
    await c.start();
    expect((await c.job('/par/kid')).queue).toBe('strict');
  });
});
