/**
 * E2E with the real Docker engine: `iris submit --image …` runs each task attempt as a
 * container with the same task contract as a process (IRIS_* variables, exit codes, logs,
 * cancel, time limits), runs as nobody (65534) on bridge networking unless the job asks
 * otherwise, reports OOM kills, cleans up after a kill -9 of the cluster, and lets a task inside
 * a container submit child and grandchild container jobs over the bind-mounted controller socket.
 *
 * Needs an engine and the test images built by scripts/docker-setup.sh (npm test runs it and
 * sets IRIS_TEST_DOCKER=1). Under CI the file must not be skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUSYBOX,
  NODE_IMAGE as NODE,
  containersWithLabel,
  docker,
  dockerTestEnv,
  removeContainers,
} from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { type E2ECluster, byIndex, describeRun, parseEnvLines, waitUntil } from './harness.js';

const READY = (await dockerTestEnv()).run;

/** Containers (any state) carrying this cluster's label. */
function containersOf(clusterId: string): string[] {
  return containersWithLabel('iris.cluster', clusterId);
}

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
  - {name: w1, cpu: 4, memory: 4GiB}
`;

describe.skipIf(!READY)('Docker runtime end to end', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it('replicas run as containers with the IRIS_* contract and none of the host environment', async () => {
    const r = await c.iris(
      ['run', '--name', 'env', '--image', BUSYBOX, '--replicas', '3', '--cpu', '0.2', '-e', 'GREETING=hi', '--', 'env'],
      {
        env: { HOST_ONLY_SECRET: 'leak' },
      },
    );
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const job = await c.job('/env');
    expect(job.state).toBe('SUCCEEDED');
    for (const task of byIndex(job)) {
      const env = parseEnvLines((await c.logs(task.id)).map((l) => l.text).join('\n'));
      expect(env.IRIS_TASK_ID).toBe(task.id);
      expect(env.IRIS_TASK_INDEX).toBe(String(task.index));
      expect(env.IRIS_NUM_TASKS).toBe('3');
      expect(env.IRIS_JOB_ID).toBe('/env');
      expect(env.GREETING).toBe('hi');
      expect(env.IRIS_CONTROLLER_ADDRESS).toBe(`${c.home}/tasks/iris.sock`);
      expect(env.HOST_ONLY_SECRET).toBeUndefined();
    }
    expect(containersOf(clusterId)).toEqual([]);
  });

  it("a container gets the task door and not the owner's socket directory", async () => {
    const script = `ls ${c.home}/run >/dev/null 2>&1; echo "run rc=$?"; ls ${c.home}/tasks/iris.sock`;
    const r = await c.iris(['run', '--name', 'doors', '--image', BUSYBOX, '--cpu', '0.2', '--', 'sh', '-c', script]);
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const text = (await c.logs('/doors')).map((l) => l.text);
    expect(text).toContain('run rc=1');
    expect(text).toContain(`${c.home}/tasks/iris.sock`);
  });

  it(
    'a container runs as nobody (65534) on bridge networking by default; the job can ask for a user and ' + 'host',
    async () => {
      // /sys/class/net lists the engine's docker0 bridge only in the host's network namespace.
      const probe = ['sh', '-c', 'echo "uid=$(id -u) gid=$(id -g)"; echo "nets=$(ls /sys/class/net | tr "\\n" " ")"'];
      const plain = await c.iris(['run', '--name', 'nobody', '--image', BUSYBOX, '--', ...probe]);
      expect(plain.code, describeRun(['run', 'nobody'], plain)).toBe(0);
      const plainText = (await c.logs('/nobody/task-0')).map((l) => l.text).join('\n');
      expect(plainText).toContain('uid=65534 gid=65534');
      expect(plainText).toMatch(/nets=.*\beth0\b/);
      expect(plainText).not.toMatch(/\bdocker0\b/);

      const chosen = await c.iris([
        'run',
        '--name',
        'chosen',
        '--image',
        BUSYBOX,
        '--user-in-container',
        '1234:4321',
        '--network',
        'host',
        '--',
        ...probe,
      ]);
      expect(chosen.code, describeRun(['run', 'chosen'], chosen)).toBe(0);
      const chosenText = (await c.logs('/chosen/task-0')).map((l) => l.text).join('\n');
      expect(chosenText).toContain('uid=1234 gid=4321');
      expect(chosenText).toMatch(/\bdocker0\b/);
    },
  );

  it('exit codes, stdout and stderr reach the attempt and its log like a process task', async () => {
    const r = await c.iris([
      'run',
      '--name',
      'exit3',
      '--image',
      BUSYBOX,
      '--',
      'sh',
      '-c',
      'echo to-out; echo to-err >&2; exit 3',
    ]);
    expect(r.code).not.toBe(0);
    const job = await c.job('/exit3');
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.exitCode).toBe(3);
    const lines = await c.logs('/exit3/task-0');
    expect(lines.find((l) => l.text === 'to-out')?.stream).toBe('stdout');
    expect(lines.find((l) => l.text === 'to-err')?.stream).toBe('stderr');
  });

  it('a command missing from the image fails the attempt with a clear reason', async () => {
    await c.iris(['run', '--name', 'missing', '--image', BUSYBOX, '--', 'no-such-program']);
    const job = await c.job('/missing');
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/command not found: no-such-program/);
  });

  it('cancel stops the container (TERM, then KILL after the grace period) and removes it', async () => {
    const name = await c.submit(['--name', 'sleeper', '--image', BUSYBOX], ['sh', '-c', 'echo started; sleep 300']);
    await c.waitForLog(`${name}/task-0`, 'started');
    expect(containersOf(clusterId)).toHaveLength(1);
    const r = await c.iris(['cancel', name]);
    expect(r.code, describeRun(['cancel'], r)).toBe(0);
    const job = await c.waitForEnd(name);
    expect(job.state).toBe('KILLED');
    await waitUntil(
      'container removed',
      async () => containersOf(clusterId),
      (ids) => ids.length === 0,
    );
  });

  it('a container over its time limit is stopped: task and job TIMEOUT, reason time-limit', async () => {
    const name = await c.submit(['--name', 'limited', '--image', BUSYBOX, '--time-limit', '1s'], ['sleep', '120']);
    const job = await c.waitForEnd(name, { timeoutMs: 20_000 });
    expect(job.state).toBe('TIMEOUT');
    expect(job.taskList[0]!.state).toBe('TIMEOUT');
    expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/time-limit/);
  });

  it('a container the engine kills for memory (State.OOMKilled) ends OUT_OF_MEMORY', async () => {
    const name = await c.submit(
      ['--name', 'hog', '--image', BUSYBOX, '--memory', '16MiB'],
      ['sh', '-c', 'tail /dev/zero'],
    );
    const job = await c.waitForEnd(name, { timeoutMs: 30_000 });
    expect(job.state).toBe('OUT_OF_MEMORY');
    expect(job.taskList[0]!.state).toBe('OUT_OF_MEMORY');
    expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/OOM killed \(memory limit 16MiB\)/);
    const wait = await c.iris(['wait', name]);
    expect(wait.code, describeRun(['wait', name], wait)).toBe(1);
    expect(wait.stdout).toContain(`${name} OUT_OF_MEMORY`);
    const history = await c.json<Array<{ name: string }>>(['history', '--state', 'out-of-memory']);
    expect(history.map((r) => r.name)).toEqual([name]);
  });

  it('an image the engine does not have fails with a clear reason, not a stack trace', async () => {
    await c.iris(['run', '--name', 'noimage', '--image', 'iris-test/does-not-exist:1', '--', 'true'], {
      timeoutMs: 60_000,
    });
    const job = await c.job('/noimage');
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.attempts[0]!.reason).toMatch(/image not found: iris-test\/does-not-exist:1/);
  });

  it('a container task submits a child container job, which submits a grandchild', async () => {
    // Every container runs as the default unprivileged user (65534): the shim (0755 in a 0711
    // bin) and the task door (0666 in a 0711 directory) are reachable by it; the leaf inherits it.
    const grandchild = [
      'iris',
      'run',
      '--name',
      'leaf',
      '--image',
      BUSYBOX,
      '--',
      'sh',
      '-c',
      'echo leaf-ran-in $IRIS_JOB_ID as $(id -u)',
    ];
    const child = ['iris', 'run', '--name', 'mid', '--image', NODE, '--', ...grandchild];
    const r = await c.iris(['run', '--name', 'top', '--image', NODE, '--', ...child], { timeoutMs: 90_000 });
    expect(r.code, describeRun(['run', 'top'], r)).toBe(0);
    for (const name of ['/top', '/top/mid', '/top/mid/leaf']) expect((await c.job(name)).state).toBe('SUCCEEDED');
    const leaf = await c.logs('/top/mid/leaf/task-0');
    expect(leaf.map((l) => l.text)).toContain('leaf-ran-in /top/mid/leaf as 65534');
  });
});

describe.skipIf(!READY)('Docker runtime after a kill -9 of the cluster', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it(
    'removes unknown containers of this cluster, leaves other clusters alone and reruns the lost ' + 'attempt',
    async () => {
      const name = await c.submit(
        ['--name', 'survivor', '--image', BUSYBOX],
        ['sh', '-c', 'echo attempt-$IRIS_ATTEMPT; if [ "$IRIS_ATTEMPT" = 0 ]; then sleep 300; fi'],
      );
      await c.waitForLog(`${name}/task-0`, 'attempt-0');
      const orphan = docker([
        'run',
        '-d',
        '--label',
        `iris.cluster=${clusterId}`,
        '--label',
        'iris.task=/ghost/task-0',
        BUSYBOX,
        'sleep',
        '300',
      ]);
      const stranger = docker(['run', '-d', '--label', 'iris.cluster=some-other-cluster', BUSYBOX, 'sleep', '300']);
      try {
        process.kill(c.pid()!, 'SIGKILL');
        await waitUntil(
          'cluster gone',
          async () => c.pid() !== null && isAlive(c.pid()!),
          (alive) => !alive,
        );
        await c.start();
        const job = await c.waitForState(name, 'SUCCEEDED', { timeoutMs: 30_000 });
        const task = job.taskList[0]!;
        expect(task.attempts.map((a) => a.state)).toEqual(['PREEMPTED', 'SUCCEEDED']);
        expect(task.failures).toBe(0);
        await waitUntil(
          'containers of the first life removed',
          async () => containersOf(clusterId),
          (ids) => ids.length === 0,
        );
        expect(docker(['ps', '-aq', '--no-trunc', '--filter', `id=${orphan}`])).toBe('');
        expect(docker(['inspect', '-f', '{{.State.Running}}', stranger])).toBe('true');
      } finally {
        removeContainers([stranger, orphan]);
      }
    },
  );
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
