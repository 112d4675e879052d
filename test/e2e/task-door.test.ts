/**
 * E2E: the attacks of issue 12 section 2, from inside real tasks of a real cluster. A task gets
 * only the task door in IRIS_CONTROLLER_ADDRESS; there it cannot act without its token (no child
 * under an unrelated job, no cancel, no drain, no `--user`), and with its token it cannot cancel,
 * read or wait outside its own subtree or use owner-only routes. The owner's own socket keeps
 * full rights.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { JobDetail, WorkerInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 8, memory: 8GiB}
`;

/** Lines `NAME rc=N` a script printed, as { NAME: N }. */
function exitCodes(stdout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of stdout.matchAll(/ (\w+) rc=(\d+)$/gm)) out[match[1]!] = Number(match[2]);
  return out;
}

/** A shell line that runs `command` and prints `NAME rc=N`. */
const tryIt = (name: string, command: string) => `${command} >/dev/null 2>>errs.txt; echo "${name} rc=$?"`;

describe('the task door', () => {
  const c = withCluster(CONFIG);
  beforeAll(async () => {
    await c.submit(['--name', 'victim', '--cpu', '0.1'], ['sh', '-c', 'echo victim-secret; sleep 120']);
    await c.waitForState('/victim', 'RUNNING');
  });

  it('a task is given the task door, not the owner socket', async () => {
    const args = ['run', '--name', 'where', '--cpu', '0.1', '--', 'sh', '-c', 'echo "addr=$IRIS_CONTROLLER_ADDRESS"'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain(`addr=${c.home}/tasks/iris.sock`);
    // Reachable by a container's unprivileged user (0666 in a traversable, unlistable 0711
    // directory) but not from the host: the state directory above it is the owner's alone.
    expect(statSync(`${c.home}/tasks/iris.sock`).mode & 0o777).toBe(0o666);
    expect(statSync(`${c.home}/tasks`).mode & 0o777).toBe(0o711);
    expect(statSync(c.home).mode & 0o077).toBe(0);
  });

  it("each task's environment holds only its own attempt's token", async () => {
    const args = [
      'run',
      '--name',
      'tokens',
      '--cpu',
      '0.1',
      '--replicas',
      '2',
      '--',
      'sh',
      '-c',
      'echo "tokens=$(env | grep -c TOKEN) $IRIS_TASK_TOKEN"',
    ];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    const seen = [...r.stdout.matchAll(/tokens=(\d+) (\S+)/g)].map((m) => ({ count: Number(m[1]), token: m[2] }));
    expect(seen.map((s) => s.count)).toEqual([1, 1]);
    expect(new Set(seen.map((s) => s.token)).size).toBe(2);
  });

  it(
    'a task that leaves its token out can neither create a child under an unrelated job, cancel it, drain the ' +
      'worker nor submit --user',
    async () => {
      const noToken = 'env -u IRIS_TASK_TOKEN iris';
      const script = c.script(
        'no-token.sh',
        [
          tryIt('submit', `${noToken} submit --name /victim/evil --cpu 0.1 -- true`),
          tryIt('cancel', `${noToken} cancel /victim`),
          tryIt('drain', `${noToken} workers drain w0`),
          tryIt('user', `${noToken} submit --name /mallory --user mallory --cpu 0.1 -- true`),
          tryIt('status', `${noToken} status /victim`),
          'sed "s/^/ERR /" errs.txt; rm -f errs.txt',
        ].join('\n'),
      );
      const args = ['run', '--name', 'notoken', '--cpu', '0.1', '--', 'sh', script];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      // 403 is exit 4 (docs/cli.md), with the reason and what to do.
      expect(exitCodes(r.stdout), r.stdout).toEqual({ submit: 4, cancel: 4, drain: 4, user: 4, status: 4 });
      expect(r.stdout).toMatch(/ERR .*task door: every request needs the task token/);
      // Nothing happened: the victim runs with no new child, the worker still takes work, no /mallory.
      const jobs = (await c.jobs()).map((j) => j.name);
      expect(jobs).not.toContain('/victim/evil');
      expect(jobs).not.toContain('/mallory');
      expect((await c.job('/victim')).state).toBe('RUNNING');
      const workers = await c.json<WorkerInfo[]>(['workers']);
      expect(workers.find((w) => w.id === 'w0')?.state).toBe('READY');
    },
  );

  it(
    'a task with its token cannot cancel, read, wait on or list outside its subtree, nor use owner-only ' + 'routes',
    async () => {
      const script = c.script(
        'scoped.sh',
        [
          tryIt('cancel', 'iris cancel /victim'),
          tryIt('status', 'iris status /victim'),
          tryIt('logs', 'iris logs /victim'),
          tryIt('wait', 'iris wait /victim --timeout 1s'),
          tryIt('drain', 'iris workers drain w0'),
          tryIt('queue', 'iris queue'),
          tryIt('stop', 'iris cluster stop'),
          tryIt('user', 'iris submit --name kid --user mallory --cpu 0.1 -- true'),
          tryIt('own', 'iris run --name kid --cpu 0.1 -- true'),
          'echo "listed $(iris jobs --json | grep -c victim)"',
          'sed "s/^/ERR /" errs.txt; rm -f errs.txt',
        ].join('\n'),
      );
      const args = ['run', '--name', 'scoped', '--cpu', '0.1', '--', 'sh', script];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(exitCodes(r.stdout), r.stdout).toEqual({
        cancel: 4,
        status: 4,
        logs: 4,
        wait: 4,
        drain: 4,
        queue: 4,
        stop: 4,
        user: 4,
        own: 0,
      });
      expect(r.stdout).toMatch(/ERR .*may only cancel jobs within its own job \/scoped; \/victim is outside it/);
      expect(r.stdout).toMatch(/ERR .*draining a worker is for the cluster's owner only/);
      expect(r.stdout).toContain('listed 0');
      expect(r.stdout).not.toContain('victim-secret');
      expect((await c.job('/victim')).state).toBe('RUNNING');
      expect((await c.job('/scoped/kid')).state).toBe('SUCCEEDED');
      expect(await c.client.ping()).toBe(true);
    },
  );

  it(
    'the owner may submit --user for another user: recorded and shown as submitted by the OS user for that ' + 'user',
    async () => {
      const me = userInfo().username;
      await c.submit(['--name', 'for-erin', '--user', 'erin', '--cpu', '0.1'], ['true']);
      const job = await c.json<JobDetail>(['status', '/for-erin']);
      expect(job).toMatchObject({ user: 'erin', submitter: me });
      const shown = await c.iris(['status', '/for-erin']);
      expect(shown.stdout).toMatch(new RegExp(`User:\\s+erin \\(submitted by ${me} for erin\\)`));
      expect((await c.json<JobDetail>(['status', '/victim'])).submitter).toBeUndefined();
    },
  );

  it('a request on the task door with an unknown token is refused with a hint', async () => {
    const r = await c.iris(['status', '/victim'], {
      env: { IRIS_CONTROLLER_ADDRESS: `${c.home}/tasks/iris.sock`, IRIS_TASK_TOKEN: 'forged' },
    });
    expect(r.code, describeRun(['status'], r)).toBe(4);
    expect(r.stderr).toMatch(/unknown or expired task token/);
    // `iris submit` inside a task says why it is refused, not that the cluster does not answer.
    const env = { IRIS_CONTROLLER_ADDRESS: `${c.home}/tasks/iris.sock`, IRIS_TASK_TOKEN: 'forged' };
    const submit = await c.iris(['submit', '--cpu', '0.1', '--', 'true'], { env });
    expect(submit.code, describeRun(['submit'], submit)).toBe(4);
    expect(submit.stderr).toMatch(/unknown or expired task token/);
  });
});
