/**
 * Hostile suite, issue 28 §6 ("inputs that are refused, and leftovers that are reclaimed"), on
 * the built binary against a real local cluster:
 * - values that used to be accepted are refused at submit with exit 2 and a message naming the
 *   flag (`--cpu 0x10` was 16 CPUs, `--user a/b` a user); from a task too (`--user-in-container
 *   root` names the flag, exit 4);
 * - a NUL character in a command, an env value, a name or a path is refused at submit (it used
 *   to be accepted and to fail at launch), over the API and in a pipeline file, naming the field;
 * - a task that submits 50 children that cannot start (a bad cwd) leaves no cgroup behind;
 * - cgroups a cluster left behind (killed mid-launch, or made by a task inside its own) are
 *   removed when it starts again, and another cluster's are left alone.
 */
import { request } from 'node:http';
import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2ECluster, describeRun, marker, waitUntil } from '../e2e/harness.js';
import { clusterCgroupDir, clusterCgroups, usableCgroups } from '../helpers/cgroups.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 8GiB}
`;

/** POST a JSON body (raw text, so it can hold what the CLI never sends) to a cluster socket. */
function post(
  socketPath: string,
  route: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: route, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('inputs that are refused', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create({ config: CONFIG });
  });
  afterAll(async () => {
    await c?.dispose();
  });

  it.each([
    [['--cpu', '0x10'], /^Error: --cpu 0x10: not a number of cores\nHint: give a number of cores, e.g. --cpu 2/],
    [['--cpu', '1e3'], /^Error: --cpu 1e3: not a number of cores/],
    [['--cpu', 'Infinity'], /^Error: --cpu Infinity: not a number of cores/],
    [['--memory', '0x10'], /^Error: --memory 0x10: not a size/],
    [['--time-limit', '0x10'], /^Error: --time-limit 0x10: not a duration/],
    [['--user', 'a/b'], /^Error: --user: invalid user name "a\/b"/],
    [['--user', ''], /^Error: --user: invalid user name ""/],
    [['--cwd', 'relative'], /^Error: --cwd must be an absolute path, got "relative"/],
    [['--replicas', '20000'], /^Error: --replicas 20000: must be between 1 and 10000/],
  ])('iris submit %j is refused with exit 2, naming the flag', async (flags, message) => {
    const args = ['submit', '--dry-run', ...flags, '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a task asking for more than its job has is refused naming the flag (exit 4)', async () => {
    const script = [
      'iris submit --user-in-container root -- true 2>uic.err; echo "uic rc=$?"; cat uic.err',
      'iris submit --user someone-else -- true 2>user.err; echo "user rc=$?"; cat user.err',
      'iris submit --cpu 0x10 -- true 2>cpu.err; echo "cpu rc=$?"; cat cpu.err',
    ].join('; ');
    const args = ['run', '--name', 'asks', '--cpu', '0.1', '--cwd', c.cwd, '--', 'sh', '-c', script];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('uic rc=4');
    expect(r.stdout).toContain('Error: --user-in-container "root": a task may not start root containers');
    expect(r.stdout).toContain('user rc=4');
    expect(r.stdout).toContain('Error: --user "someone-else": only the cluster\'s owner may submit for another user');
    expect(r.stdout).toContain('cpu rc=2');
    expect(r.stdout).toContain('Error: --cpu 0x10: not a number of cores');
  });

  it.each([
    ['the command', { command: ['echo', 'a\u0000b'] }, 'command[1]'],
    ['the program', { command: ['ec\u0000ho'] }, 'command[0]'],
    ['an env value', { command: ['true'], env: { A: 'x\u0000y' } }, 'env.A'],
    ['an env name', { command: ['true'], env: { 'A\u0000': 'x' } }, 'env["A\\u0000"]'],
    ['the name', { command: ['true'], name: 'a\u0000b' }, 'name'],
    ['the cwd', { command: ['true'], cwd: '/tmp/\u0000' }, 'cwd'],
    ['the image', { command: ['true'], image: 'busy\u0000box' }, 'image'],
    ['the user', { command: ['true'], user: 'a\u0000' }, 'user'],
    ['a constraint', { command: ['true'], constraints: ['a=b\u0000'] }, 'constraints[0]'],
  ])(
    'a NUL character in %s is refused at submit (400, naming the field), and no job is made',
    async (_what, body, field) => {
      const before = (await c.jobs()).length;
      const r = await post(c.socket, '/v1/jobs', JSON.stringify(body));
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'invalid_argument',
        field,
        message: `${field} may not contain a NUL character (\\0)`,
      });
      expect((await c.jobs()).length).toBe(before);
    },
  );

  it("a NUL character in a pipeline file is refused with exit 2, naming the stage's field", async () => {
    const file = path.join(c.cwd, 'nul.yaml');
    writeFileSync(file, 'name: nul\nstages:\n  train:\n    command: ["echo", "a\\0b"]\n    env: {A: "x"}\n');
    const args = ['submit', '-f', file];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toContain(`Error: ${file}: stages.train.command[1]: may not contain a NUL character (\\0)`);
    writeFileSync(file, 'name: nul\nstages:\n  train:\n    command: ["true"]\n    env: {A: "x\\0"}\n');
    const again = await c.iris(args);
    expect(again.code, describeRun(args, again)).toBe(2);
    expect(again.stderr).toContain(`Error: ${file}: stages.train.env.A: may not contain a NUL character (\\0)`);
    expect((await c.jobs()).some((j) => j.name === '/nul')).toBe(false);
  });

  it("a pipeline stage's bad value names its field path, not a flag", async () => {
    const file = path.join(c.cwd, 'cpu.yaml');
    writeFileSync(file, 'name: hexcpu\nstages:\n  train:\n    command: ["true"]\n    cpu: "0x10"\n');
    const args = ['submit', '-f', file, '--dry-run'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    // The file is named too (issue 34: a pipeline file error always names the file).
    expect(r.stderr).toContain(`Error: ${file}: stages.train.cpu: invalid cpu "0x10"`);
  });
});

// Whether iris can use cgroups here (under CI=true a machine without them fails the run).
const haveCgroups = await usableCgroups();

describe('leftover cgroups', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    if (!haveCgroups) return;
    c = await E2ECluster.create({ config: CONFIG });
    clusterId = (await c.json<{ clusterId: string }>(['cluster', 'status'])).clusterId;
  });
  afterAll(async () => {
    await c?.dispose();
  });

  /** The cgroups of the cluster that are not those of the given job's own tasks (its children's are others). */
  const othersThan = (job: string): string[] =>
    clusterCgroups(clusterId).filter((d) => !path.basename(d).startsWith(encodeURIComponent(`${job}/task-`)));

  it.runIf(haveCgroups)(
    'a task that submits 50 children that cannot start (bad cwd) leaves no cgroup behind',
    async () => {
      const gate = c.gate('children');
      const missing = `/nonexistent-${marker('cwd')}`;
      // Fifty submissions straight to the task door with the task's token (one node process, not
      // fifty CLI starts), then three through the CLI itself.
      const submitter = path.join(c.cwd, 'submit50.mjs');
      writeFileSync(
        submitter,
        `
import { request } from 'node:http';
const post = (body) => new Promise((resolve, reject) => {
  const req = request({ socketPath: process.env.IRIS_CONTROLLER_ADDRESS, path: '/v1/jobs', method: 'POST',
    headers: { 'content-type': 'application/json', 'x-iris-task-token': process.env.IRIS_TASK_TOKEN } }, (res) => {
    res.resume(); res.on('end', () => resolve(res.statusCode));
  });
  req.on('error', reject); req.end(JSON.stringify(body));
});
const codes = await Promise.all(Array.from({ length: 50 }, (_, i) => post({ name: 'c' + i, command: ['true'], cwd: ` +
          `${JSON.stringify(missing)}, cpu: 0.05 })));
console.log('submitted ' + codes.filter((s) => s === 200).length);
`,
      );
      const cli = [0, 1, 2].map((i) => `iris submit --name cli${i} --cpu 0.05 --cwd ${missing} -- true`).join(' && ');
      const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(submitter)} && ${cli} && ${gate.hold}`;
      await c.submit(['--name', 'parent', '--cpu', '0.1', '--cwd', c.cwd], ['sh', '-c', script]);
      const children = await waitUntil(
        'the 53 children to fail at launch',
        async () => (await c.jobs()).filter((j) => j.name.startsWith('/parent/')),
        (jobs) => jobs.length === 53 && jobs.every((j) => j.state === 'FAILED'),
        { client: c.client, timeoutMs: 30_000 },
      );
      expect(children.length).toBe(53);
      const log = (await c.logs('/parent/c7')).map((l) => l.text).join('\n');
      expect(log).toContain(`working directory not found: ${missing}`);
      // The parent still runs: its own cgroups are there (so this counts the right directories)...
      expect(clusterCgroups(clusterId).length).toBeGreaterThan(0);
      // ...and nothing of its children is.
      expect(othersThan('/parent')).toEqual([]);
      gate.open();
      await c.waitForState('/parent', 'SUCCEEDED');
    },
    60_000,
  );

  it.runIf(haveCgroups)(
    "cgroups left behind are removed at the next start; another cluster's stay",
    async () => {
      // Where this cluster keeps its attempt cgroups: seen while a task runs.
      const gate = c.gate('where');
      await c.submit(['--name', 'where', '--cpu', '0.1'], ['sh', '-c', gate.hold]);
      const running = await waitUntil(
        "the task's cgroups",
        async () => clusterCgroups(clusterId),
        (dirs) => dirs.length > 0,
        { client: c.client },
      );
      const mounts = [...new Set(running.map((d) => d.slice(0, d.indexOf('/iris/'))))];
      gate.open();
      await c.waitForState('/where', 'SUCCEEDED');
      await c.stop();
      // What a cluster killed between making an attempt's cgroup and starting it leaves, and
      // cgroups a task made inside its own.
      const other = `other-${marker('cluster')}`;
      const strangers: string[] = [];
      for (const mount of mounts) {
        mkdirSync(path.join(clusterCgroupDir(mount, clusterId), '%2Fgone%2Ftask-0.0'), { recursive: true });
        mkdirSync(path.join(clusterCgroupDir(mount, clusterId), '%2Fgone%2Ftask-1.2', 'made-by-the-task', 'deeper'), {
          recursive: true,
        });
        const stranger = path.join(clusterCgroupDir(mount, other), '%2Fx%2Ftask-0.0');
        mkdirSync(stranger, { recursive: true });
        strangers.push(stranger);
      }
      try {
        expect(clusterCgroups(clusterId).length).toBe(4 * mounts.length);
        await c.start();
        expect(clusterCgroups(clusterId)).toEqual([]);
        expect(clusterCgroups(other)).toEqual(strangers.sort());
      } finally {
        for (const stranger of strangers) {
          for (const dir of [stranger, path.dirname(stranger)]) {
            try {
              rmdirSync(dir);
            } catch {
              // gone
            }
          }
        }
      }
    },
    60_000,
  );
});
