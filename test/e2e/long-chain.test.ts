/**
 * E2E: a long chain of stages on the built binary (issue 36, "chains in linear time"). A pipeline
 * file of 2,000 stages, each needing the one before (`needs: [sN-1]`), with a body over the 1 MiB
 * of an ordinary request, is admitted by `iris submit -f`; cancelling its head fails every stage
 * behind it (`dependency … failed`); `iris retry HEAD --downstream` gives all 2,000 a new run, each
 * waiting again on the one before; and the chain then runs in order. A stage `keep`, outside the
 * chain and held at a gate, keeps the pipeline's root waiting, so its stages can be retried (a
 * stage of a pipeline that has ended cannot).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSummary } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const N = 2_000;
/** Makes each stage's part of the request ~700 bytes: 2,000 of them are a 1.4 MB body. */
const PAD = 'x'.repeat(600);

describe(`a chain of ${N} stages submitted with iris submit -f`, () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 4, memory: 8GiB}\n', 60_000);

  it('is admitted whole; cancelling its head reaches every stage; retry --downstream re-queues them all', async () => {
    const head = c.gate('head');
    const keep = c.gate('keep');
    const lines = ['name: chain', 'stages:', '  keep:', `    command: "${keep.hold}"`, '    cpu: 0.1'];
    for (let i = 0; i < N; i++) {
      lines.push(
        `  s${i}:`,
        `    command: "${i === 0 ? head.hold : 'true'}"`,
        '    cpu: 0.1',
        `    env: {PAD: ${PAD}}`,
      );
      if (i > 0) lines.push(`    needs: [s${i - 1}]`);
    }
    const file = path.join(c.cwd, 'chain.yaml');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const submit = await c.iris(['submit', '-f', file], { timeoutMs: 60_000 });
    expect(submit.code, describeRun(['submit', '-f', file], submit)).toBe(0);
    expect(submit.stdout).toContain(`pipeline /chain (run 1): ${N + 1} stage(s) submitted`);

    const stages = (jobs: JobSummary[]) => {
      const byName = new Map(jobs.map((job) => [job.name, job]));
      return Array.from({ length: N }, (_, i) => byName.get(`/chain/s${i}`)!);
    };
    // Every stage is stored, the head running at its gate, each other waiting on the one before.
    const admitted = stages(
      await waitUntil(
        'the head running',
        () => c.jobs(),
        (jobs) => stages(jobs)[0]?.state === 'RUNNING',
        { client: c.client, timeoutMs: 30_000 },
      ),
    );
    const notWaiting = admitted
      .slice(2)
      .filter((job, k) => job.state !== 'PENDING' || job.reason !== `waiting for /chain/s${k + 1} (PENDING)`);
    expect(notWaiting.slice(0, 3)).toEqual([]);
    expect(admitted[1]!.reason).toBe('waiting for /chain/s0 (RUNNING)');

    // Cancel the head: each stage behind it fails because of the one before it.
    const cancel = await c.iris(['cancel', 'chain/s0']);
    expect(cancel.code, describeRun(['cancel', 'chain/s0'], cancel)).toBe(0);
    const failed = stages(
      await waitUntil(
        'every stage ended',
        () => c.jobs(),
        (jobs) => stages(jobs).every((job) => job.state !== 'PENDING' && job.state !== 'RUNNING'),
        { client: c.client, timeoutMs: 30_000 },
      ),
    );
    expect(failed[0]!.state).toBe('KILLED');
    expect(failed[1]).toMatchObject({ state: 'FAILED', reason: 'dependency /chain/s0 ended KILLED' });
    const wrong = failed
      .slice(2)
      .filter((job, k) => job.state !== 'FAILED' || job.reason !== `dependency /chain/s${k + 1} failed`);
    expect(wrong.slice(0, 3)).toEqual([]);
    expect((await c.job('/chain')).state).toBe('RUNNING');

    // Retry the head with everything its end cascaded to: 2,000 new runs, waiting in order again.
    const retried = await c.json<{ retried: { name: string; run: number }[] }>(['retry', 'chain/s0', '--downstream'], {
      timeoutMs: 60_000,
    });
    expect(retried.retried.map((r) => r.name)).toEqual(Array.from({ length: N }, (_, i) => `/chain/s${i}`));
    const again = stages(await c.jobs());
    expect(again.every((job, i) => job.run > failed[i]!.run)).toBe(true);
    const notRequeued = again
      .slice(1)
      .filter((job) => job.state !== 'PENDING' || !job.reason?.startsWith('waiting for /chain/s'));
    expect(notRequeued.slice(0, 3)).toEqual([]);

    // The chain runs in order: the head, then each stage after the one before it.
    head.open();
    const ran = stages(
      await waitUntil(
        'five stages succeeded',
        () => c.jobs(),
        (jobs) => stages(jobs)[4]?.state === 'SUCCEEDED',
        { client: c.client, timeoutMs: 30_000 },
      ),
    );
    for (let i = 1; i < 5; i++) expect(ran[i]!.startedAt!).toBeGreaterThanOrEqual(ran[i - 1]!.finishedAt!);
    keep.open();
    const stop = await c.iris(['cancel', 'chain']);
    expect(stop.code, describeRun(['cancel', 'chain'], stop)).toBe(0);
  }, 240_000);
});
