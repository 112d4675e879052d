/**
 * E2E: stage stickiness on the built binary (docs/pipelines.md, "Stickiness"). Two workers w0, w1;
 * train is pinned to w1 by a constraint and publishes `checkpoint`; eval reads it through a
 * reference, so eval sticks to w1 — where first-fit alone would put it on w0. When w1 has no room
 * eval waits with `sticky_worker_busy…` although w0 is free; when w1 is drained eval falls back
 * to w0. Gates, not sleeps.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `workers:
  - {name: w0, cpu: 2, memory: 2GiB, attributes: {host: w0}}
  - {name: w1, cpu: 2, memory: 2GiB, attributes: {host: w1}}
`;

describe('stage stickiness', () => {
  const c = withCluster(CONFIG);
  const pipeline = (name: string, text: string) => {
    writeFileSync(path.join(c.cwd, `${name}.yaml`), text);
    return `${name}.yaml`;
  };
  const workerOf = async (job: string) => (await c.json<JobDetail>(['status', job])).taskList[0]!.workerId;

  it('eval runs on the worker train ran on, not the first free one', async () => {
    const file = pipeline(
      'a',
      `name: a
stages:
  train:
    cpu: 0.5
    constraints: [host=w1]
    command: iris result set checkpoint /ckpt/a
  eval:
    needs: [train]
    cpu: 0.5
    command: echo "loading \${stages.train.result.checkpoint}"
`,
    );
    const run = await c.iris(['run', '-f', file]);
    expect(run.code, describeRun(['run', '-f', file], run)).toBe(0);
    expect(run.stdout).toContain('loading /ckpt/a');
    expect(await workerOf('/a/train')).toBe('w1');
    expect(await workerOf('/a/eval')).toBe('w1');
    // The rule was applied at submit and is shown with the stage.
    expect((await c.json<JobDetail>(['status', '/a/eval'])).stage?.stickTo).toBe('train');
    expect((await c.json<JobDetail>(['status', '/a/train'])).stage?.stickTo).toBeUndefined();
  });

  it('when that worker is busy eval waits with sticky_worker_busy, then runs there', async () => {
    const train = c.gate('b-train');
    const filler = c.gate('b-filler');
    const file = pipeline(
      'b',
      `name: b
stages:
  train:
    cpu: 0.5
    constraints: [host=w1]
    command: iris result set checkpoint /ckpt/b && ${train.hold}
  eval:
    needs: [train]
    cpu: 1.5
    command: echo "loading \${stages.train.result.checkpoint}"
`,
    );
    const submit = await c.iris(['submit', '-f', file]);
    expect(submit.code, describeRun(['submit', '-f', file], submit)).toBe(0);
    await c.waitForState('/b/train', 'RUNNING');
    // w1 keeps 1 CPU of 2 busy: after train, eval (1.5 CPU) fits on w0 but not on w1.
    const fill = await c.submit(
      ['--name', 'filler', '--cpu', '1', '--constraint', 'host=w1'],
      ['sh', '-c', filler.hold],
    );
    await c.waitForState(fill, 'RUNNING');
    train.open();
    await c.waitForState('/b/train', 'SUCCEEDED');
    const waiting = await c.waitForJob(
      '/b/eval',
      (j) => j.state === 'PENDING' && (j.reason ?? '').startsWith('sticky_worker_busy'),
      'sticky_worker_busy',
    );
    // (The queue policy may add when it reserved w1 for eval: `; reserved to start at …`.)
    expect(waiting.reason).toMatch(/^sticky_worker_busy: waiting for worker w1 \(where \/b\/train ran\)/);
    const status = await c.iris(['status', '/b/eval']);
    expect(status.stdout).toContain('sticky_worker_busy: waiting for worker w1 (where /b/train ran)');
    filler.open();
    const done = await c.waitForEnd('/b/eval');
    expect(done.state).toBe('SUCCEEDED');
    expect(await workerOf('/b/eval')).toBe('w1');
    // The wait is one requeue event, however many passes it lasted.
    expect(done.requeues).toMatchObject({
      total: 1,
      byReason: { sticky_worker_busy: 1 },
      recent: [{ task: null, attempt: null }],
    });
    expect(done.requeues!.recent[0]!.detail).toMatch(/^waiting for worker w1 \(where \/b\/train ran\)/);
    const after = await c.iris(['status', '/b/eval']);
    expect(after.stdout).toMatch(/Requeues:\s+1 \(sticky_worker_busy 1\)\n/);
  });

  it('when that worker is drained eval falls back to the other worker', async () => {
    const hold = c.gate('c-hold');
    const file = pipeline(
      'c',
      `name: c
stages:
  train:
    cpu: 0.5
    constraints: [host=w1]
    command: iris result set checkpoint /ckpt/c
  hold:
    cpu: 0.1
    constraints: [host=w0]
    command: ${hold.hold}
  eval:
    needs: [train, hold]
    cpu: 0.5
    command: echo "loading \${stages.train.result.checkpoint}"
`,
    );
    const submit = await c.iris(['submit', '-f', file]);
    expect(submit.code, describeRun(['submit', '-f', file], submit)).toBe(0);
    await c.waitForState('/c/train', 'SUCCEEDED');
    expect(await workerOf('/c/train')).toBe('w1');
    const drain = await c.iris(['workers', 'drain', 'w1']);
    expect(drain.code, describeRun(['workers', 'drain', 'w1'], drain)).toBe(0);
    hold.open();
    const done = await c.waitForEnd('/c/eval');
    expect(done.state).toBe('SUCCEEDED');
    expect(await workerOf('/c/eval')).toBe('w0');
    await c.iris(['workers', 'resume', 'w1']);
  });
});
