/**
 * `exec` of the process and Docker runtimes (runtime/process/exec.ts, runtime/docker/exec.ts):
 * a command run inside a running attempt sees the task's environment and working directory, joins
 * a process task's cgroups, reads its stdin, reports its exit code, and with a terminal gets a
 * pseudo-terminal of the size asked for. The Docker half runs on the real engine.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../src/runtime/process/runtime.js';
import { DockerRuntime } from '../../src/runtime/docker/runtime.js';
import { terminalCommand } from '../../src/runtime/process/exec.js';
import type { ExecSession, RunningTask, TaskLaunch, TaskRuntime } from '../../src/runtime/types.js';
import { BUSYBOX, dockerTestEnv } from '../helpers/docker.js';

const MiB = 1024 * 1024;
const docker = await dockerTestEnv();

function collect(stream: Readable | null): Promise<string> {
  if (!stream) return Promise.resolve('');
  return new Promise((resolve) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (text += d));
    stream.once('end', () => resolve(text));
    stream.once('close', () => resolve(text));
  });
}

async function finish(session: ExecSession, input?: string): Promise<{ out: string; err: string; code: number }> {
  const out = collect(session.stdout);
  const err = collect(session.stderr);
  if (session.stdin) session.stdin.end(input ?? '');
  const code = await session.exited;
  return { out: await out, err: await err, code };
}

function launchOf(dir: string, cluster: string, n: number, over: Partial<TaskLaunch> = {}): TaskLaunch {
  const key = { job: '/ex', task: `/ex/task-${n}`, attempt: 0 };
  return {
    key,
    argv: ['sleep', '60'],
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', IRIS_TASK_ID: key.task, IRIS_CLUSTER_ID: cluster, LR: '0.1' },
    cwd: dir,
    logPath: join(dir, `task-${n}`, 'attempt-0.log'),
    resources: { cpuMillis: 250, memoryBytes: 128 * MiB, device: null },
    deviceIndices: [],
    labels: { 'iris.cluster': cluster, 'iris.job': key.job, 'iris.task': key.task, 'iris.attempt': '0' },
    ...over,
  };
}

describe('terminalCommand', () => {
  it("quotes every argument as one shell word, restores the task's SHELL and sets the size", () => {
    expect(terminalCommand(['sh', '-c', "echo '$HOME'; x"], { SHELL: '/bin/bash' }, { rows: 30, cols: 100 })).toBe(
      "stty rows 30 cols 100 2>/dev/null; SHELL='/bin/bash'; export SHELL; exec 'sh' '-c' 'echo '\\''$HOME'\\''; x'",
    );
    expect(terminalCommand(['top'], {})).toBe("unset SHELL; exec 'top'");
  });
});

describe('ProcessRuntime.exec', () => {
  let dir = '';
  const runtime = new ProcessRuntime();
  const cluster = `exec-test-${process.pid}`;
  let task: RunningTask;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'iris-exec-'));
    task = await runtime.launch(launchOf(dir, cluster, 0));
  });
  afterAll(async () => {
    await runtime.stop(task, 100);
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "runs in the task's environment, working directory and cgroups; stdout, stderr and the exit code come " + 'back',
    async () => {
      const session = await runtime.exec(task, {
        argv: ['sh', '-c', 'echo "id=$IRIS_TASK_ID lr=$LR pwd=$(pwd)"; cat /proc/self/cgroup; echo oops >&2; exit 3'],
        tty: false,
        stdin: false,
      });
      const { out, err, code } = await finish(session);
      expect(code).toBe(3);
      expect(out).toContain(`id=/ex/task-0 lr=0.1 pwd=${dir}`);
      expect(err).toBe('oops\n');
      const cgroups = await runtime.cgroups();
      if (cgroups) {
        // The task's own cgroup: the same line as the task's leader has.
        const leader = await readFile(`/proc/${task.pid}/cgroup`, 'utf8');
        const line = leader.split('\n').find((l) => l.includes('iris'))!;
        expect(out).toContain(line);
      }
    },
  );

  it('reads its stdin until it is closed', async () => {
    const session = await runtime.exec(task, { argv: ['cat'], tty: false, stdin: true });
    expect(await finish(session, 'line one\nline two\n')).toMatchObject({ out: 'line one\nline two\n', code: 0 });
  });

  it('with a terminal: a pseudo-terminal of the size asked for, input echoed, the exit code kept', async () => {
    const session = await runtime.exec(task, { argv: ['sh'], tty: true, stdin: true, size: { rows: 33, cols: 101 } });
    const { out, code } = await finish(session, 'tty; stty size; echo "in $(pwd)"; exit 7\n');
    expect(code).toBe(7);
    expect(out).toMatch(/\/dev\/pts\/\d+/);
    expect(out).toContain('33 101');
    expect(out).toContain(`in ${dir}`);
  });

  it('a command that is not there exits 127; an ended attempt is refused', async () => {
    const missing = await finish(await runtime.exec(task, { argv: ['no-such-command-x'], tty: false, stdin: false }));
    expect(missing.code).toBe(127);
    const ended = await runtime.launch(launchOf(dir, cluster, 1, { argv: ['true'] }));
    await ended.exited;
    await expect(runtime.exec(ended, { argv: ['true'], tty: false, stdin: false })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('kill() ends a command that would run on', async () => {
    const session = await runtime.exec(task, { argv: ['sleep', '300'], tty: false, stdin: false });
    const done = finish(session);
    session.kill();
    expect((await done).code).toBe(129);
  });
});

describe.skipIf(!docker.run)(`DockerRuntime.exec on the real engine (${docker.why})`, () => {
  let dir = '';
  const runtime: TaskRuntime & Required<Pick<TaskRuntime, 'exec'>> = new DockerRuntime();
  const cluster = `exec-docker-test-${process.pid}`;
  let task: RunningTask;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'iris-exec-docker-'));
    task = await runtime.launch(
      launchOf(dir, cluster, 0, {
        cwd: '/tmp',
        container: {
          image: BUSYBOX,
          devices: [],
          gpuIds: [],
          mounts: [],
          shmBytes: null,
          memlockUnlimited: false,
          privileged: false,
          network: 'bridge',
          user: '65534:65534',
        },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await runtime.stop(task, 100);
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "runs as the container's user, in its working directory, with its environment; the exit code comes " + 'back',
    async () => {
      const session = await runtime.exec(task, {
        argv: ['sh', '-c', 'echo "uid=$(id -u) pwd=$(pwd) id=$IRIS_TASK_ID"; echo oops >&2; exit 4'],
        tty: false,
        stdin: false,
      });
      const { out, err, code } = await finish(session);
      expect(code).toBe(4);
      expect(out).toBe('uid=65534 pwd=/tmp id=/ex/task-0\n');
      expect(err).toBe('oops\n');
    },
  );

  it('reads its stdin until it is closed', async () => {
    const session = await runtime.exec(task, { argv: ['cat'], tty: false, stdin: true });
    expect(await finish(session, 'a\nb\n')).toMatchObject({ out: 'a\nb\n', code: 0 });
  });

  it('with a terminal: one output stream from a pseudo-terminal of the size asked for', async () => {
    const session = await runtime.exec(task, { argv: ['sh'], tty: true, stdin: true, size: { rows: 40, cols: 120 } });
    expect(session.stderr).toBeNull();
    const out = collect(session.stdout);
    session.stdin!.write('tty; stty size; exit 5\n');
    const code = await session.exited;
    expect(code).toBe(5);
    const text = await out;
    expect(text).toMatch(/\/dev\/pts\/\d+/);
    expect(text).toContain('40 120');
  });
});
