/**
 * E2E (issue 31, work-conserving passes): jobs blocked on a busy pool do not keep another pool
 * idle. `hold` runs a long task; 40 jobs wait for `hold`, more than the queue depth (32); then
 * a 20-task array of short tasks goes to `bench` (4 CPU). Each time a bench task ends, the pass
 * reconsiders every job; before, the 40 blocked jobs filled the depth and the array stopped after
 * its first 4 tasks while `bench` sat idle.
 */
import { describe, expect, it } from 'vitest';
import { withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: bench, cpu: 4, memory: 2GiB, attributes: {pool: bench}}
  - {name: hold, cpu: 1, memory: 2GiB, attributes: {pool: hold}}
`;

describe('an idle pool behind the queue depth', () => {
  const c = withCluster(CONFIG);

  it('runs the whole array on bench while 40 jobs wait for hold', { timeout: 120_000 }, async () => {
    const gate = c.gate('hold');
    await c.submit(['--name', 'sleeper', '-c', 'pool=hold', '--cpu', '1', '--memory', '16M'], ['sh', '-c', gate.hold]);
    await c.waitForState('/sleeper', 'RUNNING');
    for (let i = 0; i < 40; i++) {
      await c.client.submit({ name: `h${i}`, command: ['true'], cpu: 1, memory: '16M', constraints: ['pool=hold'] });
    }
    await c.submit(
      ['--name', 'bench', '-c', 'pool=bench', '--cpu', '1', '--memory', '16M', '--replicas', '20'],
      ['sleep', '0.5'],
    );
    const done = await c.waitForState('/bench', ['SUCCEEDED', 'FAILED', 'KILLED'], { timeoutMs: 60_000 });
    expect(done.state).toBe('SUCCEEDED');
    expect(new Set(done.taskList.map((t) => t.workerId))).toEqual(new Set(['bench']));
    // The hold jobs still wait, with a reason about hold's capacity, not about the queue depth.
    const h39 = await c.job('/h39');
    expect(h39.state).toBe('PENDING');
    expect(h39.reason ?? '').not.toMatch(/queue\.depth/);
    gate.open();
  });
});
