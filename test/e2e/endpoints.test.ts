/**
 * E2E: task-level endpoints — registered from inside tasks with `iris endpoints register`,
 * listed (with a prefix) by `iris endpoints`, gone once the task's attempt ends; refused from
 * outside a task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointInfo } from '../../src/api/types.js';
import { E2ECluster, describeRun, waitUntil } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('endpoints', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create({ config: CONFIG });
  });
  afterAll(async () => {
    await c?.dispose();
  });

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
    await waitUntil('two endpoints', () => c.client.endpoints('svc/'), (list) => list.length === 2, { client: c.client });

    const listed = await c.json<EndpointInfo[]>(['endpoints']);
    const sorted = [...listed].sort((a, b) => a.name.localeCompare(b.name));
    expect(sorted).toMatchObject([
      { name: 'svc/rank-0', address: '127.0.0.1:8000', task: '/ep/task-0', attempt: 0, job: '/ep' },
      { name: 'svc/rank-1', address: '127.0.0.1:8001', task: '/ep/task-1', attempt: 0, job: '/ep' },
    ]);
    const filtered = await c.json<EndpointInfo[]>(['endpoints', 'svc/rank-1']);
    expect(filtered.map((e) => e.name)).toEqual(['svc/rank-1']);
    const plain = await c.iris(['endpoints']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('svc/rank-0');
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

  it('registering from outside a task is refused', async () => {
    const args = ['endpoints', 'register', 'outsider', '127.0.0.1:1'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).not.toBe(0);
    expect(r.stderr).toMatch(/task/i);
    expect(await c.client.endpoints()).toEqual([]);
  });
});
