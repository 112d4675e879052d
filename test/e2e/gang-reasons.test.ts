/**
 * E2E: the pending reason of a TPU gang names the hosts in its way (placement/explain.ts
 * gangNow): a whole-slice gang names its busy host as a partial gang does; a disabled or drained
 * host says why in the single-worker words; a slice removed from the config before a restart is
 * not named at all.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { byIndex, describeRun, withCluster } from './harness.js';

const tpu = (slice: string, id: number) =>
  `  - {name: ${slice}-${id}, cpu: 2, memory: 2GiB, tpu: {variant: v5litepod-16}, attributes: {tpu-name: ${slice}` +
  `, tpu-worker-id: ${id}}}`;
const config = (slices: Array<[string, number]>) => {
  const hosts = slices.flatMap(([s, n]) => Array.from({ length: n }, (_, k) => tpu(s, k)));
  return `stop-grace: 1s\nworkers:\n${hosts.join('\n')}\n`;
};
const HEAD = 'need hosts 0-3 of one tpu-name group (task i runs on host i): ';

describe('gang reasons name the hosts in the way', () => {
  const c = withCluster({
    config: config([
      ['slice-a', 4],
      ['slice-b', 4],
    ]),
    noStart: true,
  });

  const iris = async (args: string[]) => {
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
  };
  /** The pending reason of `name` once it starts with `head` (the pass reruns on every change). */
  const reasonOf = (name: string, pattern: RegExp): Promise<JobDetail> =>
    c.waitForJob(name, (j) => j.state === 'PENDING' && pattern.test(j.reason ?? ''), `reason ${pattern}`);
  const literal = (s: string) => s.replace(/[()]/g, '\\$&');

  it('a whole-slice gang names the busy host, then a disabled and a drained one, never a removed slice', async () => {
    // slice-b is in the first config only: after the restart its workers are drained for good.
    await c.start();
    await c.stop();
    writeFileSync(path.join(c.cwd, '.irisrc.yaml'), config([['slice-a', 4]]), { mode: 0o644 });
    await c.start();

    const gate = c.gate('t0');
    await c.submit(['--name', 't0', '-c', 'tpu-worker-id=2', '--cpu', '2'], ['sh', '-c', gate.hold]);
    await c.waitForState('/t0', 'RUNNING');
    await c.submit(['--name', 'tpu', '--replicas', '4', '--tpu', 'v5litepod-16', '--cpu', '0.5'], ['true']);
    const busy = await reasonOf('/tpu', new RegExp(`^${literal(`${HEAD}slice-a host 2 (slice-a-2) is busy`)}(;|$)`));
    expect(busy.reason).not.toMatch(/slice-b/);

    await iris(['workers', 'disable', 'slice-a-0', '--reason', 'test']);
    await iris(['workers', 'drain', 'slice-a-1']);
    const off =
      `${HEAD}slice-a host 0 (slice-a-0) is disabled (by user: test), host 1 (slice-a-1) is draining, ` +
      'host 2 (slice-a-2) is busy';
    const named = await reasonOf('/tpu', new RegExp(`^${literal(off)}(;|$)`));
    expect(named.reason).not.toMatch(/slice-b|cannot run it/);

    await iris(['workers', 'enable', 'slice-a-0']);
    await iris(['workers', 'resume', 'slice-a-1']);
    gate.open();
    const done = await c.waitForState('/tpu', 'SUCCEEDED');
    expect(byIndex(done).map((t) => t.workerId)).toEqual(['slice-a-0', 'slice-a-1', 'slice-a-2', 'slice-a-3']);
  });
});
