/**
 * The TaskRuntime contract suite. Every runtime (process, docker, fake) runs it:
 *
 *   runtimeContract('process', () => new ProcessRuntime());
 *
 * Commands are plain POSIX sh available in busybox too (sh -c, echo, printf, sleep, exit, env,
 * trap, wait, seq), so a container runtime with a busybox image can run the same cases. Nothing
 * waits with sleeps: tests await `exited`, follow the log for a marker line, or poll with a
 * bounded deadline.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningTask, TaskExit, TaskKey, TaskLaunch, TaskRuntime } from '../../src/runtime/types.js';
import { followLines, readLines, type LogRecord } from '../logs/read.js';
import { isAlive } from '../../src/host/proc.js';

export interface ContractOptions {
  /** How many tasks the concurrency case starts at once (default 50). */
  concurrency?: number;
  /** PATH given to tasks (default /usr/local/bin:/usr/bin:/bin). */
  path?: string;
  /**
   * True when the process `pid` (as printed by `$!` inside a task) is gone. Defaults to a /proc
   * check on this host; a container runtime passes its own or `null` to skip pid checks.
   */
  processGone?: ((pid: number) => Promise<boolean>) | null;
  /** Case names that do not apply to this runtime: left out, not run (say why in the caller). */
  skip?: string[];
  /**
   * Variables the runtime's engine adds on its own when the launch does not set them (Docker:
   * HOSTNAME, HOME). The environment case ignores exactly these names; default none.
   */
  engineEnv?: string[];
  /**
   * How the runtime measures what an attempt used (TaskExit.usage): 'cgroup' (CPU and peak
   * memory, always), 'times' (CPU only; memory null), 'sampled' (Docker: what samples taken
   * while it ran saw; a task too short for a sample may report nothing). Required: a runtime
   * that measures nothing names the usage case in `skip` and says why.
   */
  usage?: 'cgroup' | 'times' | 'sampled';
}

const MiB = 1024 * 1024;

let seq = 0;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

async function stillRunning(task: RunningTask): Promise<boolean> {
  const probe = Symbol('running');
  const r = await Promise.race([
    task.exited,
    new Promise<typeof probe>((resolve) => setImmediate(() => resolve(probe))),
  ]);
  return r === probe;
}

/** Waits (bounded) until the log holds a line with exactly `text`. */
async function waitForLine(path: string, text: string, ms = 10_000): Promise<void> {
  const signal = AbortSignal.timeout(ms);
  for await (const rec of followLines(path, signal, { fromStart: true, pollMs: 20 })) {
    if (rec.text === text) return;
  }
  throw new Error(`timed out after ${ms} ms waiting for "${text}" in ${path}`);
}

async function defaultGone(pid: number): Promise<boolean> {
  return !(await isAlive(pid));
}

async function waitGone(gone: (pid: number) => Promise<boolean>, pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await gone(pid)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function runtimeContract(
  name: string,
  makeRuntime: () => TaskRuntime | Promise<TaskRuntime>,
  opts: ContractOptions = {},
): void {
  const PATH = opts.path ?? '/usr/local/bin:/usr/bin:/bin';
  const gone = opts.processGone === undefined ? defaultGone : opts.processGone;
  const skip = new Set(opts.skip ?? []);
  const concurrency = opts.concurrency ?? 50;
  const engineEnv = new Set(opts.engineEnv ?? []);

  describe(`TaskRuntime contract: ${name}`, () => {
    let dir = '';
    let runtime: TaskRuntime;
    const clusterId = `contract-${process.pid}-${Date.now().toString(36)}`;
    const started: RunningTask[] = [];

    const test = (title: string, fn: () => Promise<void>, timeout?: number): void => {
      if (!skip.has(title)) it(title, fn, timeout);
    };

    const makeLaunch = (argv: string[], over: Partial<TaskLaunch> & { cluster?: string } = {}): TaskLaunch => {
      const n = ++seq;
      const key: TaskKey = { job: '/contract', task: `/contract/task-${n}`, attempt: 0 };
      const cluster = over.cluster ?? clusterId;
      return {
        key,
        argv,
        env: {
          PATH,
          IRIS_CLUSTER_ID: cluster,
          IRIS_TASK_ID: key.task,
          IRIS_ATTEMPT: String(key.attempt),
        },
        cwd: dir,
        logPath: join(dir, 'logs', `task-${n}`, 'attempt-0.log'),
        resources: { cpuMillis: 100, memoryBytes: 64 * 1024 * 1024, device: null },
        deviceIndices: [],
        labels: { 'iris.cluster': cluster, 'iris.task': key.task, 'iris.attempt': String(key.attempt) },
        ...over,
      };
    };

    const run = async (
      launch: TaskLaunch,
      rt: TaskRuntime = runtime,
    ): Promise<{ exit: TaskExit; lines: LogRecord[] }> => {
      const task = await rt.launch(launch);
      started.push(task);
      const exit = await withTimeout(task.exited, 20_000, `${launch.argv.join(' ')} to exit`);
      return { exit, lines: await readLines(launch.logPath) };
    };

    const texts = (lines: LogRecord[], stream: 'stdout' | 'stderr'): string[] =>
      lines.filter((l) => l.stream === stream).map((l) => l.text);

    beforeAll(async () => {
      dir = await realpath(await mkdtemp(join(tmpdir(), `iris-contract-${name}-`)));
      runtime = await makeRuntime();
    });

    afterAll(async () => {
      // Leave nothing running, whatever a failed case left behind.
      await Promise.all(started.map((t) => runtime.stop(t, 0).catch(() => undefined)));
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('the environment is exactly the one given', async () => {
      const launch = makeLaunch(['env']);
      launch.env.IRIS_EXTRA = 'with spaces = and more';
      const { exit, lines } = await run(launch);
      expect(exit).toMatchObject({ exitCode: 0, signal: null });
      const expected = Object.entries(launch.env)
        .map(([k, v]) => `${k}=${v}`)
        .sort();
      const engineAdded = (line: string): boolean => {
        const name = line.slice(0, line.indexOf('='));
        return engineEnv.has(name) && !(name in launch.env);
      };
      expect(
        texts(lines, 'stdout')
          .filter((l) => !engineAdded(l))
          .sort(),
      ).toEqual(expected);
    });

    test('runs in the given working directory', async () => {
      const { exit, lines } = await run(makeLaunch(['sh', '-c', 'pwd']));
      expect(exit.exitCode).toBe(0);
      expect(texts(lines, 'stdout')).toEqual([dir]);
    });

    test('reports exit codes 0 and 3', async () => {
      const [ok, three] = await Promise.all([
        run(makeLaunch(['sh', '-c', 'exit 0'])),
        run(makeLaunch(['sh', '-c', 'exit 3'])),
      ]);
      expect(ok.exit).toMatchObject({ exitCode: 0, signal: null });
      expect(three.exit).toMatchObject({ exitCode: 3, signal: null });
    });

    test('stdout and stderr lines land in the log with their stream', async () => {
      const before = Date.now();
      const { exit, lines } = await run(
        makeLaunch(['sh', '-c', 'echo out one; echo err one >&2; echo out two; echo err two >&2']),
      );
      expect(exit.exitCode).toBe(0);
      expect(texts(lines, 'stdout')).toEqual(['out one', 'out two']);
      expect(texts(lines, 'stderr')).toEqual(['err one', 'err two']);
      for (const line of lines) {
        expect(line.time).toBeGreaterThanOrEqual(before - 1000);
        expect(line.time).toBeLessThanOrEqual(Date.now() + 1000);
      }
    });

    test('keeps a last line without a newline', async () => {
      const { lines } = await run(makeLaunch(['sh', '-c', "printf 'first\\nlast'; printf 'tail-err' >&2"]));
      expect(texts(lines, 'stdout')).toEqual(['first', 'last']);
      expect(texts(lines, 'stderr')).toEqual(['tail-err']);
    });

    test('a task without output reads as an empty log', async () => {
      const { exit, lines } = await run(makeLaunch(['sh', '-c', 'exit 0']));
      expect(exit.exitCode).toBe(0);
      expect(lines).toEqual([]);
    });

    test('keeps every line of a large output', async () => {
      const { exit, lines } = await run(makeLaunch(['seq', '1', '50000']));
      expect(exit.exitCode).toBe(0);
      expect(lines).toHaveLength(50_000);
      expect(lines[0]!.text).toBe('1');
      expect(lines[49_999]!.text).toBe('50000');
    });

    test('rejects launch when the command does not exist', async () => {
      await expect(runtime.launch(makeLaunch(['iris-no-such-command-xyz', 'arg']))).rejects.toThrow(
        'command not found: iris-no-such-command-xyz',
      );
    });

    test('stop sends SIGTERM first', async () => {
      const launch = makeLaunch([
        'sh',
        '-c',
        "trap 'echo got TERM; exit 143' TERM; echo ready; while :; do sleep 1; done",
      ]);
      const task = await runtime.launch(launch);
      started.push(task);
      await waitForLine(launch.logPath, 'ready');
      await withTimeout(runtime.stop(task, 10_000), 15_000, 'stop');
      const exit = await task.exited;
      expect(exit.exitCode).toBe(143);
      expect(texts(await readLines(launch.logPath), 'stdout')).toContain('got TERM');
    });

    test('stop SIGKILLs a task that ignores SIGTERM after the grace period', async () => {
      const launch = makeLaunch(['sh', '-c', "trap '' TERM; echo ready; while :; do sleep 1; done"]);
      const task = await runtime.launch(launch);
      started.push(task);
      await waitForLine(launch.logPath, 'ready');
      const t0 = Date.now();
      await withTimeout(runtime.stop(task, 300), 10_000, 'stop');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      expect(await task.exited).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    });

    test('stop kills the whole process group (grandchildren too)', async () => {
      // The background child ignores TERM and loops, so only a group SIGKILL ends it.
      const launch = makeLaunch([
        'sh',
        '-c',
        'sh -c "trap \'\' TERM; while :; do sleep 1; done" & echo child $!; echo ready; wait',
      ]);
      const task = await runtime.launch(launch);
      started.push(task);
      await waitForLine(launch.logPath, 'ready');
      const childLine = texts(await readLines(launch.logPath), 'stdout').find((t) => t.startsWith('child '));
      const childPid = Number(childLine?.slice(6));
      await withTimeout(runtime.stop(task, 300), 10_000, 'stop');
      if (gone) expect(await waitGone(gone, childPid)).toBe(true);
    });

    test('stop of a task that already ended resolves at once', async () => {
      const launch = makeLaunch(['sh', '-c', 'exit 5']);
      const task = await runtime.launch(launch);
      await task.exited;
      await withTimeout(runtime.stop(task, 10_000), 1000, 'stop of an ended task');
      expect((await task.exited).exitCode).toBe(5);
    });

    test('a background child left behind does not keep the task alive', async () => {
      const launch = makeLaunch(['sh', '-c', 'sleep 1000 & echo child $!']);
      const { exit, lines } = await run(launch);
      expect(exit.exitCode).toBe(0);
      const childPid = Number(texts(lines, 'stdout')[0]?.slice(6));
      if (gone) expect(await waitGone(gone, childPid)).toBe(true);
    });

    test(`${concurrency} concurrent tasks all complete with correct logs`, async () => {
      const launches = Array.from({ length: concurrency }, (_, i) => {
        const launch = makeLaunch(['sh', '-c', 'echo "out $N"; echo "err $N" >&2; exit $((N % 4))']);
        launch.env.N = String(i);
        return launch;
      });
      const results = await Promise.all(launches.map((l) => run(l)));
      results.forEach(({ exit, lines }, i) => {
        expect(exit).toMatchObject({ exitCode: i % 4, signal: null });
        expect(texts(lines, 'stdout')).toEqual([`out ${i}`]);
        expect(texts(lines, 'stderr')).toEqual([`err ${i}`]);
      });
    }, 60_000);

    test('reports the CPU seconds and peak memory an attempt used', async () => {
      // ~64 MiB held in a shell variable (the shell's buffer grows to hold it), then ~0.5 s of
      // shell arithmetic, then a pause that gives a sampling runtime time to see the peak.
      const script =
        `x=$(head -c ${64 * MiB} /dev/zero | tr '\\0' a); i=0; while [ $i -lt 400000 ]; do i=$((i+1)); ` +
        `done; echo \${#x}; sleep 1`;
      const roomy = { resources: { cpuMillis: 2000, memoryBytes: 512 * MiB, device: null } };
      const [heavy, light] = await Promise.all([
        run(makeLaunch(['sh', '-c', script], roomy)),
        run(makeLaunch(['sh', '-c', 'exit 0'], roomy)),
      ]);
      expect(heavy.exit.exitCode).toBe(0);
      expect(texts(heavy.lines, 'stdout')).toEqual([String(64 * MiB)]);
      expect(heavy.exit.usage?.cpuSeconds).toBeGreaterThanOrEqual(0.3);
      if (opts.usage === 'times') expect(heavy.exit.usage?.peakMemoryBytes).toBeNull();
      else expect(heavy.exit.usage?.peakMemoryBytes).toBeGreaterThanOrEqual(48 * MiB);
      expect(light.exit.exitCode).toBe(0);
      if (opts.usage !== 'sampled') expect(light.exit.usage).toBeDefined();
      if (light.exit.usage) {
        expect(light.exit.usage.cpuSeconds).toBeLessThan(0.2);
        expect(light.exit.usage.peakMemoryBytes ?? 0).toBeLessThan(32 * MiB);
      }
    }, 30_000);

    test('reclaim stops what a closed runtime left running, and only this cluster', async () => {
      const otherCluster = `${clusterId}-other`;
      const old = await makeRuntime();
      const leftLaunch = makeLaunch(['sh', '-c', 'echo ready; while :; do sleep 1; done']);
      const left = await old.launch(leftLaunch);
      await waitForLine(leftLaunch.logPath, 'ready');
      await old.close(); // "crash": closed without stopping its task

      const neighbour = await makeRuntime();
      const otherLaunch = makeLaunch(['sh', '-c', 'echo ready; while :; do sleep 1; done'], { cluster: otherCluster });
      const other = await neighbour.launch(otherLaunch);
      await waitForLine(otherLaunch.logPath, 'ready');

      const fresh = await makeRuntime();
      try {
        const keys = await withTimeout(
          fresh.reclaim(clusterId, [{ key: leftLaunch.key, pid: left.pid, labels: leftLaunch.labels }], 2000),
          15_000,
          'reclaim',
        );
        expect(keys).toContainEqual(leftLaunch.key);
        const exit = await withTimeout(left.exited, 10_000, 'left-over task to end after reclaim');
        expect(exit.exitCode === null || exit.exitCode === 143).toBe(true);
        expect(await stillRunning(other)).toBe(true);
        // Nothing of this cluster is left: a second reclaim finds nothing.
        expect(await fresh.reclaim(clusterId, [], 2000)).toEqual([]);
      } finally {
        await neighbour.stop(other, 1000);
        await neighbour.close();
        await fresh.close();
      }
    }, 60_000);
  });
}
