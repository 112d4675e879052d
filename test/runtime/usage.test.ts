/**
 * Usage accounting of the process runtime beyond the contract: how the counters' sources are
 * chosen, the wrapper's `times` fallback, and the usage of an attempt that ended while no
 * runtime watched it (recover after a restart).
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime, markOomKill } from '../../src/runtime/process/runtime.js';
import { attemptCgroupDir } from '../../src/runtime/process/cgroup-fs.js';
import { UsageMeter, accountingMounts, parseTimes } from '../../src/runtime/process/usage.js';
import type { TaskExit, TaskLaunch } from '../../src/runtime/types.js';
import { UsageSampler } from '../../src/runtime/docker/usage.js';

const MiB = 1024 * 1024;

describe('usage sources', () => {
  it('reads the children line of the shell builtin times', () => {
    expect(parseTimes('0m0.010000s 0m0.020000s\n1m2.500000s 0m0.250000s\n')).toBeCloseTo(62.75, 6);
    expect(parseTimes('0m0.01s 0m0.02s\n0m0.3s 0m0.1s\n')).toBeCloseTo(0.4, 6);
    expect(parseTimes('')).toBeNull();
    expect(parseTimes('garbage\nmore garbage\n')).toBeNull();
  });

  it("prefers v1 cpuacct and memory hierarchies over a hybrid machine's v2 mount", () => {
    const text = [
      'cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0',
      'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0',
      'cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
    ].join('\n');
    expect(accountingMounts(text)).toEqual({
      cpu: [
        { kind: 'v1', root: '/sys/fs/cgroup/cpu,cpuacct' },
        { kind: 'v2', root: '/sys/fs/cgroup/unified' },
      ],
      memory: [
        { kind: 'v1', root: '/sys/fs/cgroup/memory' },
        { kind: 'v2', root: '/sys/fs/cgroup/unified' },
      ],
    });
    expect(accountingMounts('cgroup2 /sys/fs/cgroup cgroup2 rw 0 0')).toEqual({
      cpu: [{ kind: 'v2', root: '/sys/fs/cgroup' }],
      memory: [{ kind: 'v2', root: '/sys/fs/cgroup' }],
    });
  });
});

describe('OOM kills of a process attempt', () => {
  it('reads the oom_kill count of the memory cgroup: v1 memory.oom_control, v2 memory.events', async () => {
    const root = await mkdtemp(join(tmpdir(), 'iris-oom-'));
    try {
      const files = { v1: 'memory.oom_control', v2: 'memory.events' } as const;
      const text = {
        v1: 'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n',
        v2: 'low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n',
      };
      for (const kind of ['v1', 'v2'] as const) {
        const dir = attemptCgroupDir(join(root, kind), 'c1', 'a.0');
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, files[kind]), text[kind]);
        const meter = new UsageMeter(null, { kind, root: join(root, kind) });
        expect(await meter.oomKills('c1', 'a.0')).toBe(kind === 'v1' ? 2 : 1);
        expect(await meter.oomKills('c1', 'gone.0')).toBeNull();
      }
      expect(await new UsageMeter(null, null).oomKills('c1', 'a.0')).toBeNull();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it.each([
    [{ exitCode: 137, signal: null }, 1, true],
    [{ exitCode: null, signal: 'SIGKILL' }, 1, true],
    [{ exitCode: 0, signal: null }, 1, false], // a child was killed, the task still succeeded
    [{ exitCode: 1, signal: null }, 0, false],
    [{ exitCode: 1, signal: null }, null, false],
  ] as const)('%o after %s OOM kills: an OOM kill %s', (end, kills, oom) => {
    const exit: TaskExit = { ...end };
    markOomKill(exit, kills);
    expect(exit.oom === true).toBe(oom);
    expect(exit.reason).toBe(oom ? 'OOM killed by the kernel' : undefined);
  });
});

describe('Docker usage samples', () => {
  const sampler = () => new UsageSampler({} as never, 1000);

  it("keeps the largest CPU and memory seen, preferring the kernel's own peak", () => {
    const s = sampler();
    s.take({ cpu_stats: { cpu_usage: { total_usage: 2e8 } }, memory_stats: { usage: 10 * MiB, max_usage: 70 * MiB } });
    s.take({ cpu_stats: { cpu_usage: { total_usage: 5e8 } }, memory_stats: { usage: 3 * MiB, max_usage: 70 * MiB } });
    expect(s.usage()).toEqual({ cpuSeconds: 0.5, peakMemoryBytes: 70 * MiB });
  });

  it('ignores the zeros of a stopped container, and never makes up a value', () => {
    const s = sampler();
    expect(s.usage()).toBeUndefined();
    s.take({ cpu_stats: { cpu_usage: { total_usage: 0 } }, memory_stats: {} });
    expect(s.usage()).toBeUndefined();
    s.take({ cpu_stats: { cpu_usage: { total_usage: 3e7 } }, memory_stats: {} });
    expect(s.usage()).toEqual({ cpuSeconds: 0.03, peakMemoryBytes: null });
    // A cgroup v2 engine reports no peak: the largest usage seen stands for it.
    s.take({ cpu_stats: { cpu_usage: { total_usage: 0 } }, memory_stats: { usage: 5 * MiB } });
    expect(s.usage()).toEqual({ cpuSeconds: 0.03, peakMemoryBytes: 5 * MiB });
  });
});

describe('usage of an attempt that ended while no runtime watched', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-usage-')));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const launch = (name: string, cluster: string): TaskLaunch => {
    const key = { job: '/u', task: `/u/${name}`, attempt: 0 };
    return {
      key,
      // Work, then wait for a file that the test creates once the first runtime is closed.
      argv: [
        'sh',
        '-c',
        `x=$(head -c ${64 * MiB} /dev/zero | tr '\\0' a); i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; while ` +
          `[ ! -e go ]; do sleep 0.05; done`,
      ],
      env: { PATH: '/usr/bin:/bin', IRIS_CLUSTER_ID: cluster, IRIS_TASK_ID: key.task, IRIS_ATTEMPT: '0' },
      cwd: dir,
      logPath: join(dir, name, 'attempt-0.log'),
      resources: { cpuMillis: 1000, memoryBytes: 512 * MiB, device: null },
      deviceIndices: [],
      labels: { 'iris.cluster': cluster },
    };
  };

  // With cgroups the counters live in the attempt's cgroups, which a closed runtime in this
  // same process still removes when the task ends: test/e2e/usage.test.ts kills a real daemon.
  for (const cgroups of ['off'] as const) {
    it(`recover() reports the CPU the wrapper measured (cgroups ${cgroups})`, async () => {
      const cluster = `usage-${cgroups}-${process.pid}`;
      const l = launch(`task-${cgroups}`, cluster);
      const first = new ProcessRuntime({ cgroups });
      const task = await first.launch(l);
      await first.close(); // the controller "crashed"; the task goes on
      await writeFile(join(dir, 'go'), '');
      await task.exited; // the wrapper ended (the closed runtime still notices it)
      const second = new ProcessRuntime({ cgroups });
      const [found] = await second.recover(cluster, [
        { key: l.key, pid: task.pid, labels: l.labels, logPath: l.logPath },
      ]);
      await second.close();
      await rm(join(dir, 'go'));
      expect(found?.exit.exitCode).toBe(0);
      expect(found?.exit.usage?.cpuSeconds).toBeGreaterThanOrEqual(0.3);
      expect(found?.exit.usage?.peakMemoryBytes).toBeNull();
    }, 30_000);
  }
});
