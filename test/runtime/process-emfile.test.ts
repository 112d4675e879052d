/**
 * The process runtime under file-descriptor exhaustion: with every descriptor of the controller's
 * process taken (EMFILE), stopping a running task still ends it, and its end is still reported —
 * no error escapes as an unhandled rejection (which would end the controller). Real processes, the
 * real cgroups where the machine has them (the cgroup files are what cannot be opened then); what
 * could not be removed then is removed by the next start's reclaim.
 */
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../src/runtime/process/runtime.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import { clusterCgroups } from '../helpers/cgroups.js';

let dir = '';
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-emfile-')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Open /dev/null until the process has no descriptor left; returns them for closing. */
function exhaustDescriptors(): number[] {
  const fds: number[] = [];
  for (;;) {
    try {
      fds.push(openSync('/dev/null', 'r'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EMFILE') return fds;
      for (const fd of fds) closeSync(fd);
      throw error;
    }
  }
}

describe('stopping a task while the controller has no file descriptor left', () => {
  for (const spawner of ['resident', 'execa'] as const) {
    it(`ends the task and reports its end (${spawner})`, async () => {
      const runtime = new ProcessRuntime({ spawner });
      const cluster = `test-emfile-${process.pid}-${spawner}`;
      const launch: TaskLaunch = {
        key: { job: '/e', task: '/e/task-0', attempt: 0 },
        argv: ['sleep', '60'],
        env: { PATH: '/usr/bin:/bin', IRIS_CLUSTER_ID: cluster },
        cwd: dir,
        logPath: join(dir, spawner, 'attempt-0.log'),
        resources: { cpuMillis: 100, memoryBytes: 1 << 26, device: null },
        deviceIndices: [],
        labels: { 'iris.cluster': cluster },
      };
      const task = await runtime.launch(launch);
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => {
        unhandled.push(reason);
      };
      process.on('unhandledRejection', onUnhandled);
      let fds: number[] = [];
      try {
        fds = exhaustDescriptors();
        await runtime.stop(task, 50);
        const exit = await task.exited;
        expect(exit.signal ?? exit.exitCode).not.toBeNull();
        expect(() => process.kill(task.pid!, 0)).toThrow();
      } finally {
        for (const fd of fds) closeSync(fd);
        // A rejection left unhandled is reported on a later turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
        process.off('unhandledRejection', onUnhandled);
        // What could not be removed without descriptors goes at the next start's reclaim.
        await runtime.reclaim(cluster, [], 100);
        await runtime.close();
      }
      expect(unhandled).toEqual([]);
      expect(clusterCgroups(cluster)).toEqual([]);
    });
  }
});
