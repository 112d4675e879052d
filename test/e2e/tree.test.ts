/**
 * E2E: job trees — a three-level tree built from inside tasks (CLI and plain HTTP), what a task
 * may not create, children submitted from outside, refused children of ended parents, the
 * "parent job ended" kill of a failed parent's subtree, a succeeded parent's children running on
 * (`iris run`/`iris wait` wait for them, `iris status` says so, `iris cancel` stops them), and
 * `iris cancel` of a subtree.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JobSummary } from '../../src/api/types.js';
import {
  type E2ECluster,
  describeRun,
  marker,
  parseEnvLines,
  pidsWithMarker,
  waitUntil,
  withCluster,
} from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 8, memory: 8GiB}
`;

/** Lines of `target`'s logs whose text starts with `tag `, tag stripped. */
async function tagged(c: E2ECluster, target: string, tag: string): Promise<Record<string, string>> {
  const lines = (await c.logs(target)).map((l) => l.text).filter((t) => t.startsWith(tag + ' '));
  return parseEnvLines(lines.map((t) => t.slice(tag.length + 1)).join('\n'));
}

describe('job trees', () => {
  const c = withCluster(CONFIG);

  it('a task of /a submits /a/b whose task submits /a/b/c, each with the right IRIS_* variables', async () => {
    const printEnv = (tag: string) => `env | grep -E '^(IRIS_|TREE_VAR=)' | sed 's/^/${tag} /'`;
    const cScript = c.script('tree-c.sh', printEnv('C'));
    const bScript = c.script('tree-b.sh', `${printEnv('B')}\niris run --name c --cpu 0.1 -- sh '${cScript}'`);
    const aScript = c.script(
      'tree-a.sh',
      `${printEnv('A')}\nname=$(iris submit --name b --cpu 0.1 -- sh '${bScript}') || exit 1\necho "A submitted ` +
        `$name"\niris logs -f "$name" > /dev/null`,
    );
    const args = [
      'run',
      '--name',
      'a',
      '--cpu',
      '0.1',
      '--user',
      'alice',
      '-e',
      'TREE_VAR=inherited',
      '--',
      'sh',
      aScript,
    ];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    // `iris run a` streams the descendants' lines too, prefixed by their task.
    expect(r.stdout).toMatch(/ task-0\[0\] A submitted \/a\/b/);
    expect(r.stdout).toMatch(/ b\/task-0\[0\] B IRIS_JOB_ID=\/a\/b/);
    expect(r.stdout).toMatch(/ b\/c\/task-0\[0\] C IRIS_JOB_ID=\/a\/b\/c/);

    for (const [tag, job] of [
      ['A', '/a'],
      ['B', '/a/b'],
      ['C', '/a/b/c'],
    ] as const) {
      const env = await tagged(c, job, tag);
      expect(env, `${job} environment`).toMatchObject({
        IRIS_JOB_ID: job,
        IRIS_TASK_ID: `${job}/task-0`,
        IRIS_TASK_INDEX: '0',
        IRIS_NUM_TASKS: '1',
        IRIS_ATTEMPT: '0',
        IRIS_WORKER_ID: 'w0',
        IRIS_CONTROLLER_ADDRESS: path.join(c.home, 'tasks', 'iris.sock'),
        TREE_VAR: 'inherited',
      });
      const detail = await c.job(job);
      expect(detail.state).toBe('SUCCEEDED');
      expect(detail.user).toBe('alice');
      expect(detail.depth).toBe(job.split('/').length - 1);
    }
    expect((await c.job('/a')).children.map((j) => j.name)).toEqual(['/a/b']);
    expect((await c.job('/a/b')).parent).toBe('/a');
    expect((await c.job('/a/b/c')).parent).toBe('/a/b');
    const status = await c.iris(['status', 'a']);
    expect(status.code).toBe(0);
    for (const text of ['/a', 'SUCCEEDED', 'w0', '/a/b', 'alice']) expect(status.stdout).toContain(text);
    const tree = await c.json<JobSummary[]>(['jobs', '--prefix', 'a']);
    expect(tree.map((j) => j.name).sort()).toEqual(['/a', '/a/b', '/a/b/c']);
  });

  it('a plain HTTP request to the socket from a task creates a child of its job', async () => {
    const client = path.join(c.cwd, 'http-submit.mjs');
    writeFileSync(
      client,
      `import http from 'node:http';
const body = JSON.stringify({ name: 'viahttp', cpu: 0.1, command: ['sh', '-c', 'echo via-http $IRIS_JOB_ID'] });
const req = http.request({ socketPath: process.env.IRIS_CONTROLLER_ADDRESS, path: '/v1/jobs', method: 'POST',
  headers: { 'content-type': 'application/json', 'x-iris-task-token': process.env.IRIS_TASK_TOKEN } }, (res) => {
  let text = ''; res.on('data', (d) => (text += d)); res.on('end', () => { console.log('HTTP', res.statusCode, ` +
        `text); });
});
req.end(body);
`,
    );
    const script = c.script(
      'http.sh',
      `'${process.execPath}' '${client}' || exit 1\niris logs -f "$IRIS_JOB_ID/viahttp" > /dev/null`,
    );
    const args = ['run', '--name', 'h', '--cpu', '0.1', '--', 'sh', script];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toMatch(/HTTP 201 .*"name":"\/h\/viahttp"/);
    expect(r.stdout).toMatch(/viahttp\/task-0\[0\] via-http \/h\/viahttp/);
    expect((await c.job('/h/viahttp')).state).toBe('SUCCEEDED');
  });

  it('a task may not create a job outside its own job', async () => {
    const script = c.script('escape.sh', `iris submit --name /elsewhere/x --cpu 0.1 -- true\necho "rc=$?"`);
    const args = ['run', '--name', 'f', '--cpu', '0.1', '--', 'sh', script];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toMatch(/rc=4/);
    expect(r.stderr).toMatch(/may only create children under its own job \/f/);
    expect(await c.iris(['status', 'elsewhere/x'])).toMatchObject({ code: 3 });
    expect((await c.jobs()).some((j) => j.name.startsWith('/elsewhere'))).toBe(false);
  });

  it('an outside user may submit a child by path while the parent runs', async () => {
    await c.submit(['--name', 'p', '--cpu', '0.1'], ['sh', '-c', 'sleep 60']);
    await c.waitForState('/p', 'RUNNING');
    const child = await c.json<{ name: string; parent: string | null }>([
      'submit',
      '--name',
      'p/x',
      '--cpu',
      '0.1',
      '--',
      'true',
    ]);
    expect(child).toMatchObject({ name: '/p/x', parent: '/p' });
    await c.waitForState('/p/x', 'SUCCEEDED');
    expect((await c.job('/p')).children.map((j) => j.name)).toEqual(['/p/x']);
    expect((await c.iris(['cancel', 'p'])).code).toBe(0);
    await c.waitForState('/p', 'KILLED');
  });

  it('refuses a child under a parent that has ended', async () => {
    const r0 = await c.iris(['run', '--name', 'done', '--cpu', '0.1', '--', 'true']);
    expect(r0.code).toBe(0);
    const args = ['submit', '--name', 'done/late', '--cpu', '0.1', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(4);
    expect(r.stderr).toMatch(/\/done/);
    expect(r.stderr).toMatch(/ended|finished|SUCCEEDED/i);
    expect((await c.iris(['status', 'done/late'])).code).toBe(3);
  });

  // Before issue 31 this parent exited 0 and its children were killed all the same; seed 000 kills
  // them only when the parent ends non-successfully (a succeeded parent: the tests below).
  it('when a parent fails, its running and pending descendants are killed with "parent job ended"', async () => {
    const tag = marker('orphan');
    const started = path.join(c.cwd, 'kid.started');
    const kid = c.script('kid.sh', `touch '${started}'\nsleep 120`);
    const parent = c.script(
      'parent.sh',
      [
        `iris submit --name kid --cpu 0.1 -- sh '${kid}' ${tag} || exit 1`,
        `iris submit --name never --cpu 7.95 -- true || exit 1`,
        `while [ ! -f '${started}' ]; do sleep 0.05; done`,
        'echo parent-exits',
        'exit 3',
      ].join('\n'),
    );
    // The second child needs more CPU than is free while /pe and /pe/kid run: it stays pending.
    const args = ['run', '--name', 'pe', '--cpu', '0.1', '--', 'sh', parent];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(1);
    const pe = await c.waitForState('/pe', ['SUCCEEDED', 'FAILED']);
    expect(pe.state).toBe('FAILED');
    expect(existsSync(started)).toBe(true);
    for (const name of ['/pe/kid', '/pe/never']) {
      const job = await c.waitForState(name, 'KILLED');
      expect(job.reason).toBe('parent job ended');
      expect(job.taskList[0]!.state).toBe('KILLED');
    }
    await waitUntil(
      'the killed child process to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });

  it('a parent that succeeds leaves its child running; iris run waits for it, and the child succeeds', async () => {
    const started = path.join(c.cwd, 'bg.started');
    const gate = c.gate('bg');
    const bg = c.script('bg.sh', `touch '${started}'\n${gate.hold}\necho bg-done`);
    const script = `iris submit --name bg --cpu 0.1 -- sh '${bg}' || exit 1
while [ ! -f '${started}' ]; do sleep 0.05; done
exit 0`;
    const args = ['run', '--name', 'pok', '--cpu', '0.1', '--', 'sh', '-c', script];
    let returned = false;
    const run = c.iris(args, { timeoutMs: 60_000 }).finally(() => {
      returned = true;
    });
    const parent = await c.waitForState('/pok', ['SUCCEEDED', 'FAILED', 'KILLED']);
    expect(parent.state).toBe('SUCCEEDED');
    // The child runs on (before issue 31 it was KILLED "parent job ended").
    const child = await c.job('/pok/bg');
    expect(child.state, child.reason ?? '').toBe('RUNNING');
    const status = await c.iris(['status', 'pok']);
    expect(status.stdout).toMatch(/^State:\s+SUCCEEDED \(1 job below it still running or pending\)$/m);
    expect(status.stdout).toMatch(/Children:\n.*\n\s+\/pok\/bg\s+RUNNING/);
    // `iris wait` (like `iris run`) waits for the tree: not done while the child runs.
    const wait = await c.iris(['wait', 'pok', '--timeout', '0s']);
    expect(wait.code, describeRun(['wait', 'pok', '--timeout', '0s'], wait)).toBe(124);
    expect(returned).toBe(false);
    gate.open();
    const r = await run;
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('bg-done');
    const done = await c.job('/pok/bg');
    expect(done.state).toBe('SUCCEEDED');
    expect((await c.job('/pok')).liveDescendants).toBeUndefined();
  });

  it('iris cancel of a parent that succeeded stops the children it left running', async () => {
    const tag = marker('cancel-ended');
    const started = path.join(c.cwd, 'left.started');
    const left = c.script('left.sh', `touch '${started}'\nsleep 120`);
    const script = `iris submit --name left --cpu 0.1 -- sh '${left}' ${tag} || exit 1
while [ ! -f '${started}' ]; do sleep 0.05; done`;
    await c.submit(['--name', 'pcx', '--cpu', '0.1'], ['sh', '-c', script]);
    expect((await c.waitForState('/pcx', ['SUCCEEDED', 'FAILED'])).state).toBe('SUCCEEDED');
    expect((await c.job('/pcx/left')).state).toBe('RUNNING');
    const r = await c.iris(['cancel', 'pcx']);
    expect(r.code, describeRun(['cancel', 'pcx'], r)).toBe(0);
    // The job cancelled is the child, not the parent (which keeps SUCCEEDED): named as such.
    expect(r.stdout.trim()).toBe('cancelled /pcx/left (below /pcx, which had SUCCEEDED)');
    const left2 = await c.waitForState('/pcx/left', 'KILLED');
    expect(left2.reason).toBe('cancelled by user');
    expect((await c.job('/pcx')).state).toBe('SUCCEEDED');
    await waitUntil(
      'the cancelled child process to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });

  it('a succeeded parent with a child running: its name refused at once; jobs, wait and cancel say why', async () => {
    const gate = c.gate('held');
    const started = path.join(c.cwd, 'held.started');
    const held = c.script('held.sh', `touch '${started}'\n${gate.hold}`);
    const script = `iris submit --name bg --cpu 0.1 -- sh '${held}' || exit 1
while [ ! -f '${started}' ]; do sleep 0.05; done`;
    await c.submit(['--name', 'par', '--cpu', '0.1'], ['sh', '-c', script]);
    expect((await c.waitForState('/par', ['SUCCEEDED', 'FAILED'])).state).toBe('SUCCEEDED');
    expect((await c.job('/par/bg')).state).toBe('RUNNING');
    const run = (await c.job('/par')).run;
    const refusal = /job \/par\/bg under \/par is still RUNNING/;
    // Before: the submit (and the retry) waited until /par/bg ended; the gate stays shut, so they
    // would pass the 10 s limit here (the harness fails a command that does).
    const fast = { timeoutMs: 10_000 };
    for (const args of [
      ['submit', '--name', 'par', '--cpu', '0.1', '--', 'true'],
      ['submit', '--dry-run', '--name', 'par', '--cpu', '0.1', '--', 'true'],
    ]) {
      const r = await c.iris(args, fast);
      expect(r.code, describeRun(args, r)).toBe(4);
      expect(r.stderr).toMatch(refusal);
      expect(r.stdout).not.toMatch(/submitted|would start/);
    }
    const retry = await c.iris(['retry', 'par'], fast);
    expect(retry.code, describeRun(['retry', 'par'], retry)).toBe(4);
    expect(retry.stderr).toMatch(/job \/par succeeded/);
    expect((await c.job('/par')).run, 'no new run of /par').toBe(run);

    const jobs = await c.iris(['jobs', '--prefix', 'par']);
    expect(jobs.stdout).toMatch(/^\/par\s+\d+\s+SUCCEEDED\s.*\s1 job below it still running or pending\s*$/m);
    const wait = await c.iris(['wait', 'par', '--timeout', '0s']);
    expect(wait.code, describeRun(['wait', 'par', '--timeout', '0s'], wait)).toBe(124);
    expect(wait.stdout.trim()).toBe('/par SUCCEEDED (1 job below it still running or pending)');
    expect(wait.stderr).toContain(
      'timed out after 0s waiting for par (/par itself SUCCEEDED, 1 job below it still running or pending)',
    );
    const waitJson = await c.iris(['wait', 'par', '--timeout', '0s', '--json']);
    expect(waitJson.code).toBe(124);
    expect(JSON.parse(waitJson.stdout)).toMatchObject({
      done: false,
      jobs: [{ name: '/par', state: 'SUCCEEDED', liveDescendants: 1 }],
    });
    const listed = await c.json<JobSummary[]>(['jobs', '--prefix', 'par']);
    expect(listed.find((j) => j.name === '/par')?.liveDescendants).toBe(1);

    const cancel = await c.json<Record<string, unknown>>(['cancel', 'par']);
    expect(cancel).toEqual({
      cancelled: ['/par/bg'],
      alreadyEnded: [],
      below: [{ name: '/par', state: 'SUCCEEDED', cancelled: ['/par/bg'] }],
    });
    await c.waitForState('/par/bg', 'KILLED');
    // Once the subtree has ended, the name is free again (after the stopped child's process is gone).
    const again = await c.iris(['submit', '--name', 'par', '--cpu', '0.1', '--', 'true']);
    expect(again.code, describeRun(['submit', 'par'], again)).toBe(0);
    expect(again.stdout).toMatch(/\/par/);
  });

  it('iris run of a parent that succeeded while its child failed: one line names the child, exit code 0', async () => {
    const script = `iris submit --name bg --cpu 0.1 -- sh -c 'exit 5' || exit 1
exit 0`;
    const args = ['run', '--name', 'pf', '--cpu', '0.1', '--', 'sh', '-c', script];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stderr).toContain('iris: /pf/bg FAILED (exit 5); /pf itself SUCCEEDED\n');
    expect((await c.job('/pf')).state).toBe('SUCCEEDED');
    // And no such line when every job below succeeded.
    const ok = ['run', '--name', 'pg', '--cpu', '0.1', '--', 'sh', '-c', 'iris submit --name bg --cpu 0.1 -- true'];
    const r2 = await c.iris(ok, { timeoutMs: 60_000 });
    expect(r2.code, describeRun(ok, r2)).toBe(0);
    expect(r2.stderr).not.toMatch(/itself SUCCEEDED/);
  });

  it('iris cancel kills the whole subtree; finished descendants keep their state', async () => {
    const tag = marker('cancel-tree');
    await c.submit(['--name', 'cx', '--cpu', '0.1'], ['sh', '-c', 'sleep 120', tag]);
    await c.waitForState('/cx', 'RUNNING');
    await c.submit(['--name', 'cx/done', '--cpu', '0.1'], ['true']);
    await c.waitForState('/cx/done', 'SUCCEEDED');
    await c.submit(['--name', 'cx/run', '--cpu', '0.1'], ['sh', '-c', 'sleep 120', tag]);
    await c.waitForState('/cx/run', 'RUNNING');
    await c.submit(['--name', 'cx/run/deep', '--cpu', '0.1'], ['sh', '-c', 'sleep 120', tag]);
    await c.waitForState('/cx/run/deep', 'RUNNING');
    // RUNNING is recorded at launch; await the three processes themselves.
    await waitUntil(
      'three subtree processes',
      async () => pidsWithMarker(tag),
      (p) => p.length >= 3,
    );

    const r = await c.iris(['cancel', 'cx']);
    expect(r.code, describeRun(['cancel', 'cx'], r)).toBe(0);
    for (const name of ['/cx', '/cx/run', '/cx/run/deep']) await c.waitForState(name, 'KILLED');
    expect((await c.job('/cx/done')).state).toBe('SUCCEEDED');
    await waitUntil(
      'cancelled processes to be gone',
      async () => pidsWithMarker(tag),
      (p) => p.length === 0,
    );
  });
});
