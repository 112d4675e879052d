/**
 * Hostile suite, "A task's token, and what it sees of other trees" (docs/security.md):
 * - A container task's token is not in the environment of its processes, where any host process
 *   of the container's uid (65534, nobody, by default) reads it from /proc/PID/environ; it is a
 *   file only the container's own processes can read (not a host nobody process, not even through
 *   /proc/PID/root), and `iris` inside the container still works with it.
 * - A task's `iris workers` shows only the context-reuse keys (`uses`) of its own tree, not other
 *   users' model names; the owner still sees all.
 * The real Docker engine and the built binary.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerInfo } from '../../src/api/types.js';
import { NODE_IMAGE, containersWithLabel, dockerTestEnv, inspectContainer } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from '../e2e/docker-fixture.js';
import { E2ECluster, describeRun } from '../e2e/harness.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const READY = (await dockerTestEnv()).run || inCI;
const ROOT = process.getuid?.() === 0;

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

/** `pid` and every process below it (the container's processes, seen from the host). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const thread of readdirSync(`/proc/${out[i]}/task`)) {
      const children = readFileSync(`/proc/${out[i]}/task/${thread}/children`, 'utf8').trim();
      if (children !== '') out.push(...children.split(/\s+/).map(Number));
    }
  }
  return out;
}

describe.skipIf(!READY)("a container task's token", () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it(
    "is not in /proc/PID/environ of the container's processes, only in a file a host nobody cannot read; iris " +
      'inside still works',
    async () => {
      // The task proves iris works inside (it submits a child), then holds until cancelled.
      const script = 'iris run --name kid -- true && echo kid-ok; echo ready; exec sleep 600';
      const name = await c.submit(['--name', 'tok', '--image', NODE_IMAGE, '--cpu', '0.2'], ['sh', '-c', script]);
      await c.waitForLog(`${name}/task-0`, 'ready', { timeoutMs: 60_000 });
      const text = (await c.logs(`${name}/task-0`)).map((l) => l.text);
      expect(text).toContain('kid-ok');
      expect((await c.job('/tok/kid')).state).toBe('SUCCEEDED');

      const [id] = containersWithLabel('iris.task', '/tok/task-0');
      expect(id).toBeDefined();
      const pid = inspectContainer(id!).State.Pid as number;
      const pids = processTree(pid);
      expect(pids.length).toBeGreaterThanOrEqual(2); // the engine's init and the task's command
      const token = readFileSync(`/proc/${pid}/root/.iris-task/token`, 'utf8').trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      for (const p of pids) {
        const environ = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0');
        expect(environ.filter((entry) => entry.startsWith('IRIS_TASK_TOKEN='))).toEqual([]);
        expect(environ.some((entry) => entry.includes(token))).toBe(false);
        expect(environ).toContain('IRIS_TASK_TOKEN_FILE=/.iris-task/token');
      }
      if (ROOT) {
        // A host process of the container's uid (nobody) reads the environment, not the token file.
        const asNobody = (args: string[]) =>
          execFileSync('runuser', ['-u', 'nobody', '--', ...args], { encoding: 'utf8', stdio: 'pipe' });
        expect(asNobody(['cat', `/proc/${pid}/environ`])).toContain('IRIS_TASK_TOKEN_FILE=');
        expect(() => asNobody(['cat', `/proc/${pid}/root/.iris-task/token`])).toThrow(/Permission denied/);
      }
      const cancel = await c.iris(['cancel', '/tok']);
      expect(cancel.code, describeRun(['cancel'], cancel)).toBe(0);
      await c.waitForEnd('/tok');
    },
  );
});

describe('what a task sees of other trees in `iris workers`', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create({ config: CONFIG });
  });
  afterAll(() => c?.dispose());

  it("a task sees only its own tree's uses keys; the owner sees every one", async () => {
    const other = await c.iris(['run', '--name', 'other', '--uses', 'secret-model-x', '--cpu', '0.1', '--', 'true']);
    expect(other.code, describeRun(['run', 'other'], other)).toBe(0);
    const r = await c.iris([
      'run',
      '--name',
      'mine',
      '--uses',
      'own-model',
      '--cpu',
      '0.1',
      '--',
      'iris',
      'workers',
      '--json',
    ]);
    expect(r.code, describeRun(['run', 'mine'], r)).toBe(0);
    const seen = JSON.parse((await c.logs('/mine/task-0')).map((l) => l.text).join('\n')) as WorkerInfo[];
    expect(seen.flatMap((w) => w.cache.map((h) => h.key))).toEqual(['own-model']);
    const owner = await c.json<WorkerInfo[]>(['workers']);
    expect(owner.flatMap((w) => w.cache.map((h) => h.key)).sort()).toEqual(['own-model', 'secret-model-x']);
  });
});
