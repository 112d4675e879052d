/**
 * E2E: the static-worker baseline (docs/configuration.md, "Placement modes") on the built binary.
 * Two workers w0, w1 with room for several tasks each. A pipeline (a tree: /tree with stages
 * `first` and `second`, two tasks each) is bound to w0; while its tasks run, w0 leaves the
 * general pool, so another submission goes to w1 although w0 has room (plain first-fit would put
 * it on w0). Every task of the tree runs on w0. Gates, not sleeps.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { E2ECluster, describeRun } from './harness.js';

const CONFIG = `workers:
  - {name: w0, cpu: 2, memory: 2GiB}
  - {name: w1, cpu: 2, memory: 2GiB}
placement: {mode: static-worker}
`;

describe('static-worker placement', () => {
  let c: E2ECluster | null = null;
  afterEach(async () => {
    await c?.dispose();
    c = null;
  });

  it('keeps a whole tree on one worker and sends another submission to the other', async () => {
    c = await E2ECluster.create({ config: CONFIG });
    const gate = c.gate('first');
    writeFileSync(
      path.join(c.cwd, 'tree.yaml'),
      `name: tree
stages:
  first:
    cpu: 0.5
    memory: 100MiB
    replicas: 2
    command: ${gate.hold}
  second:
    needs: [first]
    cpu: 0.5
    memory: 100MiB
    replicas: 2
    command: "true"
`,
    );
    const submit = await c.iris(['submit', '-f', 'tree.yaml']);
    expect(submit.code, describeRun(['submit', '-f', 'tree.yaml'], submit)).toBe(0);
    await c.waitForState('/tree/first', 'RUNNING');
    const other = await c.submit(['--name', 'other', '--cpu', '0.5', '--memory', '100MiB'], ['true']);
    const wait = await c.iris(['wait', other]);
    expect(wait.code, describeRun(['wait', other], wait)).toBe(0);
    gate.open();
    const done = await c.waitForEnd('/tree/second');
    expect(done.state).toBe('SUCCEEDED');

    const workersOf = async (job: string) =>
      (await c!.json<JobDetail>(['status', job])).taskList.map((t) => t.workerId);
    expect(await workersOf('/tree/first')).toEqual(['w0', 'w0']);
    expect(await workersOf('/tree/second')).toEqual(['w0', 'w0']);
    const otherDetail = await c.json<JobDetail>(['status', other]);
    expect(otherDetail.taskList[0]!.workerId).toBe('w1');
    expect(otherDetail.taskList[0]!.attempts[0]!.placement).toMatchObject({
      mode: 'static-worker',
      pool: 1,
      score: 0,
      runnerUp: null,
    });
    const status = await c.iris(['status', other]);
    expect(status.stdout).toMatch(
      /Placement:\n\s+TASK\s+ATTEMPT\s+WORKER\s+DECISION\n\s+\S+\/task-0\s+0\s+w1\s+static-worker: 1 candidate\n/,
    );
  });
});
