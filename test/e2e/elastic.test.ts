/**
 * E2E: disabled workers on the built binary (docs/cli.md, "Disabling workers"; docs/configuration.md,
 * "Elastic workers"). With short durations the elastic coordinator disables an idle worker, and
 * submitting work re-enables it and the job runs there; a manual disable/enable round trip shows
 * who and why in `iris workers` and `iris status`, keeps running tasks going, and survives a
 * restart; errors exit 3 and 4 with hints; one cluster.log line per toggle.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkerInfo } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
workers:
  - name: big
    cpu: 2
    memory: 1GiB
  - name: small
    cpu: 1
    memory: 1GiB
elastic:
  enabled: true
  idle-disable: 1s
  poll: 200ms
  cooldown: 1s
  min-active: 1
`;

describe('elastic workers', () => {
  const c = withCluster(CONFIG);

  const workers = () => c.json<WorkerInfo[]>(['workers']);
  const stateOf = async (id: string) => (await workers()).find((w) => w.id === id)!;

  it('an idle worker is disabled by the coordinator; work that needs it re-enables it and runs there', async () => {
    // Equal cost and idle time: by name, big goes first; min-active 1 keeps the other.
    const off = await waitUntil(
      'big disabled',
      () => stateOf('big'),
      (w) => w.state === 'DISABLED',
      { client: c.client },
    );
    expect(off.disabled).toMatchObject({ by: 'elastic', reason: 'idle 1s' });
    // --json prints instants in ISO
    expect(String(off.disabled!.disabledAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await stateOf('small')).state).toBe('READY');
    const listed = await c.iris(['workers']);
    expect(listed.code, describeRun(['workers'], listed)).toBe(0);
    expect(listed.stdout).toMatch(/big\s+DISABLED/);
    expect(listed.stdout).toMatch(
      /Disabled workers \(1\)[^\n]*\n\s*WORKER\s+BY\s+WHY\s+SINCE\s+TASKS\n\s*big\s+elastic\s+idle 1s\s+\S+ ago\s+0/,
    );

    // 2 CPUs fit only on big: it queues, the coordinator enables big, the pass places it.
    await c.submit(['--name', 'needs-big', '--cpu', '2', '--memory', '100MiB'], ['true']);
    const done = await c.waitForState('/needs-big', 'SUCCEEDED');
    expect(done.taskList[0]!.workerId).toBe('big');
    const log = readFileSync(path.join(c.home, 'cluster.log'), 'utf8');
    expect(log).toMatch(/elastic: disabled worker big \(idle for \S+, queue 0 <= queue-max 0\)/);
    expect(log).toMatch(/elastic: enabled worker big \(queue 1 > enable-threshold 0\)/);
  });

  it(
    'a manual disable keeps running tasks going, blocks new ones with the reason, is kept by the coordinator and ' +
      'survives a restart',
    async () => {
      await c.submit(['--name', 'long', '--cpu', '1', '--memory', '100MiB'], ['sh', '-c', 'sleep 2']);
      const running = await c.waitForState('/long', 'RUNNING');
      const where = running.taskList[0]!.workerId!;
      const disabled = await c.json<WorkerInfo>(['workers', 'disable', where, '--reason', 'disk check']);
      expect([disabled.id, disabled.state, disabled.disabled?.by, disabled.disabled?.reason]).toEqual([
        where,
        'DISABLED',
        'user',
        'disk check',
      ]);
      // The other worker too (so nothing can take new work), in plain output.
      const other = where === 'big' ? 'small' : 'big';
      const plain = await c.iris(['workers', 'disable', other]);
      expect(plain.code, describeRun(['workers', 'disable', other], plain)).toBe(0);
      expect(plain.stdout.trim()).toBe(`worker ${other} is DISABLED`);

      await c.submit(['--name', 'blocked', '--cpu', '0.5', '--memory', '100MiB'], ['true']);
      const pending = await c.waitForJob('/blocked', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
      expect(pending.reason).toMatch(/^all 2 workers are disabled/);
      const status = await c.iris(['status', 'blocked']);
      expect(status.stdout).toContain('all 2 workers are disabled');
      // The task on the disabled worker ends normally (a drain would have preempted it).
      const ended = await c.waitForState('/long', 'SUCCEEDED');
      expect(ended.taskList[0]!.preemptions).toBe(0);
      // The coordinator never enables what the user disabled, even with work queued.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await workers()).map((w) => [w.id, w.state, w.disabled?.by])).toEqual([
        ['big', 'DISABLED', 'user'],
        ['small', 'DISABLED', 'user'],
      ]);

      await c.stop();
      await c.start();
      const after = await stateOf(where);
      expect([after.state, after.disabled?.by, after.disabled?.reason]).toEqual(['DISABLED', 'user', 'disk check']);
      const listed = await c.iris(['workers']);
      expect(listed.stdout).toMatch(new RegExp(`${where}\\s+user\\s+disk check\\s+\\S+ ago`));
      const cluster = await c.iris(['cluster', 'status']);
      expect(cluster.stdout).toMatch(/Workers:\s+2 \(0 ready, 2 disabled\)/);
      expect(cluster.stdout).toMatch(/Disabled workers \(2\)/);

      const enabled = await c.json<WorkerInfo>(['workers', 'enable', 'small']);
      expect([enabled.state, enabled.disabled ?? null]).toEqual(['READY', null]);
      await c.waitForState('/blocked', 'SUCCEEDED');
      const again = await c.iris(['workers', 'enable', 'small']);
      expect(again.code, describeRun(['workers', 'enable', 'small'], again)).toBe(0);
      expect(again.stdout.trim()).toBe('worker small is READY');
      const log = readFileSync(path.join(c.home, 'cluster.log'), 'utf8');
      expect(log).toContain(`worker ${where} disabled (by user: disk check)`);
      expect(log).toContain('worker small enabled by user');
    },
  );

  it('errors: an unknown worker exits 3, a drained one exits 4, each with a hint', async () => {
    const unknown = await c.iris(['workers', 'disable', 'nope']);
    expect(unknown.code, describeRun(['workers', 'disable', 'nope'], unknown)).toBe(3);
    expect(unknown.stderr).toContain('unknown worker nope');
    expect(unknown.stderr).toMatch(/iris workers/);
    const drained = await c.iris(['workers', 'drain', 'big']);
    expect(drained.code, describeRun(['workers', 'drain', 'big'], drained)).toBe(0);
    const disable = await c.iris(['workers', 'disable', 'big']);
    expect(disable.code, describeRun(['workers', 'disable', 'big'], disable)).toBe(4);
    expect(disable.stderr).toContain('worker big is DRAINED');
    expect(disable.stderr).toMatch(/iris workers resume/);
    const enable = await c.iris(['workers', 'enable', 'big']);
    expect(enable.code, describeRun(['workers', 'enable', 'big'], enable)).toBe(4);
    expect(enable.stderr).toMatch(/iris workers resume/);
    const missing = await c.iris(['workers', 'enable']);
    expect(missing.code).toBe(2);
  });
});
