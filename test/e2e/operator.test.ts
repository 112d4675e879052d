/**
 * E2E: operator basics on the built binary — `iris workers resume` (undrain) after a drain that
 * survived a cluster restart, its errors and exit codes, and `iris cancel` of a job that had
 * already ended ("nothing to cancel", exit 0, reported in --json).
 */
import { describe, expect, it } from 'vitest';
import type { CancelResponse, WorkerInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 2
    memory: 2GiB
`;

describe('operator basics', () => {
  const c = withCluster(CONFIG);

  it(
    'a drain survives a restart, shows in `iris workers`, and `workers resume` puts the worker back to ' + 'work',
    async () => {
      const drain = await c.iris(['workers', 'drain', 'w0']);
      expect(drain.code, describeRun(['workers', 'drain', 'w0'], drain)).toBe(0);
      await c.stop();
      await c.start();
      const listed = await c.iris(['workers']);
      expect(listed.code, describeRun(['workers'], listed)).toBe(0);
      expect(listed.stdout).toMatch(/w0.*DRAINED/);
      expect((await c.json<WorkerInfo[]>(['workers'])).map((w) => [w.id, w.state])).toEqual([['w0', 'DRAINED']]);

      await c.submit(['--name', 'waits', '--cpu', '0.5'], ['true']);
      expect((await c.job('/waits')).state).toBe('PENDING');

      const resumed = await c.json<WorkerInfo>(['workers', 'resume', 'w0']);
      expect([resumed.id, resumed.state]).toEqual(['w0', 'READY']);
      await c.waitForState('/waits', 'SUCCEEDED');
      expect((await c.json<WorkerInfo[]>(['workers']))[0]!.state).toBe('READY');
    },
  );

  it(
    'workers resume of a worker that is not drained exits 4, of an unknown one exits 3, each with a ' + 'hint',
    async () => {
      const ready = await c.iris(['workers', 'resume', 'w0']);
      expect(ready.code, describeRun(['workers', 'resume', 'w0'], ready)).toBe(4);
      expect(ready.stderr).toContain('worker w0 is not drained (it is READY)');
      expect(ready.stderr).toMatch(/only a drained worker can be resumed/);
      const unknown = await c.iris(['workers', 'resume', 'nope']);
      expect(unknown.code, describeRun(['workers', 'resume', 'nope'], unknown)).toBe(3);
      expect(unknown.stderr).toContain('unknown worker nope');
      expect(unknown.stderr).toMatch(/iris workers/);
    },
  );

  it('cancel of a job that already ended says nothing to cancel, exits 0 and leaves its state', async () => {
    await c.submit(['--name', 'done', '--cpu', '0.1'], ['true']);
    await c.waitForState('/done', 'SUCCEEDED');
    const plain = await c.iris(['cancel', 'done']);
    expect(plain.code, describeRun(['cancel', 'done'], plain)).toBe(0);
    expect(plain.stdout.trim()).toBe('nothing to cancel: /done already ended (SUCCEEDED)');
    expect((await c.job('/done')).state).toBe('SUCCEEDED');

    await c.submit(['--name', 'busy', '--cpu', '0.1'], ['sh', '-c', 'sleep 60']);
    await c.waitForState('/busy', 'RUNNING');
    const both = await c.json<CancelResponse>(['cancel', 'done', 'busy']);
    expect(both).toEqual({ cancelled: ['/busy'], alreadyEnded: [{ name: '/done', state: 'SUCCEEDED' }] });
    await c.waitForState('/busy', 'KILLED');
    expect((await c.job('/done')).state).toBe('SUCCEEDED');
  });
});
