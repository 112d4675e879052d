/**
 * E2E: one controller per state directory. With the socket file gone, `iris submit` starts no
 * second controller (it would reclaim and re-run the first one's tasks) and says which pid holds
 * the state; after a `kill -9`, two `cluster start` at once give one controller that ran recovery
 * once.
 */
import { readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  E2ECluster,
  controllersOf,
  describeRun,
  isRunning,
  killAll,
  marker,
  pidsWithMarker,
  waitUntil,
} from './harness.js';
import { SocketClient } from '../../src/client/socket-client.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

describe('one controller per state directory', () => {
  const tag = marker('statelock');
  const clusters: E2ECluster[] = [];
  afterAll(async () => {
    // A graceful stop first, so the controller removes its attempt cgroups; then kill what is left.
    for (const c of clusters) await c.stop().catch(() => undefined);
    for (const c of clusters) killAll(controllersOf(c.home));
    killAll(pidsWithMarker(tag));
    for (const c of clusters) await c.dispose();
  });

  it("with its socket file gone, `iris submit` starts no second controller and leaves the first one's task " +
    'alone', async () => {
    const c = await E2ECluster.create({ config: CONFIG });
    clusters.push(c);
    await c.submit(
      ['--name', 'keep', '--cpu', '0.5'],
      ['sh', '-c', `echo up; while :; do sleep 1; done # ${tag}-keep`],
    );
    await c.waitForLog('/keep', 'up');
    const first = c.pid()!;
    const taskPids = pidsWithMarker(`${tag}-keep`);
    expect(taskPids.length).toBeGreaterThan(0);

    // The socket file disappears (moved aside so the test can talk to the first controller afterwards).
    const aside = path.join(c.home, 'aside.sock');
    renameSync(c.socket, aside);
    const args = ['submit', '--name', 'second', '--', 'true'];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(4);
    expect(r.stderr).toContain(`another iris controller (pid ${first}) holds the state directory ${c.home}`);
    expect(r.stderr).toContain(`kill ${first}`);

    expect(controllersOf(c.home)).toEqual([first]);
    expect(isRunning(first)).toBe(true);
    expect(pidsWithMarker(`${tag}-keep`)).toEqual(taskPids);
    expect(c.pid()).toBe(first);
    const job = await new SocketClient(aside, {}).job('/keep');
    expect(job.state).toBe('RUNNING');
    expect(job.taskList[0]!.attempts.map((a) => [a.attempt, a.state])).toEqual([[0, 'RUNNING']]);
    expect((await new SocketClient(aside, {}).jobs()).map((j) => j.name)).toEqual(['/keep']);
    renameSync(aside, c.socket);
  }, 90_000);

  it('two `cluster start` at once after a kill -9: one controller, recovery run once', async () => {
    // The orphan ignores SIGTERM, so recovery takes the whole stop-grace: a wide window for a second controller.
    const c = await E2ECluster.create({ config: CONFIG.replace('stop-grace: 1s', 'stop-grace: 3s') });
    clusters.push(c);
    await c.submit(
      ['--name', 'orphan', '--cpu', '0.5'],
      ['sh', '-c', `trap '' TERM; echo up; while :; do sleep 1; done # ${tag}-orphan`],
    );
    await c.waitForLog('/orphan', 'up');
    const crashed = c.pid()!;
    process.kill(crashed, 'SIGKILL');
    await waitUntil(
      'the controller is gone',
      async () => isRunning(crashed),
      (running) => !running,
    );
    const logPath = path.join(c.home, 'cluster.log');
    const before = readFileSync(logPath, 'utf8').length;

    const args = ['cluster', 'start', '--detach'];
    const [a, b] = await Promise.all([c.iris(args, { timeoutMs: 60_000 }), c.iris(args, { timeoutMs: 60_000 })]);
    expect(a.code, describeRun(args, a)).toBe(0);
    expect(b.code, describeRun(args, b)).toBe(0);
    const controllers = await waitUntil(
      'one controller left',
      async () => controllersOf(c.home),
      (pids) => pids.length === 1,
    );
    const [winner] = controllers;
    expect(c.pid()).toBe(winner);
    for (const r of [a, b]) expect(r.stdout).toContain(`(pid ${winner},`);

    const log = readFileSync(logPath, 'utf8').slice(before);
    expect(log.match(/recovered \d+ attempt/g), log).toEqual(['recovered 1 attempt']);
    expect(log.match(/iris cluster ready/g), log).toHaveLength(1);
    expect(log).toContain(
      `another iris controller (pid ${winner}) is already running on the state directory ${c.home}`,
    );

    const job = await c.waitForJob(
      '/orphan',
      (j) => j.taskList[0]!.attempt === 1 && j.state === 'RUNNING',
      'attempt 1 running',
    );
    expect(job.taskList[0]!.attempts.map((x) => [x.attempt, x.state])).toEqual([
      [0, 'PREEMPTED'],
      [1, 'RUNNING'],
    ]);
  }, 90_000);
});
