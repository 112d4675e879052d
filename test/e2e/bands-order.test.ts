/**
 * E2E: the queue orders band first (issue 32 §1), and `iris update JOB --priority BAND` changes a
 * pending or running job's band by the rules of a submission, bringing its live descendants down
 * with it, and the queue takes the new order at once. Process runtime; one 1-CPU worker, so a
 * job holding it keeps the others pending. The jobs holding the worker are in the default band
 * or production, so no pending job could preempt them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail, QueueInfo, UpdateResponse } from '../../src/api/types.js';
import { ROOT, describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 1, memory: 2GiB}
`;

describe('bands: queue order and iris update', () => {
  const c = withCluster(CONFIG);

  const queueJobs = async () => (await c.json<QueueInfo>(['queue'])).jobs.map((j) => [j.job, j.band, j.position]);
  const startOf = async (name: string) => (await c.job(name)).taskList[0]!.startedAt!;

  it('interactive submitted after batch starts first when the worker frees; iris queue shows BAND', async () => {
    const gate = c.gate('hold');
    try {
      const hold = await c.submit(['--name', 'hold', '--cpu', '1'], ['sh', '-c', gate.hold]);
      await c.waitForState(hold, 'RUNNING');
      const batch = await c.submit(['--name', 'later-batch', '--cpu', '1', '--priority', 'batch'], ['true']);
      const interactive = await c.submit(['--name', 'later-inter', '--cpu', '1'], ['true']);
      expect(await queueJobs()).toEqual([
        ['/later-inter', 'interactive', 1],
        ['/later-batch', 'batch', 2],
      ]);
      const text = await c.iris(['queue']);
      expect(text.code, describeRun(['queue'], text)).toBe(0);
      expect(text.stdout).toMatch(/\bBAND\b/);
      expect(text.stdout).toMatch(/^\s*1\s.*later-inter.*\binteractive\b/m);
      expect(text.stdout).toMatch(/^\s*2\s.*later-batch.*\bbatch\b/m);
    } finally {
      gate.open();
    }
    for (const name of ['/hold', '/later-batch', '/later-inter'])
      expect((await c.waitForEnd(name)).state).toBe('SUCCEEDED');
    expect(await startOf('/later-inter')).toBeLessThan(await startOf('/later-batch'));
  });

  it('a pending job raised to production moves to position 1 of the queue at once', async () => {
    const gate = c.gate('hold2');
    try {
      // The holder is production: nothing pending may preempt it.
      const hold = await c.submit(
        ['--name', 'hold2', '--cpu', '1', '--priority', 'production'],
        ['sh', '-c', gate.hold],
      );
      await c.waitForState(hold, 'RUNNING');
      const first = await c.submit(['--name', 'first', '--cpu', '1'], ['true']);
      const second = await c.submit(['--name', 'second', '--cpu', '1'], ['true']);
      expect((await queueJobs()).map(([job]) => job)).toEqual([first, second]);
      const args = ['update', second, '--priority', 'production'];
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stdout).toContain('/second: band interactive -> production');
      expect(await queueJobs()).toEqual([
        ['/second', 'production', 1],
        ['/first', 'interactive', 2],
      ]);
    } finally {
      gate.open();
    }
    for (const name of ['/hold2', '/first', '/second']) expect((await c.waitForEnd(name)).state).toBe('SUCCEEDED');
    expect(await startOf('/second')).toBeLessThan(await startOf('/first'));
  });

  it('lowering a running parent to batch brings its live child down; refusals exit 4, 3, 2', async () => {
    const gate = c.gate('tree');
    try {
      const kid = c.script('update-kid.sh', gate.hold);
      const parent = c.script(
        'update-parent.sh',
        // After the update (the gate), a new child inherits the band the task's job has now.
        `iris submit --name kid --cpu 0.2 -- sh '${kid}' || exit 1\n${gate.hold}\n` +
          'iris submit --name after --cpu 0.1 -- true || exit 1',
      );
      const top = await c.submit(['--name', 'top', '--cpu', '0.2'], ['sh', parent]);
      await c.waitForState('/top/kid', 'RUNNING');
      expect((await c.job('/top/kid')).band).toBe('interactive');

      const lower = ['update', top, '--priority', 'batch'];
      const r = await c.iris(lower);
      expect(r.code, describeRun(lower, r)).toBe(0);
      expect(r.stdout).toContain('/top: band interactive -> batch');
      expect(r.stdout).toContain('also moved to batch: /top/kid');
      for (const name of [top, '/top/kid']) expect((await c.job(name)).band).toBe('batch');
      // The same again changes nothing; --json says so.
      const again = await c.json<UpdateResponse>(lower);
      expect(again).toEqual({ name: '/top', previous: 'batch', band: 'batch', changed: [] });

      const raise = ['update', '/top/kid', '--priority', 'interactive'];
      const refused = await c.iris(raise);
      expect(refused.code, describeRun(raise, refused)).toBe(4);
      expect(refused.stderr).toContain('than its parent /top (batch)');
      expect((await c.job('/top/kid')).band).toBe('batch');

      // Raising the parent leaves the child where it is; --json lists what changed.
      const up = await c.json<UpdateResponse>(['update', top, '--priority', 'interactive']);
      expect(up).toEqual({ name: '/top', previous: 'batch', band: 'interactive', changed: ['/top'] });
      expect((await c.job('/top/kid')).band).toBe('batch');
      // Lowering it again lists the job first, then the descendant it brought down.
      const kidUp = await c.json<UpdateResponse>(['update', '/top/kid', '--priority', 'interactive']);
      expect(kidUp.changed).toEqual(['/top/kid']);
      const down = await c.json<UpdateResponse>(lower);
      expect(down).toEqual({ name: '/top', previous: 'interactive', band: 'batch', changed: ['/top', '/top/kid'] });
    } finally {
      gate.open();
    }
    await c.waitForEnd('/top/kid');
    const ended = await c.waitForEnd('/top');
    expect(ended.state).toBe('SUCCEEDED');
    expect((await c.waitForEnd('/top/after')).band).toBe('batch');
    const late = ['update', '/top', '--priority', 'interactive'];
    const endedRefused = await c.iris(late);
    expect(endedRefused.code, describeRun(late, endedRefused)).toBe(4);
    expect(endedRefused.stderr).toContain('has ended');

    const unknown = ['update', '/no-such-job', '--priority', 'batch'];
    const missing = await c.iris(unknown);
    expect(missing.code, describeRun(unknown, missing)).toBe(3);
    const bad = ['update', '/top', '--priority', 'urgent'];
    const badBand = await c.iris(bad);
    expect(badBand.code, describeRun(bad, badBand)).toBe(2);
    const detail: JobDetail = await c.job('/top');
    expect(detail.band).toBe('batch');
  });

  it('the examples of `iris update --help` run on live jobs of their names', async () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { examples?: string[] }>;
    };
    const examples = (manifest.commands.update?.examples ?? []).map((e) => e.replace('<%= config.bin %> ', ''));
    expect(examples.length).toBeGreaterThan(0);
    const gate = c.gate('examples');
    try {
      for (const name of ['sweep', 'eval']) await c.submit(['--name', name, '--cpu', '0.1'], ['sh', '-c', gate.hold]);
      for (const example of examples) {
        const argv = example.split(' ');
        const r = await c.iris(argv);
        expect(r.code, describeRun(argv, r)).toBe(0);
      }
    } finally {
      gate.open();
    }
  });
});
