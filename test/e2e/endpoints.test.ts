/**
 * E2E: task-level endpoints — registered from inside tasks with `iris endpoints register`,
 * named under the registering job (`svc/rank-0` from /ep is `/ep/svc/rank-0`), listed (with a
 * prefix) by `iris endpoints` with their job, gone once the task's attempt ends; refused from
 * outside a task and under another job's prefix.
 */
import { describe, expect, it } from 'vitest';
import type { EndpointInfo } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('endpoints', () => {
  const c = withCluster(CONFIG);

  it('a task registers endpoints; iris endpoints lists them; they disappear when the task ends', async () => {
    const gate = c.gate('ep');
    const script = c.script(
      'serve.sh',
      [
        'port=$((8000 + IRIS_TASK_INDEX))',
        'iris endpoints register "svc/rank-$IRIS_TASK_INDEX" "127.0.0.1:$port" || exit 1',
        'echo registered',
        gate.hold,
      ].join('\n'),
    );
    await c.submit(['--name', 'ep', '--replicas', '2', '--cpu', '0.1'], ['sh', script]);
    await waitUntil(
      'two endpoints',
      () => c.client.endpoints('/ep/svc/'),
      (list) => list.length === 2,
      { client: c.client },
    );

    const listed = await c.json<EndpointInfo[]>(['endpoints']);
    const sorted = [...listed].sort((a, b) => a.name.localeCompare(b.name));
    expect(sorted).toMatchObject([
      { name: '/ep/svc/rank-0', address: '127.0.0.1:8000', task: '/ep/task-0', attempt: 0, job: '/ep' },
      { name: '/ep/svc/rank-1', address: '127.0.0.1:8001', task: '/ep/task-1', attempt: 0, job: '/ep' },
    ]);
    const filtered = await c.json<EndpointInfo[]>(['endpoints', 'ep/svc/rank-1']);
    expect(filtered.map((e) => e.name)).toEqual(['/ep/svc/rank-1']);
    const plain = await c.iris(['endpoints']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/JOB/);
    expect(plain.stdout).toMatch(/\/ep\/svc\/rank-0\s+\/ep\s+127\.0\.0\.1:8000/);
    expect(plain.stdout).toContain('127.0.0.1:8001');

    gate.open();
    await c.waitForState('/ep', 'SUCCEEDED');
    expect(await c.json<EndpointInfo[]>(['endpoints'])).toEqual([]);
  });

  it('an endpoint of a failed attempt is removed too', async () => {
    const script = c.script('serve-fail.sh', 'iris endpoints register flaky 127.0.0.1:9 || exit 0\nexit 9');
    const r = await c.iris(['run', '--name', 'flaky', '--cpu', '0.1', '--', 'sh', script]);
    expect(r.code).toBe(1);
    expect((await c.job('/flaky')).taskList[0]!.exitCode).toBe(9);
    expect(await c.client.endpoints('flaky')).toEqual([]);
  });

  it('a task of another job cannot register beside the real victim/ps (issue 12)', async () => {
    const victimGate = c.gate('victim');
    const victim = c.script(
      'victim.sh',
      ['iris endpoints register ps 10.0.0.1:2222 || exit 1', victimGate.hold].join('\n'),
    );
    await c.submit(['--name', 'victim', '--cpu', '0.1'], ['sh', victim]);
    await waitUntil(
      'the victim endpoint',
      () => c.client.endpoints(),
      (list) => list.length === 1,
      { client: c.client },
    );

    const attackerGate = c.gate('attacker');
    const attacker = c.script(
      'attacker.sh',
      [
        'iris endpoints register /victim/ps 6.6.6.6:1; echo "absolute=$?"',
        'iris endpoints register ../victim/ps 6.6.6.6:2; echo "dotdot=$?"',
        'iris endpoints register victim/ps 6.6.6.6:3; echo "relative=$?"',
        attackerGate.hold,
      ].join('\n'),
    );
    await c.submit(['--name', 'attacker', '--cpu', '0.1'], ['sh', attacker]);
    const lines = await c.waitForLog('/attacker', 'relative=');
    const text = lines.map((l) => l.text).join('\n');
    // Another job's prefix is forbidden (exit 4, HTTP 403); ".." is not a name (exit 2, HTTP 400).
    expect(text).toContain('absolute=4');
    expect(text).toMatch(/endpoint name "\/victim\/ps" is outside the registering job \/attacker/);
    expect(text).toContain('dotdot=2');
    // A relative name is the attacker's own: it lands under /attacker, not beside the victim's.
    expect(text).toContain('relative=0');

    // What a client looking up the victim's endpoint sees: exactly the victim's one.
    const victims = await c.json<EndpointInfo[]>(['endpoints', 'victim/']);
    expect(victims).toMatchObject([
      { name: '/victim/ps', address: '10.0.0.1:2222', job: '/victim', task: '/victim/task-0' },
    ]);
    const all = await c.json<EndpointInfo[]>(['endpoints']);
    expect(all.filter((e) => e.address.startsWith('6.6.6.6')).map((e) => [e.name, e.job])).toEqual([
      ['/attacker/victim/ps', '/attacker'],
    ]);

    victimGate.open();
    attackerGate.open();
    await c.waitForState('/victim', 'SUCCEEDED');
    await c.waitForState('/attacker', 'SUCCEEDED');
  });

  it('registering from outside a task is refused', async () => {
    const args = ['endpoints', 'register', 'outsider', '127.0.0.1:1'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).not.toBe(0);
    expect(r.stderr).toMatch(/task/i);
    expect(await c.client.endpoints()).toEqual([]);
  });
});
