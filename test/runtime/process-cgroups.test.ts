/**
 * An attempt that cannot start leaves none of its cgroups behind, whatever the spawner and
 * whatever failed (a missing working directory, an argument that cannot be passed, a log
 * directory that cannot be made); and reclaim removes a cluster's leftover cgroups, nested ones
 * too, without touching another cluster's.
 */
import { mkdirSync, rmdirSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessRuntime, LaunchError } from '../../src/runtime/process/runtime.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import { clusterCgroupDir, clusterCgroups, usableCgroups } from '../helpers/cgroups.js';

const haveCgroups = await usableCgroups();

let dir = '';
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-cgroups-')));
  await writeFile(join(dir, 'plain-file'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
const clusterId = (): string => `test-cgroups-${process.pid}-${seq++}`;

function launch(cluster: string, argv: string[], over: Partial<TaskLaunch> = {}): TaskLaunch {
  return {
    key: { job: '/p', task: `/p/task-${seq}`, attempt: 0 },
    argv,
    env: { PATH: '/usr/bin:/bin', IRIS_CLUSTER_ID: cluster },
    cwd: dir,
    logPath: join(dir, 'logs', `${seq}.log`),
    resources: { cpuMillis: 100, memoryBytes: 1 << 26, device: null },
    deviceIndices: [],
    labels: { 'iris.cluster': cluster },
    ...over,
  };
}

for (const spawner of ['resident', 'execa', 'node'] as const) {
  describe.runIf(haveCgroups)(`a launch that fails leaves no cgroup (${spawner})`, () => {
    const runtime = new ProcessRuntime({ spawner });
    afterAll(() => runtime.close());

    const failures: Array<[string, (cluster: string) => TaskLaunch, RegExp]> = [
      [
        'a missing working directory',
        (c) => launch(c, ['true'], { cwd: join(dir, 'nope') }),
        /^working directory not found: /,
      ],
      ['a working directory that is a file', (c) => launch(c, ['true'], { cwd: join(dir, 'plain-file') }), /./],
      [
        'a log directory that cannot be made',
        (c) => launch(c, ['true'], { logPath: join(dir, 'plain-file', 'x', 'a.log') }),
        /^cannot create the log directory /,
      ],
    ];
    if (spawner !== 'resident')
      failures.push(['an argument with a NUL byte', (c) => launch(c, ['echo', 'a\0b']), /^cannot start echo: /]);

    it('a task stopped as soon as its launch returns (a cancel racing the launch)', async () => {
      const cluster = clusterId();
      const tasks = await Promise.all(
        [0, 1, 2, 3, 4].map((i) =>
          runtime.launch(launch(cluster, ['sleep', '30'], { key: { job: '/p', task: `/p/task-${i}`, attempt: 0 } })),
        ),
      );
      await Promise.all(tasks.map((task) => runtime.stop(task, 50)));
      expect(clusterCgroups(cluster)).toEqual([]);
    });

    for (const [what, make, message] of failures) {
      it(what, async () => {
        const cluster = clusterId();
        // The cluster's own directory exists (a task of it ran before): only attempt cgroups count.
        const ok = await runtime.launch(launch(cluster, ['true']));
        await ok.exited;
        expect(clusterCgroups(cluster)).toEqual([]);
        for (let i = 0; i < 5; i++) {
          const err = await runtime.launch(make(cluster)).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(LaunchError);
          expect((err as Error).message).toMatch(message);
        }
        expect(clusterCgroups(cluster)).toEqual([]);
      });
    }
  });
}

describe.runIf(haveCgroups)('reclaim removes leftover cgroups', () => {
  it("removes every attempt cgroup of the cluster, nested ones too, and leaves another cluster's alone", async () => {
    const runtime = new ProcessRuntime({ spawner: 'node' });
    const cluster = clusterId();
    const other = clusterId();
    const root = (await runtime.cgroups())!.root;
    const base = clusterCgroupDir(root, cluster);
    const stranger = join(clusterCgroupDir(root, other), '%2Fq%2Ftask-0.0');
    // What a cluster killed mid-launch leaves, and what a task may have made inside its own cgroup.
    mkdirSync(join(base, '%2Fp%2Ftask-0.3', 'made-by-the-task', 'deeper'), { recursive: true });
    mkdirSync(join(base, 'not-an-attempt-name'), { recursive: true });
    mkdirSync(stranger, { recursive: true });
    try {
      expect(clusterCgroups(cluster).length).toBe(4);
      await runtime.reclaim(cluster, [], 100);
      expect(clusterCgroups(cluster)).toEqual([]);
      expect(clusterCgroups(other)).toEqual([stranger]);
    } finally {
      await runtime.close();
      for (const d of [...clusterCgroups(cluster).reverse(), stranger, clusterCgroupDir(root, other), base]) {
        try {
          rmdirSync(d);
        } catch {
          // gone
        }
      }
    }
  });
});
