/**
 * E2E (issue 30, §3): `iris exec JOB/task-N -- CMD` with the built binary into a running process
 * task: the command runs in the task's working directory with its environment (IRIS_* included),
 * its output streams back and its exit code is iris's; `-i` sends stdin; `-it` gives a shell in a
 * real pseudo-terminal (driven through `script`), the size of the caller's terminal; every exec is
 * recorded on the task and listed by `iris status`. The refusals, each with its message and exit
 * code: a task that is not running (exit 3 with its state), an ended job, an attempt that is not
 * the current one, something that is no task (exit 2), and a task exec'ing outside its own job's
 * subtree (exit 4). The same into a container on the real engine: test/e2e/exec-docker.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';
import { HAS_SCRIPT, irisInPty } from './pty.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
if (!HAS_SCRIPT && !inCI) console.warn("skipping the pty test of iris exec -it: util-linux's script is not installed");

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

describe('iris exec into a running process task', () => {
  const c = withCluster(CONFIG, 60_000);
  const gate = (): ReturnType<typeof c.gate> => c.gate('sleeper');

  it("runs the command in the task's directory and environment, streams its output, exits with its code", async () => {
    const command = ['sh', '-c', `echo ready; ${gate().hold}`];
    await c.submit(['--name', 'sleeper', '-e', 'LR=0.5', '--cpu', '0.2'], command);
    await c.waitForLog('/sleeper/task-0', 'ready');
    const probe = 'echo "id=$IRIS_TASK_ID n=$IRIS_NUM_TASKS lr=$LR pwd=$(pwd)"; echo oops >&2; exit 3';
    const args = ['exec', 'sleeper/task-0', '--', 'sh', '-c', probe];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(3);
    expect(r.stdout).toBe(`id=/sleeper/task-0 n=1 lr=0.5 pwd=${c.cwd}\n`);
    expect(r.stderr).toBe('oops\n');
    const ok = await c.iris(['exec', '/sleeper/task-0', '--', 'true']);
    expect(ok.code, describeRun(['exec', '/sleeper/task-0'], ok)).toBe(0);
  });

  it('-i sends stdin to the command; without -i it reads nothing', async () => {
    const cat = ['sleeper/task-0', '--', 'sh', '-c', 'cat; echo end'];
    const withInput = await c.iris(['exec', '-i', ...cat], { input: 'line one\nline two\n' });
    expect(withInput.code, describeRun(['exec', '-i'], withInput)).toBe(0);
    expect(withInput.stdout).toBe('line one\nline two\nend\n');
    const without = await c.iris(['exec', ...cat], { input: 'ignored\n' });
    expect(without.stdout).toBe('end\n');
  });

  const ptyTest = it.skipIf(!HAS_SCRIPT && !inCI);
  ptyTest("-it: a shell in a pty of the caller's size; what is typed runs there; exit code kept", async () => {
    const r = await irisInPty(['exec', '-it', 'sleeper/task-0', '--', 'sh'], {
      cwd: c.cwd,
      env: c.env,
      rows: 33,
      cols: 101,
      ready: /[$#] /,
      input: 'tty; stty size; echo "in=$(pwd) id=$IRIS_TASK_ID"; exit 7\n',
    });
    expect(r.code, `terminal: ${r.stdout}\nstderr: ${r.stderr}`).toBe(7);
    expect(r.stdout).toMatch(/\/dev\/pts\/\d+/);
    expect(r.stdout).toContain('33 101');
    expect(r.stdout).toContain(`in=${c.cwd} id=/sleeper/task-0`);
  });

  it('every exec is recorded on the task and listed by iris status (who, which attempt, what)', async () => {
    const status = await c.iris(['status', '/sleeper']);
    expect(status.stdout).toMatch(/^Execs:$/m);
    expect(status.stdout).toMatch(/task-0#0 +owner \(\S+\) +sh -c 'echo "id=\$IRIS_TASK_ID/);
    expect(status.stdout).toMatch(/task-0#0 +owner \(\S+\) +true$/m);
    if (HAS_SCRIPT) expect(status.stdout).toMatch(/task-0#0 +owner \(\S+\) +\(tty\) sh$/m);
    const job = await c.job('/sleeper');
    expect(job.execs?.total).toBe(HAS_SCRIPT ? 5 : 4);
    const first = { task: '/sleeper/task-0', attempt: 0, by: { kind: 'owner' }, tty: false };
    expect(job.execs?.recent[0]).toMatchObject(first);
  });

  it.each<[string, () => string[], number, RegExp]>([
    [
      'a task that is not running yet: exit 3 with its state',
      () => ['later/task-0', '--', 'true'],
      3,
      /^Error: \/later\/task-0 is PENDING, not running( \(.+\))?: nothing to exec into\nHint: wait until it runs/,
    ],
    [
      'a job that has ended: exit 3',
      () => ['done/task-0', '--', 'true'],
      3,
      new RegExp(
        '^Error: job /done has ended \\(SUCCEEDED\\): nothing runs in /done/task-0 to exec into\n' +
          'Hint: see its state with `iris status /done`',
      ),
    ],
    [
      'an attempt the task never had: exit 3',
      () => ['sleeper/task-0', '--attempt', '4', '--', 'true'],
      3,
      /^Error: \/sleeper\/task-0 has no attempt 4; its current attempt is 0\nHint: leave --attempt out/,
    ],
    ['a task the job does not have: exit 3', () => ['sleeper/task-9', '--', 'true'], 3, /^Error: .*task-9/],
    ['a job that is not there: exit 3', () => ['nosuch/task-0', '--', 'true'], 3, /^Error: .*\/nosuch/],
    [
      'a name that is no task: exit 2',
      () => ['sleeper', '--', 'true'],
      2,
      /^Error: "\/?sleeper" is not a task: exec runs in one task, JOB\/task-N/,
    ],
    ['no command: exit 2', () => ['sleeper/task-0'], 2, /^Error: no command given\nHint: put the command after "--"/],
  ])('refuses %s', async (_what, argv, code, message) => {
    if ((await c.jobs()).every((j) => j.name !== '/done')) {
      expect((await c.json<JobDetail>(['run', '--name', 'done', '--', 'true'])).state).toBe('SUCCEEDED');
      await c.submit(['--name', 'later', '--after', 'sleeper'], ['true']);
    }
    const args = ['exec', ...argv()];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it("a task may exec only into its own job's subtree (exit 4); into its own child it may", async () => {
    const kid = `iris submit --name kid -- sh -c 'echo kid-up; ${gate().hold}' >/dev/null`;
    const script = [
      kid,
      'until iris exec kid/task-0 -- true 2>/dev/null; do sleep 0.1; done',
      'iris exec kid/task-0 -- sh -c \'echo "inside=$IRIS_TASK_ID"\'; echo "own=$?"',
      'iris exec /sleeper/task-0 -- true; echo "other=$?"',
    ].join('\n');
    await c.submit(['--name', 'prober', '--cpu', '0.2'], ['sh', '-c', script]);
    await c.waitForLog('/prober/task-0', 'other=', { timeoutMs: 30_000 });
    const text = (await c.logs('/prober/task-0')).map((l) => l.text).join('\n');
    expect(text).toContain('inside=/prober/kid/task-0');
    expect(text).toContain('own=0');
    expect(text).toContain('Error: a task may only exec into jobs within its own job /prober; /sleeper/task-0 is');
    expect(text).toContain('other=4');
    const kidJob = await c.job('/prober/kid');
    expect(kidJob.execs?.recent.some((e) => e.by.kind === 'task' && e.by.task === '/prober/task-0')).toBe(true);
    expect((await c.job('/sleeper')).execs?.recent.every((e) => e.by.kind === 'owner')).toBe(true);
    gate().open();
    expect((await c.waitForEnd('/sleeper')).state).toBe('SUCCEEDED');
  });
});
