/**
 * E2E: dependencies between jobs on the built binary (`--after JOB[:ok|:any|:failed]`). A job
 * waits, PENDING with `waiting for /prep (RUNNING)`, until its dependencies are met; a dependency
 * that can no longer be met fails it and its own dependents (the cause shown by `iris status`);
 * an unknown job, the job itself and a cycle are refused at submit; `iris retry --downstream`
 * re-runs a failed job and re-arms the chain its failure cascaded to.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JobDetail, JobSummary } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

describe('dependencies between jobs', () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 8, memory: 4GiB}\n');

  it(
    'afterok, afterany and afternotok: a job waits with its reason, then runs or fails as its condition ' + 'says',
    async () => {
      const gate = c.gate('prep');
      await c.submit(['--name', 'prep', '--cpu', '0.5'], ['sh', '-c', `${gate.hold}; exit 3`]);
      await c.waitForState('/prep', 'RUNNING');
      await c.submit(['--name', 'ok', '--cpu', '0.5', '--after', 'prep'], ['true']);
      await c.submit(['--name', 'any', '--cpu', '0.5', '--after', 'prep:any'], ['true']);
      await c.submit(['--name', 'notok', '--cpu', '0.5', '--after', '/prep:failed'], ['true']);

      // Waiting: PENDING with the reason, in `jobs` and `status` alike, and never placed.
      const waiting = await c.json<JobDetail>(['status', 'ok']);
      expect(waiting).toMatchObject({
        state: 'PENDING',
        reason: 'waiting for /prep (RUNNING)',
        after: [{ job: '/prep', condition: 'ok' }],
      });
      expect(waiting.taskList[0]!.attempts).toEqual([]);
      const listed = await c.json<JobSummary[]>(['jobs']);
      expect(listed.find((j) => j.name === '/any')).toMatchObject({
        state: 'PENDING',
        reason: 'waiting for /prep (RUNNING)',
      });
      const text = await c.iris(['status', 'notok']);
      expect(text.stdout).toMatch(/Pending reason:\s+waiting for \/prep \(RUNNING\)/);
      expect(text.stdout).toMatch(/After:\s+\/prep:failed/);
      const dry = await c.iris([
        'submit',
        '--dry-run',
        '--name',
        'later',
        '--cpu',
        '0.5',
        '--after',
        'prep',
        '--',
        'true',
      ]);
      expect(dry.code, describeRun(['submit', '--dry-run'], dry)).toBe(0);
      expect(dry.stdout).toContain(
        'first: waiting for /prep (RUNNING) (the time above assumes its dependencies are met now)',
      );

      gate.open();
      await c.waitForState('/prep', 'FAILED');
      expect(await c.waitForState('/any', 'SUCCEEDED')).toMatchObject({ state: 'SUCCEEDED' });
      expect(await c.waitForState('/notok', 'SUCCEEDED')).toMatchObject({ state: 'SUCCEEDED' });
      const failed = await c.waitForState('/ok', 'FAILED');
      expect(failed).toMatchObject({
        reason: 'dependency /prep failed',
        cause: { kind: 'dependency_failure', parent: '/prep' },
      });
      expect(failed.taskList[0]!.attempts).toEqual([]);
    },
  );

  it('a failure cascades three levels deep, each job showing its cause', async () => {
    const gate = c.gate('a');
    await c.submit(['--name', 'a', '--cpu', '0.5'], ['sh', '-c', `${gate.hold}; exit 1`]);
    await c.submit(['--name', 'b', '--cpu', '0.5', '--after', 'a'], ['true']);
    await c.submit(['--name', 'c', '--cpu', '0.5', '--after', 'b'], ['true']);
    await c.submit(['--name', 'd', '--cpu', '0.5', '--after', 'c'], ['true']);
    expect((await c.job('/d')).reason).toBe('waiting for /c (PENDING)');
    gate.open();
    await c.waitForState('/a', 'FAILED');
    for (const [job, parent] of [
      ['/b', '/a'],
      ['/c', '/b'],
      ['/d', '/c'],
    ] as const) {
      const detail = await c.waitForState(job, 'FAILED');
      expect(detail).toMatchObject({
        reason: `dependency ${parent} failed`,
        cause: { kind: 'dependency_failure', parent },
      });
    }
    const shown = await c.iris(['status', 'd']);
    expect(shown.stdout).toMatch(/Reason:\s+dependency \/c failed/);
    expect(shown.stdout).toMatch(/Cause:\s+dependency_failure \(parent: \/c\)/);
  });

  it(
    'retry --downstream runs a failed job again and puts the jobs its failure cascaded to back to waiting on ' + 'it',
    async () => {
      const flag = `${c.cwd}/fail-once`;
      const gate = c.gate('load');
      // Fails while the flag file is missing: the first run fails, the retried one succeeds.
      await c.submit(['--name', 'load', '--cpu', '0.5'], ['sh', '-c', `${gate.hold}; test -f '${flag}'`]);
      await c.submit(['--name', 'fit', '--cpu', '0.5', '--after', 'load'], ['true']);
      await c.submit(['--name', 'score', '--cpu', '0.5', '--after', 'fit'], ['true']);
      gate.open();
      await c.waitForState('/load', 'FAILED');
      const failedFit = await c.waitForState('/fit', 'FAILED');
      await c.waitForState('/score', 'FAILED');

      const notEnded = await c.iris(['retry', 'nope']);
      expect(notEnded.code, describeRun(['retry', 'nope'], notEnded)).toBe(3);

      writeFileSync(flag, '');
      const retried = await c.json<{ retried: { name: string; run: number }[] }>(['retry', 'load', '--downstream']);
      expect(retried.retried.map((r) => r.name)).toEqual(['/load', '/fit', '/score']);
      expect(retried.retried[1]!.run).toBeGreaterThan(failedFit.run);
      for (const job of ['/load', '/fit', '/score']) await c.waitForState(job, 'SUCCEEDED');
      // The failed runs are kept.
      const old = await c.json<JobDetail>(['status', `fit@${failedFit.run}`]);
      expect(old).toMatchObject({ state: 'FAILED', reason: 'dependency /load failed' });

      const again = await c.iris(['retry', 'load']);
      expect(again.code, describeRun(['retry', 'load'], again)).toBe(4);
      expect(again.stderr).toContain('job /load succeeded');
    },
  );

  it('refuses an unknown job, the job itself, a dependency already failed and a cycle, naming it', async () => {
    const unknown = await c.iris(['submit', '--name', 'u', '--after', 'nope', '--', 'true']);
    expect(unknown.code, describeRun(['submit'], unknown)).toBe(3);
    expect(unknown.stderr).toContain('--after: no job /nope');

    const self = await c.iris(['submit', '--name', 's', '--after', 's', '--', 'true']);
    expect(self.code, describeRun(['submit'], self)).toBe(2);
    expect(self.stderr).toContain('cannot run after itself');

    await c.submit(['--name', 'x', '--cpu', '0.5'], ['true']);
    await c.waitForState('/x', 'SUCCEEDED');
    const never = await c.iris(['submit', '--name', 'y', '--after', 'x:failed', '--', 'true']);
    expect(never.code, describeRun(['submit'], never)).toBe(4);
    expect(never.stderr).toContain('/y can never start: dependency /x succeeded');

    // /z runs after /x; /x submitted again after /z would close a cycle.
    const gate = c.gate('z');
    await c.submit(['--name', 'z', '--cpu', '0.5', '--after', 'x:any'], ['sh', '-c', gate.hold]);
    const cycle = await c.iris(['submit', '--name', 'x', '--after', 'z', '--', 'true']);
    expect(cycle.code, describeRun(['submit'], cycle)).toBe(2);
    expect(cycle.stderr).toContain('--after: would close a cycle: /x -> /z -> /x');
    gate.open();
    await c.waitForState('/z', 'SUCCEEDED');
  });
});
