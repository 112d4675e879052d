/**
 * The process runtime with one spool directory for every attempt (the cluster's `IRIS_HOME/spool`,
 * issue 36): a task that writes nothing makes no directory and, once its end is settled, leaves no
 * file; one that talks gets its log; an attempt that ended while no controller watched is still
 * found by recover() through its status file there, which settled() then removes.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../src/runtime/process/runtime.js';
import type { TaskLaunch } from '../../src/runtime/types.js';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-spooldir-')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function launch(name: string, argv: string[], cluster = `spooldir-${process.pid}`): TaskLaunch {
  const key = { job: '/s', task: `/s/${name}`, attempt: 0 };
  return {
    key,
    argv,
    env: { PATH: '/usr/bin:/bin', IRIS_CLUSTER_ID: cluster, IRIS_TASK_ID: key.task, IRIS_ATTEMPT: '0' },
    cwd: dir,
    logPath: join(dir, 'logs', name, 'attempt-0.log'),
    resources: { cpuMillis: 1000, memoryBytes: 64 << 20, device: null },
    deviceIndices: [],
    labels: { 'iris.cluster': cluster },
  };
}

describe('ProcessRuntime with a spool directory', () => {
  it('a quiet task makes no log directory; settled() leaves the spool directory empty', async () => {
    const spoolDir = join(dir, 'spool-a');
    const runtime = new ProcessRuntime({ spoolDir, cgroups: 'off' });
    const l = launch('quiet', ['true']);
    const task = await runtime.launch(l);
    const exit = await task.exited;
    expect(exit.exitCode).toBe(0);
    expect(existsSync(join(dir, 'logs', 'quiet'))).toBe(false);
    // The status file (and, without cgroups, the wrapper's `times`) stays until the end is recorded:
    // a controller that crashes before then still finds it. No spool is left.
    expect(
      readdirSync(spoolDir)
        .map((f) => f.replace(/^[^.]+/, ''))
        .sort(),
    ).toEqual(['.exit', '.times']);
    runtime.settled([{ logPath: l.logPath }]);
    expect(readdirSync(spoolDir)).toEqual([]);
    await runtime.close();
  });

  it('a task that talks gets its log (its directory made on the first line)', async () => {
    const spoolDir = join(dir, 'spool-b');
    const runtime = new ProcessRuntime({ spoolDir, cgroups: 'off' });
    const l = launch('talker', ['sh', '-c', 'echo hello']);
    const task = await runtime.launch(l);
    await task.exited;
    expect(existsSync(l.logPath)).toBe(true);
    runtime.settled([{ logPath: l.logPath }]);
    expect(readdirSync(spoolDir)).toEqual([]);
    await runtime.close();
  });

  it('recover() finds an attempt that ended while no controller watched, through its status file', async () => {
    const spoolDir = join(dir, 'spool-c');
    const cluster = `spooldir-recover-${process.pid}`;
    const l = launch('ended', ['sh', '-c', 'echo out; exit 3'], cluster);
    const first = new ProcessRuntime({ spoolDir, cgroups: 'off' });
    const task = await first.launch(l);
    await first.close(); // the controller "crashed": the task goes on and records its own exit
    await task.exited;
    const second = new ProcessRuntime({ spoolDir, cgroups: 'off' });
    const found = await second.recover(cluster, [{ key: l.key, pid: task.pid, labels: {}, logPath: l.logPath }]);
    expect(found.map((f) => f.exit.exitCode)).toEqual([3]);
    second.settled([{ logPath: l.logPath }]);
    expect(readdirSync(spoolDir)).toEqual([]);
    await second.close();
  });
});
