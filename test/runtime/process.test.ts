import { mkdtemp, readFile, realpath, rm, writeFile, chmod } from 'node:fs/promises';
import { parseMounts } from '../../src/runtime/process/cgroup.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime, LaunchError } from '../../src/runtime/process/runtime.js';
import { isAlive } from '../../src/host/proc.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import { runtimeContract } from './contract.js';

runtimeContract('process (execa)', () => new ProcessRuntime());
runtimeContract('process (node spawn)', () => new ProcessRuntime({ spawner: 'node' }));
// The cluster's way: launches go through the resident spawner process (spawner.ts).
runtimeContract('process (resident spawner)', () => new ProcessRuntime({ spawner: 'resident' }));
// The other ways to hold an attempt's processes: the v1 pids hierarchy, and no cgroup at all.
runtimeContract('process (cgroup v1 pids)', () => new ProcessRuntime({ spawner: 'node', cgroups: 'v1-pids' }), {
  concurrency: 10,
});
// Without cgroups only the wrapper's `times` measures: CPU seconds, no peak memory.
runtimeContract('process (no cgroups)', () => new ProcessRuntime({ spawner: 'node', cgroups: 'off' }), {
  concurrency: 10,
  usage: 'times',
});

/** Pids of this process's children whose command line contains `part`. */
async function childrenRunning(part: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid !== process.pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(part) && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) out.push(Number(name));
  }
  return out;
}

describe('cgroup detection', () => {
  it('uses every writable hierarchy this machine mounts (as root)', async () => {
    const mounts = parseMounts(await readFile('/proc/self/mounts', 'utf8'));
    for (const kind of ['v2', 'v1-pids'] as const) {
      const found = await new ProcessRuntime({ cgroups: kind }).cgroups();
      if (mounts.some((m) => m.kind === kind) && process.getuid?.() === 0) expect(found?.kind, kind).toBe(kind);
    }
    expect(await new ProcessRuntime({ cgroups: 'off' }).cgroups()).toBeNull();
  });

  it('reads cgroup mounts from /proc/self/mounts text, best first', () => {
    const text = [
      'cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0',
      'cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
      'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0',
    ].join('\n');
    expect(parseMounts(text)).toEqual([
      { kind: 'v2', root: '/sys/fs/cgroup/unified' },
      { kind: 'v1-pids', root: '/sys/fs/cgroup/pids' },
      { kind: 'v1-freezer', root: '/sys/fs/cgroup/freezer' },
    ]);
  });
});

for (const spawner of ['execa', 'resident'] as const)
  describe(`ProcessRuntime specifics (${spawner})`, () => {
    let dir = '';
    const runtime = new ProcessRuntime({ spawner });
    const launch = (argv: string[], over: Partial<TaskLaunch> = {}): TaskLaunch => ({
      key: { job: '/p', task: '/p/task-0', attempt: 0 },
      argv,
      env: { PATH: '/usr/bin:/bin' },
      cwd: dir,
      logPath: join(dir, 'a', 'b', 'attempt.log'),
      resources: { cpuMillis: 100, memoryBytes: 1 << 26, device: null },
      deviceIndices: [],
      labels: {},
      ...over,
    });

    beforeAll(async () => {
      dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-process-')));
    });
    afterAll(async () => {
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('rejects a missing working directory with a clear message', async () => {
      const err = await runtime.launch(launch(['true'], { cwd: join(dir, 'nope') })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LaunchError);
      expect((err as Error).message).toBe(`working directory not found: ${join(dir, 'nope')}`);
    });

    it('rejects a file that is not executable with "permission denied"', async () => {
      const file = join(dir, 'not-exec.sh');
      await writeFile(file, 'echo hi\n');
      await chmod(file, 0o644);
      await expect(runtime.launch(launch([file]))).rejects.toThrow(`permission denied: ${file}`);
    });

    it('rejects a log path whose directory cannot be made', async () => {
      await writeFile(join(dir, 'plain-file'), '');
      await expect(
        runtime.launch(launch(['true'], { logPath: join(dir, 'plain-file', 'x', 'a.log') })),
      ).rejects.toThrow(/^cannot create the log directory .*: ENOTDIR$/);
    });

    it('rejects an empty argv', async () => {
      await expect(runtime.launch(launch([]))).rejects.toThrow('empty command');
    });

    it('rejects an argument execa cannot pass (NUL byte) without spawning', async () => {
      await expect(runtime.launch(launch(['echo', 'a\0b']))).rejects.toThrow(/^cannot start echo: /);
    });

    it('puts each task in its own process group', async () => {
      const task = await runtime.launch(
        launch(['sh', '-c', 'ps -o pgid= -p $$ 2>/dev/null || cut -d" " -f5 /proc/$$/stat']),
      );
      await task.exited;
      const { readLines } = await import('../logs/read.js');
      const lines = await readLines(join(dir, 'a', 'b', 'attempt.log'));
      expect(lines.map((l) => Number(l.text.trim()))).toContain(task.pid);
    });

    it.runIf(spawner === 'resident')(
      'an attempt outlives a killed spawner: its exit comes from the status file, and the next launch starts a new ' +
        'spawner',
      async () => {
        const task = await runtime.launch(
          launch(['sh', '-c', 'sleep 0.5; echo done; exit 3'], { logPath: join(dir, 'orphan', 'attempt.log') }),
        );
        const spawners = await childrenRunning('spawner-main');
        expect(spawners.length).toBe(1);
        process.kill(spawners[0]!, 'SIGKILL');
        const exit = await task.exited;
        expect(exit.exitCode).toBe(3);
        const { readLines } = await import('../logs/read.js');
        expect((await readLines(join(dir, 'orphan', 'attempt.log'))).map((l) => l.text)).toEqual(['done']);
        const next = await runtime.launch(launch(['true'], { logPath: join(dir, 'orphan', 'next.log') }));
        expect((await next.exited).exitCode).toBe(0);
        const fresh = await childrenRunning('spawner-main');
        expect(fresh.length).toBe(1);
        expect(fresh[0]).not.toBe(spawners[0]);
      },
    );

    it.runIf(spawner === 'execa')('reclaim never signals a reused pid (a process without the cluster id)', async () => {
      // A stranger process occupies the pid of a "record"; it must survive reclaim.
      const stranger = spawn('sleep', ['30'], {
        env: { PATH: '/usr/bin:/bin', IRIS_CLUSTER_ID: 'someone-else' },
        stdio: 'ignore',
      });
      await new Promise((r) => stranger.once('spawn', r));
      const record = { key: { job: '/p', task: '/p/task-9', attempt: 0 }, pid: stranger.pid!, labels: {} };
      const keys = await runtime.reclaim(`unused-${process.pid}`, [record], 100);
      expect(keys).toEqual([]);
      expect(await isAlive(stranger.pid!)).toBe(true);
      stranger.kill('SIGKILL');
    });
  });
