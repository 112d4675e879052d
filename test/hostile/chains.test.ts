/**
 * Hostile suite, "No chain of jobs can stop the controller" (docs/security.md): the built binary
 * against a real local cluster.
 *
 * A chain of thousands of jobs, each waiting on the one before (a pipeline of that many stages, or
 * children submitted `--after` one another by a task), is as cheap to build as it is long. Ending
 * it used to walk it by recursion: the head's failure overflowed the controller's stack
 * (`RangeError: Maximum call stack size exceeded`), crashing it on every start after; `iris cancel`
 * of the head failed with exit 70. Here the chains end, the controller stays up and restarts,
 * `iris retry --downstream` re-runs a whole chain, and a job whose rows the store cannot read is
 * quarantined at start-up instead of stopping it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobSummary, RetryResponse } from '../../src/api/types.js';
import { E2ECluster, describeRun, isRunning, killMarked, marker } from '../e2e/harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 8GiB}
`;

/** Generous bounds: a chain of thousands of jobs is submitted and ended on a loaded 2-core machine. */
const LONG = { timeoutMs: 90_000 };

let cluster: E2ECluster | null = null;
const tag = marker('chains');

afterEach(async () => {
  killMarked(tag);
  await cluster?.dispose();
  cluster = null;
});

async function start(): Promise<E2ECluster> {
  cluster = await E2ECluster.create({ config: CONFIG });
  return cluster;
}

/**
 * A pipeline `/chain` of `length` stages s0 … s{length-1}, each needing the one before; `head` is
 * s0's command, `extra` more stages (YAML lines) beside the chain.
 */
function writeChain(c: E2ECluster, length: number, head: string, extra: string[] = []): string {
  const lines = ['name: chain', 'stages:', ...extra, '  s0:', `    command: ${JSON.stringify(head)}`, '    cpu: 0.1'];
  for (let i = 1; i < length; i++)
    lines.push(`  s${i}:`, `    needs: [s${i - 1}]`, `    command: "true ${tag}"`, '    cpu: 0.1');
  const file = path.join(c.cwd, 'chain.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function submitChain(c: E2ECluster, file: string): Promise<void> {
  const args = ['submit', '-f', file];
  const r = await c.iris(args, { timeoutMs: 60_000 });
  expect(r.code, describeRun(args, r)).toBe(0);
}

async function jobs(c: E2ECluster): Promise<Map<string, JobSummary>> {
  const list = await c.json<JobSummary[]>(['jobs', '--prefix', '/chain'], { timeoutMs: 60_000 });
  return new Map(list.map((j) => [j.name, j]));
}

/** Every stage s{from} … s{length-1} ended FAILED because the one before it did. */
function expectCascade(all: Map<string, JobSummary>, length: number, from: number, first: string): void {
  expect(all.get(`/chain/s${from}`)).toMatchObject({ state: 'FAILED', reason: first });
  const wrong: string[] = [];
  for (let i = from + 1; i < length; i++) {
    const job = all.get(`/chain/s${i}`);
    if (job?.state !== 'FAILED' || job.reason !== `dependency /chain/s${i - 1} failed`)
      wrong.push(`s${i}: ${job?.state} ${job?.reason}`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
}

describe('no chain of jobs can stop the controller', () => {
  it('a 3,000-stage pipeline whose head fails: every stage after it fails with the dependency reason, the ' +
    'controller stays up and restarts', async () => {
    const c = await start();
    const length = 3_000;
    await submitChain(c, writeChain(c, length, `echo ${tag}; exit 1`));
    const pid = c.pid()!;
    await c.waitForState(`/chain/s${length - 1}`, 'FAILED', LONG);
    expect(isRunning(pid)).toBe(true);
    expect(c.pid()).toBe(pid);
    const all = await jobs(c);
    expect(all.get('/chain/s0')).toMatchObject({ state: 'FAILED' });
    expectCascade(all, length, 1, 'dependency /chain/s0 failed');

    const stop = await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 });
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
    await c.start();
    const after = await jobs(c);
    expect(after.size).toBe(length + 1);
    expect(after.get(`/chain/s${length - 1}`)).toMatchObject({
      state: 'FAILED',
      reason: `dependency /chain/s${length - 2} failed`,
    });
  }, 240_000);

  it('iris cancel of the head of a 2,500-long chain exits 0 and ends every job of it', async () => {
    const c = await start();
    const length = 2_500;
    const gate = c.gate('head');
    await submitChain(c, writeChain(c, length, `${gate.hold}; echo ${tag}`));
    await c.waitForState('/chain/s0', 'RUNNING', LONG);
    const args = ['cancel', '/chain/s0'];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const all = await jobs(c);
    expect(all.get('/chain/s0')).toMatchObject({ state: 'KILLED', reason: 'cancelled by user' });
    expect(all.get('/chain/s1')).toMatchObject({ state: 'FAILED', reason: 'dependency /chain/s0 ended KILLED' });
    expectCascade(all, length, 1, 'dependency /chain/s0 ended KILLED');
  }, 240_000);

  it('iris retry --downstream runs a whole 2,500-long failed chain again, each job waiting on the one ' +
    'before', async () => {
    const c = await start();
    const length = 2_500;
    const hold = c.gate('keep-root');
    const again = c.gate('head-again');
    const once = path.join(c.cwd, 'head-failed-once');
    // `hold` keeps the pipeline's root running (a stage of an ended pipeline cannot be retried);
    // s0 fails its first run and waits in the next one.
    const head = `if [ -f '${once}' ]; then ${again.hold}; else touch '${once}'; exit 1; fi; echo ${tag}`;
    await submitChain(
      c,
      writeChain(c, length, head, [
        '  hold:',
        `    command: ${JSON.stringify(`${hold.hold}; echo ${tag}`)}`,
        '    cpu: 0.1',
      ]),
    );
    await c.waitForState(`/chain/s${length - 1}`, 'FAILED', LONG);
    const before = await jobs(c);
    expectCascade(before, length, 1, 'dependency /chain/s0 failed');

    const retried = await c.json<RetryResponse>(['retry', '/chain/s0', '--downstream'], { timeoutMs: 60_000 });
    expect(retried.retried.map((r) => r.name)).toEqual(Array.from({ length }, (_, i) => `/chain/s${i}`));
    await c.waitForState('/chain/s0', 'RUNNING', LONG);
    const after = await jobs(c);
    const last = after.get(`/chain/s${length - 1}`)!;
    expect(last).toMatchObject({ state: 'PENDING', reason: `waiting for /chain/s${length - 2} (PENDING)` });
    expect(last.run).toBeGreaterThan(before.get(`/chain/s${length - 1}`)!.run);
  }, 240_000);

  it('a job whose rows the store cannot read is quarantined at start-up: the cluster starts, the job and its ' +
    'dependents end FAILED, logged once', async () => {
    const c = await start();
    const gate = c.gate('victim');
    await c.submit(['--name', 'victim', '--cpu', '0.1'], ['sh', '-c', `${gate.hold}; echo ${tag}`]);
    await c.submit(['--name', 'after', '--cpu', '0.1', '--after', 'victim'], ['true']);
    await c.waitForState('/victim', 'RUNNING');
    expect((await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 })).code).toBe(0);

    // What a damaged or hand-edited state.db holds: a spec that is not JSON.
    const db = new DatabaseSync(path.join(c.home, 'state.db'));
    db.prepare('UPDATE jobs SET spec = ? WHERE name = ?').run('{"name": "/victim", "command": [', '/victim');
    db.close();

    await c.start();
    const victim = await c.job('/victim');
    expect(victim.state).toBe('FAILED');
    expect(victim.reason).toMatch(/^quarantined at start-up: spec is not JSON \(/);
    expect(await c.job('/after')).toMatchObject({ state: 'FAILED', reason: 'dependency /victim failed' });
    const ran = await c.iris(['run', '--name', 'later', '--cpu', '0.1', '--', 'true']);
    expect(ran.code, describeRun(['run'], ran)).toBe(0);

    expect((await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 })).code).toBe(0);
    await c.start();
    expect((await c.job('/victim')).reason).toBe(victim.reason);
    const log = readFileSync(path.join(c.home, 'cluster.log'), 'utf8');
    expect(log.match(/start-up: job \/victim quarantined \(it ends FAILED\): spec is not JSON/g)).toHaveLength(1);
  }, 120_000);
});
