/**
 * E2E: submit and run — printed and generated names, exit codes of `iris run`, replicas and the
 * IRIS_* task environment, -e variables, and every kind of refused submission (reserved env,
 * invalid names, impossible requests, malformed flags, unknown jobs, a name still running).
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, SubmitResponse } from '../../src/api/types.js';
import { spawn } from 'node:child_process';
import { BIN, byIndex, cleanEnv, describeRun, parseEnvLines, withCluster } from './harness.js';

const tpuWorker = (i: number) =>
  `  - {name: tpu-a-${i}, cpu: 1, memory: 1GiB, tpu: {variant: v5litepod-16}, attributes: {tpu-name: slice-a, ` +
  `tpu-worker-id: ${i}}}`;
const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB, attributes: {region: us-central1}}
  - {name: gpu-0, cpu: 2, memory: 4GiB, gpu: {variant: H100, count: 8}}
${[0, 1, 2, 3].map(tpuWorker).join('\n')}
`;

describe('submit and run', () => {
  const c = withCluster(CONFIG);

  it('prints the job name; a leading slash is optional; --json returns the SubmitResponse', async () => {
    const a = await c.iris(['submit', '--name', 'hello', '--cpu', '0.1', '--', 'true']);
    expect(a.code, describeRun(['submit'], a)).toBe(0);
    expect(a.stdout.trim()).toBe('/hello');
    const b = await c.json<SubmitResponse>([
      'submit',
      '--name',
      '/slashed',
      '--cpu',
      '0.1',
      '--replicas',
      '2',
      '--',
      'true',
    ]);
    expect(b).toMatchObject({ name: '/slashed', tasks: 2, parent: null, generated: false });
    await c.waitForState('/hello', 'SUCCEEDED');
    await c.waitForState('/slashed', 'SUCCEEDED');
  });

  it('generates unique readable names when --name is left out', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => c.json<SubmitResponse>(['submit', '--cpu', '0.1', '--', 'true'])),
    );
    const names = results.map((r) => r.name);
    expect(new Set(names).size).toBe(6);
    for (const r of results) {
      expect(r.generated).toBe(true);
      expect(r.name).toMatch(/^\/[a-z0-9][a-z0-9-]*$/);
    }
    for (const name of names) await c.waitForState(name, 'SUCCEEDED');
  });

  it('iris run exits 0 when the job succeeds and non-zero when it fails, streaming the output', async () => {
    const ok = await c.iris(['run', '--cpu', '0.1', '--', 'true']);
    expect(ok.code, describeRun(['run', '--', 'true'], ok)).toBe(0);
    const echo = await c.iris(['run', '--cpu', '0.1', '--', 'sh', '-c', 'echo hello-from-run']);
    expect(echo.code).toBe(0);
    expect(echo.stdout).toMatch(/task-0\[0\] hello-from-run/);
    const bad = await c.iris(['run', '--name', 'exit3', '--cpu', '0.1', '--', 'sh', '-c', 'exit 3']);
    expect(bad.code, describeRun(['run', '--', 'sh', '-c', 'exit 3'], bad)).not.toBe(0);
    expect(bad.code).not.toBeNull();
    const job = await c.job('/exit3');
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.exitCode).toBe(3);
  });

  it('replicas become tasks /j/task-0..N-1 with the IRIS_* variables and the -e variables', async () => {
    const args = [
      'run',
      '--name',
      'envs',
      '--replicas',
      '3',
      '--cpu',
      '0.1',
      '-e',
      'FOO=bar',
      '-e',
      'EQ=a=b=c',
      '-e',
      'EMPTY=',
      '--',
      'sh',
      '-c',
      'env | grep -E "^(IRIS_|FOO=|EQ=|EMPTY=)" | sort',
    ];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    const job = await c.job('/envs');
    expect(job.state).toBe('SUCCEEDED');
    const tasks = byIndex(job);
    expect(tasks.map((t) => t.id)).toEqual(['/envs/task-0', '/envs/task-1', '/envs/task-2']);
    for (const task of tasks) {
      const env = parseEnvLines((await c.logs(task.id)).map((l) => l.text).join('\n'));
      expect(env).toMatchObject({
        IRIS_JOB_ID: '/envs',
        IRIS_TASK_ID: task.id,
        IRIS_TASK_INDEX: String(task.index),
        IRIS_NUM_TASKS: '3',
        IRIS_ATTEMPT: '0',
        IRIS_WORKER_ID: task.workerId!,
        IRIS_CONTROLLER_ADDRESS: `${c.home}/tasks/iris.sock`,
        FOO: 'bar',
        EQ: 'a=b=c',
        EMPTY: '',
      });
    }
  });

  it('tasks run in the submitting directory by default, or in --cwd', async () => {
    const here = await c.iris(['run', '--cpu', '0.1', '--', 'pwd']);
    expect(here.code).toBe(0);
    expect(here.stdout).toMatch(new RegExp(`task-0\\[0\\] ${c.cwd}$`, 'm'));
    const there = await c.iris(['run', '--cpu', '0.1', '--cwd', '/tmp', '--', 'pwd']);
    expect(there.stdout).toMatch(/task-0\[0\] \/tmp$/m);
  });

  it('refuses reserved IRIS_ environment names', async () => {
    const args = ['submit', '-e', 'IRIS_JOB_ID=/evil', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(/IRIS_JOB_ID/);
    expect(r.stderr).toMatch(/reserved/i);
  });

  it.each([
    ['task-3', /reserved for task names/],
    ['a/task-0', /reserved for task names/],
    ['..', /"\.\." is not allowed/],
    ['a//b', /may not be empty/],
    ['bad name!', /may only contain/],
  ])('refuses the invalid name %j with the rule it breaks', async (name, rule) => {
    const args = ['submit', '--name', name, '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(rule);
  });

  it(
    'refuses --replicas that does not match the hosts of a multi-host TPU variant, saying how many it ' + 'has',
    async () => {
      const args = ['submit', '--tpu', 'v5litepod-16', '--replicas', '5', '--', 'true'];
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(2);
      expect(r.stderr).toMatch(/v5litepod-16 has 4 hosts; --replicas 5 would need a slice of 5 hosts/);
      expect(r.stderr).toMatch(/leave --replicas out or give 4/);
    },
  );

  it.each([
    [['--cpu', '1000'], /need 1000 CPU, largest worker has 4/],
    [['--memory', '1TiB'], /need 1TiB memory/],
    [['--gpu', 'A100'], /no gpu worker of variant A100/],
    [['--gpu', 'H100x16'], /need 16 .*largest gpu worker has 8/],
    [['--replicas', '5', '--coschedule', 'tpu-name'], /need 5 workers in one tpu-name group, largest group has 4/],
    [['--tpu', 'v5p-8'], /no tpu worker of variant v5p-8/],
    [['-c', 'region=mars'], /no worker satisfies constraint/],
    [['--coschedule', 'rack', '--replicas', '2'], /rack/],
  ])('refuses an impossible request %j at submit with the reason', async (flags, reason) => {
    const args = ['submit', ...flags, '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(5);
    expect(r.stderr).toMatch(reason);
    expect(r.stderr).toMatch(/can never run/);
  });

  it.each([
    [['submit', '--replicas', 'abc', '--', 'true']],
    [['submit', '--replicas', '0', '--', 'true']],
    [['submit', '--bogus-flag', '--', 'true']],
    [['submit', '--cpu', 'lots', '--', 'true']],
    [['submit', '--memory', '12 parsecs', '--', 'true']],
    [['submit', '--timeout', 'forever', '--', 'true']],
    [['submit', '-e', 'NOEQUALS', '--', 'true']],
    [['submit', '-c', '>>', '--', 'true']],
    [['submit']],
    [['status']],
    [['logs', 'x', '--tail', 'many']],
    [['jobs', '--state', 'sleepy']],
  ])('malformed flags %j exit 2 with a message', async (args) => {
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(/Error/);
  });

  it.each([
    // The flag and the value as typed (issue 34), not `--time-limit: invalid duration "5x"`.
    [['submit', '--time-limit', '5x', '--', 'true'], '--time-limit 5x: not a duration'],
    [['submit', '--scheduling-timeout', 'soon', '--', 'true'], '--scheduling-timeout soon: not a duration'],
    [['submit', '--dry-run', '--time-limit', '5x', '--', 'true'], '--time-limit 5x: not a duration'],
  ])('an invalid value of %j names the flag, not the API field', async (args, message) => {
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toContain(`Error: ${message}`);
    expect(r.stderr).not.toMatch(/timeLimit|schedulingTimeout/);
  });

  it.each([[['status', 'nope']], [['cancel', 'nope']], [['logs', 'nope']], [['logs', 'nope/task-0']]])(
    'an unknown job for %j is a clear error with exit 3',
    async (args) => {
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(3);
      expect(r.stderr).toMatch(/unknown (job|task) \/nope/);
    },
  );

  it('refuses a name that is still running and replaces a finished one', async () => {
    await c.submit(['--name', 'dup', '--cpu', '0.1'], ['sh', '-c', 'sleep 60']);
    await c.waitForState('/dup', 'RUNNING');
    const again = await c.iris(['submit', '--name', 'dup', '--', 'true']);
    expect(again.code, describeRun(['submit', '--name', 'dup'], again)).toBe(4);
    expect(again.stderr).toMatch(/\/dup/);
    const cancel = await c.iris(['cancel', 'dup']);
    expect(cancel.code).toBe(0);
    await c.waitForState('/dup', 'KILLED');
    expect(await c.submit(['--name', 'dup', '--cpu', '0.1'], ['sh', '-c', 'echo second'])).toBe('/dup');
    const job: JobDetail = await c.waitForState('/dup', 'SUCCEEDED');
    expect(job.command).toEqual(['sh', '-c', 'echo second']);
  });

  it('Ctrl-C on iris run cancels the job and exits 130', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--name', 'interrupted', '--cpu', '0.1', '--', 'sh', '-c', 'echo started; sleep 120; :'],
      {
        cwd: c.cwd,
        env: cleanEnv(c.env),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await c.waitForLog('/interrupted', 'started');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const job = await c.waitForEnd('/interrupted');
    expect(job.state).toBe('KILLED');
  });
});
