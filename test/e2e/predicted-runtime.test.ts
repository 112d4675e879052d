/**
 * E2E: honest start estimates (issue 31 §4). A job with no `--time-limit` is planned with the
 * runtime predicted from the last two successful runs of its name (EASY++), not with the 24 h
 * default limit: `iris queue` and `--dry-run` say which estimate was used, and a job reserved
 * behind it is planned to start minutes from now, not the next day. A job with its own limit is
 * planned with it, and says so. An array's prediction is per task, not the array's span, and a
 * prediction that runs out moves the reservations behind it at once (the loop wakes for it).
 */
import { describe, expect, it } from 'vitest';
import type { EstimateResponse, QueueInfo } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
queue: {policy: conservative}
workers:
  - {name: w0, cpu: 1, memory: 2GiB}
`;

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

describe('runtime predictions in iris queue and submit --dry-run', () => {
  const c = withCluster(CONFIG);

  it('plans a job without a time limit with the mean of its last two runs, and says so', async () => {
    for (let run = 0; run < 2; run++) {
      await c.submit(['--name', 'p', '--cpu', '1'], ['sleep', '1']);
      await c.waitForState('/p', 'SUCCEEDED');
    }
    const hold = c.gate('hold');
    await c.submit(['--name', 'hold', '--cpu', '1', '--time-limit', '3m'], ['sh', '-c', hold.hold]);
    await c.waitForState('/hold', 'RUNNING');

    const dry = await c.json<EstimateResponse>(['submit', '--dry-run', '--name', 'p', '--cpu', '1', '--', 'true']);
    expect(dry.runtime).toMatchObject({ source: 'predicted', runs: 2 });
    const text = await c.iris(['submit', '--dry-run', '--name', 'p', '--cpu', '1', '--', 'true']);
    expect(text.stdout).toMatch(/\n {2}runtime: ~\d+s \(predicted from 2 runs\)\n/);
    // No run of the name yet: the default limit, said as such.
    const fresh = await c.iris(['submit', '--dry-run', '--name', 'fresh', '--cpu', '1', '--', 'true']);
    expect(fresh.stdout).toMatch(/\n {2}runtime: by 1d \(time limit\)\n/);
    const limited = await c.json<EstimateResponse>([
      'submit',
      '--dry-run',
      '--name',
      'p',
      '--time-limit',
      '10m',
      '--',
      'true',
    ]);
    expect(limited.runtime).toEqual({ durationMs: 10 * MIN, source: 'limit', runs: 0 });

    await c.submit(['--name', 'p', '--cpu', '1'], ['sleep', '1']);
    await c.submit(['--name', 'q', '--cpu', '1', '--time-limit', '1h'], ['true']);

    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.jobs.map((j) => j.job)).toEqual(['/p', '/q']);
    const [p, q] = queue.jobs;
    expect(p!.estimate).toMatchObject({ source: 'predicted', runs: 2 });
    expect(p!.estimate!.durationMs).toBeGreaterThanOrEqual(1000);
    expect(p!.estimate!.durationMs).toBeLessThan(MIN);
    // The limit that stops it is still the default.
    expect(p!.timeLimitMs).toBe(DAY);
    expect(q!.estimate).toEqual({ durationMs: 60 * MIN, source: 'limit', runs: 0 });
    // /q is reserved after /hold's 3 minutes and /p's predicted seconds, not after /p's 24 hours.
    const reserved = Date.parse(q!.reservedStart as unknown as string) - Date.now();
    expect(reserved).toBeGreaterThan(MIN);
    expect(reserved).toBeLessThan(5 * MIN);

    const plain = await c.iris(['queue']);
    expect(plain.code, describeRun(['queue'], plain)).toBe(0);
    expect(plain.stdout).toMatch(/ESTIMATE/);
    expect(plain.stdout).toMatch(/\/p .* ~\d+s \(predicted from 2 runs\) .*\(in [23]m\d\ds\)/);
    expect(plain.stdout).toMatch(/\/q .* by 1h00m \(time limit\) .*\(in [234]m\d\ds\)/);
    expect(plain.stdout).not.toMatch(/in (2[0-3]h|1d)/);

    hold.open();
    await c.waitForState('/q', 'SUCCEEDED');
  });
});

describe('runtime predictions: arrays and outlived predictions', () => {
  const c = withCluster(CONFIG);

  it('predicts an array task from its own runtime, not from the span of the whole array', async () => {
    // Five tasks one after another on the one CPU: the array takes over 2.5 s, each task about 0.5 s.
    await c.submit(['--name', 'warr', '--replicas', '5', '--cpu', '1'], ['sleep', '0.5']);
    const done = await c.waitForState('/warr', 'SUCCEEDED');
    const span = new Date(done.finishedAt!).getTime() - new Date(done.startedAt!).getTime();
    expect(span).toBeGreaterThanOrEqual(2500);
    const args = ['submit', '--dry-run', '--name', 'warr', '--replicas', '5', '--cpu', '1', '--', 'true'];
    const dry = await c.json<EstimateResponse>(args);
    expect(dry.runtime).toMatchObject({ source: 'predicted', runs: 1 });
    expect(dry.runtime!.durationMs).toBeGreaterThanOrEqual(500);
    expect(dry.runtime!.durationMs).toBeLessThan(1500);
    const text = await c.iris(args);
    expect(text.stdout).toMatch(/\n {2}runtime: ~(\d{3}ms|1s) \(predicted from 1 run\)\n/);
  });

  it('moves a reservation when the prediction ahead of it runs out, with no other event', async () => {
    await c.submit(['--name', 'p', '--cpu', '1'], ['sleep', '0.5']);
    await c.waitForState('/p', 'SUCCEEDED');
    const hold = c.gate('p');
    await c.submit(['--name', 'p', '--cpu', '1'], ['sh', '-c', hold.hold]);
    await c.waitForState('/p', 'RUNNING');
    await c.submit(['--name', 'q', '--cpu', '1', '--time-limit', '1m'], ['true']);
    const reservedAt = async () => {
      const queue = await c.json<QueueInfo>(['queue']);
      const q = queue.jobs.find((j) => j.job === '/q');
      return q?.reservedStart ? Date.parse(q.reservedStart as unknown as string) : null;
    };
    const first = await waitUntil('/q reserved', reservedAt, (t) => t !== null, { client: c.client });
    // /p outlives its ~0.5 s prediction: the planner doubles it, and /q's reservation (and its reason) moves
    // later, without any submission, exit or cancel to cause the pass.
    const moved = await waitUntil('/q reserved later', reservedAt, (t) => t !== null && t > first!, {
      client: c.client,
      timeoutMs: 8000,
    });
    expect(moved! - first!).toBeGreaterThanOrEqual(400);
    const q = await c.job('/q');
    expect(q.state).toBe('PENDING');
    expect(q.reason).toMatch(/reserved to start at/);
    hold.open();
    await c.waitForState('/q', 'SUCCEEDED');
  });
});
