/**
 * E2E: a submission that would be refused starts no cluster (docs/cli.md, "Errors"): with no
 * cluster running, `iris submit`/`iris run` first check the request as a cluster started now would
 * (server/preflight.ts), so a bad value or a device no configured worker has leaves the state
 * directory without a cluster. A value error names the flag and the value as typed, with a hint
 * that has an example; a TPU or GPU job on a cluster without such workers is told where to
 * declare them (the config file loaded, or where a new one would go). A running cluster answers
 * the same words.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { E2ECluster, controllersOf, describeRun } from './harness.js';

const clusters: E2ECluster[] = [];
afterAll(async () => {
  for (const cluster of clusters) await cluster.stop();
});

async function cluster(config?: string): Promise<E2ECluster> {
  const made = await E2ECluster.create({ noStart: true, ...(config !== undefined ? { config } : {}) });
  clusters.push(made);
  return made;
}

/** No cluster runs in `c`'s IRIS_HOME: no socket, no pid file, no controller, and `cluster status` says so. */
async function expectNoCluster(c: E2ECluster): Promise<void> {
  expect(existsSync(c.socket)).toBe(false);
  expect(existsSync(path.join(c.home, 'cluster.pid'))).toBe(false);
  expect(controllersOf(c.home)).toEqual([]);
  const status = await c.iris(['cluster', 'status']);
  expect(status.code, describeRun(['cluster', 'status'], status)).toBe(6);
  expect(status.stderr).toMatch(/no iris cluster is running/);
}

/** The refusal's stderr lines (`Error: …`, `Hint: …`) and exit code. */
async function refused(c: E2ECluster, args: string[]): Promise<{ code: number | null; lines: string[] }> {
  const r = await c.iris(args);
  expect(r.stdout).toBe('');
  return { code: r.code, lines: r.stderr.trimEnd().split('\n') };
}

describe('a refused submission on a default cluster (no config)', () => {
  it.each([
    [
      ['submit', '--cpu', 'abc', '--', 'true'],
      2,
      ['Error: --cpu abc: not a number of cores', 'Hint: give a number of cores, e.g. --cpu 2 or --cpu 0.5'],
    ],
    [
      ['run', '--memory', '4XB', '--', 'true'],
      2,
      ['Error: --memory 4XB: not a size', 'Hint: give a size, e.g. --memory 4GiB or --memory 512M'],
    ],
    [
      ['submit', '--replicas', '100000', '--', 'true'],
      2,
      ['Error: --replicas 100000: must be between 1 and 10000', 'Hint: give a number of tasks, e.g. --replicas 4'],
    ],
    [
      ['submit', '--replicas', 'abc', '--', 'true'],
      2,
      ['Error: --replicas abc: not a whole number', 'Hint: give a number of tasks, e.g. --replicas 4'],
    ],
    [
      ['submit', '--max-retries', '-1', '--', 'true'],
      2,
      ['Error: --max-retries -1: must be 0 or more', 'Hint: give a number of retries, e.g. --max-retries 3'],
    ],
    [
      ['run', '--time-limit', '5x', '--', 'true'],
      2,
      ['Error: --time-limit 5x: not a duration', 'Hint: give a duration, e.g. --time-limit 30m or --time-limit 2h'],
    ],
    [
      ['submit', '--priority', 'hi', '--', 'true'],
      2,
      [
        'Error: --priority hi: not one of production, interactive, batch',
        'Hint: e.g. --priority production; see `iris submit --help`',
      ],
    ],
  ])('%j: exit %i, names the flag, starts nothing', async (args, code, lines) => {
    const c = await cluster();
    expect(await refused(c, args)).toEqual({ code, lines });
    await expectNoCluster(c);
  });

  it('a TPU job: exit 5, the hint says to declare a slice in a new config file where one would be found', async () => {
    const c = await cluster();
    const { code, lines } = await refused(c, ['submit', '--tpu', 'v5litepod-16', '--', 'true']);
    expect(code).toBe(5);
    expect(lines[0]).toBe('Error: the job can never run on this cluster: no tpu workers in the cluster');
    expect(lines[1]).toContain(
      `Hint: declare a TPU slice under \`slices:\` in a new ${path.join(c.cwd, '.irisrc.yaml')}, ` +
        'e.g. `slices: [{ name: slice-a, tpu: v5litepod-16 }]`',
    );
    await expectNoCluster(c);
  });
});

describe('a refused submission on a configured cluster', () => {
  const CONFIG = 'workers:\n  - { name: cpu, cpu: 1, memory: 1GiB }\n';

  it('a GPU job no worker could run: exit 5, the hint names the loaded config file; nothing starts', async () => {
    const c = await cluster(CONFIG);
    const { code, lines } = await refused(c, ['run', '--gpu', 'H100x2', '--', 'true']);
    expect(code).toBe(5);
    expect(lines[0]).toBe('Error: the job can never run on this cluster: no gpu workers in the cluster');
    expect(lines[1]).toContain(
      `Hint: declare a GPU worker under \`workers:\` in ${path.join(c.cwd, '.irisrc.yaml')}, ` +
        'e.g. `workers: [{ name: gpu-0, gpu: { variant: H100, count: 2 } }]`',
    );
    await expectNoCluster(c);
  });

  it('a running cluster refuses with the same words', async () => {
    const c = await cluster(CONFIG);
    const ok = await c.iris(['submit', '--', 'true']);
    expect(ok.code, describeRun(['submit'], ok)).toBe(0);
    expect(await refused(c, ['submit', '--cpu', 'abc', '--', 'true'])).toEqual({
      code: 2,
      lines: ['Error: --cpu abc: not a number of cores', 'Hint: give a number of cores, e.g. --cpu 2 or --cpu 0.5'],
    });
    const tpu = await refused(c, ['submit', '--tpu', 'v6e-8', '--', 'true']);
    expect(tpu.code).toBe(5);
    expect(tpu.lines[1]).toContain(`declare a TPU slice under \`slices:\` in ${path.join(c.cwd, '.irisrc.yaml')}`);
  });
});
