import { describe, expect, it } from 'vitest';
import { RuntimeRouter } from '../../src/runtime/router.js';
import type { RunningTask, TaskLaunch, TaskRuntime } from '../../src/runtime/types.js';

/** A runtime that records what reached it (the router's own logic is all this tests). */
function recorder(name: string): TaskRuntime & { launched: string[]; stopped: string[]; reclaimed: number } {
  const rt = {
    name,
    launched: [] as string[],
    stopped: [] as string[],
    reclaimed: 0,
    async launch(l: TaskLaunch): Promise<RunningTask> {
      rt.launched.push(l.key.task);
      return { key: l.key, pid: 1, exited: Promise.resolve({ exitCode: 0, signal: null }) };
    },
    async stop(t: RunningTask): Promise<void> {
      rt.stopped.push(t.key.task);
    },
    async reclaim() {
      rt.reclaimed++;
      return [{ job: '/j', task: `/j/${name}`, attempt: 0 }];
    },
    async close() {},
  };
  return rt;
}

const launch = (task: string, image: string | null): TaskLaunch => ({
  key: { job: '/j', task, attempt: 0 },
  argv: ['true'],
  env: {},
  cwd: '',
  logPath: '/tmp/x.log',
  resources: { cpuMillis: 1, memoryBytes: 1, device: null },
  deviceIndices: [],
  labels: {},
  container:
    image === null
      ? null
      : {
          image,
          devices: [],
          gpuIds: [],
          mounts: [],
          shmBytes: null,
          memlockUnlimited: false,
          privileged: false,
          network: 'host',
        },
});

describe('RuntimeRouter', () => {
  it(
    'sends container launches to the container runtime and stops each task on the runtime that started ' + 'it',
    async () => {
      const proc = recorder('process');
      const docker = recorder('docker');
      let created = 0;
      const router = new RuntimeRouter({ process: proc, container: () => (created++, docker) });
      const a = await router.launch(launch('/j/task-0', null));
      expect(created).toBe(0);
      const b = await router.launch(launch('/j/task-1', 'busybox'));
      await router.launch(launch('/j/task-2', 'busybox'));
      expect(created).toBe(1);
      expect(proc.launched).toEqual(['/j/task-0']);
      expect(docker.launched).toEqual(['/j/task-1', '/j/task-2']);
      await router.stop(b, 10);
      await router.stop(a, 10);
      expect(docker.stopped).toEqual(['/j/task-1']);
      expect(proc.stopped).toEqual(['/j/task-0']);
    },
  );

  it('reclaims from both runtimes, and skips containers when no engine answers', async () => {
    const proc = recorder('process');
    const docker = recorder('docker');
    const up = new RuntimeRouter({ process: proc, container: () => docker, containerReachable: async () => true });
    expect((await up.reclaim('c', [], 10)).map((k) => k.task)).toEqual(['/j/process', '/j/docker']);
    const down = new RuntimeRouter({ process: proc, container: () => docker, containerReachable: async () => false });
    expect((await down.reclaim('c', [], 10)).map((k) => k.task)).toEqual(['/j/process']);
    expect(docker.reclaimed).toBe(1);
  });

  it('logs and survives a container reclaim that fails', async () => {
    const proc = recorder('process');
    const broken: TaskRuntime = {
      ...recorder('docker'),
      reclaim: async () => {
        throw new Error('engine went away');
      },
    };
    const logs: string[] = [];
    const router = new RuntimeRouter({ process: proc, container: () => broken, log: (m) => logs.push(m) });
    expect(await router.reclaim('c', [], 10)).toHaveLength(1);
    expect(logs[0]).toContain('engine went away');
  });

  it(
    'builds an asynchronous container runtime once for concurrent first launches, and again after a failed ' + 'build',
    async () => {
      const proc = recorder('process');
      const docker = recorder('docker');
      let builds = 0;
      let fail = true;
      const router = new RuntimeRouter({
        process: proc,
        container: async () => {
          builds++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (fail) throw new Error('cannot load the Docker client');
          return docker;
        },
      });
      await expect(router.launch(launch('/j/task-0', 'busybox'))).rejects.toThrow('cannot load the Docker client');
      fail = false;
      await Promise.all([router.launch(launch('/j/task-1', 'busybox')), router.launch(launch('/j/task-2', 'busybox'))]);
      expect(builds).toBe(2);
      expect(docker.launched.sort()).toEqual(['/j/task-1', '/j/task-2']);
      await router.close();
    },
  );
});
