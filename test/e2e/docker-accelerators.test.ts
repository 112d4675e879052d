/**
 * E2E with the real Docker engine, accelerators and worker failures: a job on a 4-host virtual
 * TPU slice (declared with `slices:` and stand-in chip devices) runs one container per host with
 * that host's chips mounted and the multi-host TPU variables; GPU tasks reach the engine as
 * NVIDIA device requests for disjoint GPUs and fail with a clear reason where the engine has no
 * NVIDIA runtime; a container removed from outside is a preemption, not a task failure.
 *
 * Needs an engine and the test images built by scripts/docker-setup.sh (npm test runs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostMemlockHardLimit } from '../../src/runtime/docker/memlock.js';
import { BUSYBOX, containersWithLabel, docker, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { type E2ECluster, byIndex, describeRun, parseEnvLines, waitUntil } from './harness.js';

const READY = (await dockerTestEnv()).run;
const HAS_NVIDIA =
  READY && Object.keys(JSON.parse(docker(['info', '--format', '{{json .Runtimes}}'])) as object).includes('nvidia');

const CONFIG = `
stop-grace: 1s
workers:
  - {name: cpu-0, cpu: 2, memory: 2GiB}
  - {name: gpu-0, cpu: 2, memory: 2GiB, gpu: {variant: H100, count: 8}}
slices:
  - {name: slice-a, tpu: v5litepod-16, cpu: 1, memory: 2GiB, devices: [/dev/zero, /dev/zero, /dev/zero, /dev/zero]}
`;

describe.skipIf(!READY)('Docker runtime with accelerators', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it(
    'a 4-host TPU slice job: one container per host, task i on host i, its chips mounted, the TPU and JAX ' +
      'variables set',
    async () => {
      const probe =
        'env; echo "chips $(ls /dev/accel* | tr "\\n" " ")"; echo "read $(head -c 8 /dev/accel3 | wc -c)"; echo ' +
        '"memlock $(ulimit -l)"';
      const args = [
        'run',
        '--name',
        'pretrain',
        '--image',
        BUSYBOX,
        '--tpu',
        'v5litepod-16',
        '--cpu',
        '0.5',
        '--',
        'sh',
        '-c',
        probe,
      ];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      const job = await c.job('/pretrain');
      expect(job.replicas).toBe(4);
      const tasks = byIndex(job);
      expect(tasks.map((t) => t.workerId)).toEqual(['slice-a-0', 'slice-a-1', 'slice-a-2', 'slice-a-3']);
      const ports = new Set<string>();
      for (const task of tasks) {
        const lines = (await c.logs(task.id)).map((l) => l.text);
        const env = parseEnvLines(lines.join('\n'));
        expect(env).toMatchObject({
          IRIS_TASK_INDEX: String(task.index),
          IRIS_NUM_TASKS: '4',
          TPU_WORKER_ID: String(task.index),
          TPU_WORKER_HOSTNAMES: 'localhost,localhost,localhost,localhost',
          TPU_ACCELERATOR_TYPE: 'v5litepod-16',
          TPU_CHIPS_PER_HOST_BOUNDS: '2,2,1',
          TPU_HOST_BOUNDS: '2,2,1',
          TPU_SKIP_MDS_QUERY: '1',
          TPU_VISIBLE_CHIPS: '0,1,2,3',
          JAX_NUM_PROCESSES: '4',
          JAX_PROCESS_ID: String(task.index),
        });
        ports.add(env.JAX_COORDINATOR_ADDRESS!);
        expect(lines).toContain('chips /dev/accel0 /dev/accel1 /dev/accel2 /dev/accel3 ');
        expect(lines).toContain('read 8');
        // Unlimited where the engine may raise it; otherwise the host's hard limit, and the log says so.
        const memlock = lines.find((l) => l.startsWith('memlock '))!;
        if (memlock !== 'memlock unlimited') {
          expect(memlock).toBe(`memlock ${hostMemlockHardLimit()! / 1024}`);
          expect(lines.join('\n')).toMatch(
            /iris: the Docker engine cannot raise memlock to unlimited here; running with the host's hard limit/,
          );
        }
      }
      expect([...ports]).toHaveLength(1);
      expect([...ports][0]).toMatch(/^localhost:\d+$/);
    },
  );

  it.skipIf(HAS_NVIDIA)(
    'a GPU job with --image is refused at submit without the NVIDIA runtime: no job, no container',
    async () => {
      // Issue 30: refused at submit (exit 5), not failed at launch; docs/cli.md, "The submit directory and mounts".
      const args = [
        'run',
        '--name',
        'cuda',
        '--image',
        BUSYBOX,
        '--gpu',
        'H100x2',
        '--replicas',
        '2',
        '--cpu',
        '0.5',
        '--',
        'true',
      ];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(5);
      expect(r.stderr).toContain('the Docker engine has no NVIDIA runtime');
      const jobs = await c.iris(['jobs', '--json']);
      expect(JSON.parse(jobs.stdout).map((j: { name: string }) => j.name)).not.toContain('/cuda');
      expect(containersWithLabel('iris.task', '/cuda/task-0')).toEqual([]);
      expect(containersWithLabel('iris.task', '/cuda/task-1')).toEqual([]);
    },
  );

  it('a container removed from outside is a preemption and the task runs again', async () => {
    const name = await c.submit(
      ['--name', 'fragile', '--image', BUSYBOX],
      ['sh', '-c', 'echo attempt-$IRIS_ATTEMPT; if [ "$IRIS_ATTEMPT" = 0 ]; then sleep 300; fi'],
    );
    await c.waitForLog(`${name}/task-0`, 'attempt-0');
    const ids = docker([
      'ps',
      '-q',
      '--filter',
      `label=iris.cluster=${clusterId}`,
      '--filter',
      'label=iris.task=/fragile/task-0',
    ])
      .split('\n')
      .filter(Boolean);
    expect(ids).toHaveLength(1);
    docker(['rm', '-f', ids[0]!]);
    const job = await c.waitForState(name, 'SUCCEEDED', { timeoutMs: 30_000 });
    const task = job.taskList[0]!;
    expect(task.attempts.map((a) => a.state)).toEqual(['PREEMPTED', 'SUCCEEDED']);
    expect(task.attempts[0]!.reason).toMatch(/vanished/);
    expect(task.failures).toBe(0);
    await waitUntil(
      'no container left',
      async () => containersWithLabel('iris.cluster', clusterId),
      (ids) => ids.length === 0,
    );
  });
});
