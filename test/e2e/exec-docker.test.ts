/**
 * E2E (issue 30, §3) on the real Docker engine: `iris exec` into a container task runs the command
 * inside the container (the engine's exec), as the container's user, in its working directory
 * (the mounted submit directory) with the task's environment; its exit code is iris's; `-it`
 * gives a shell in a pseudo-terminal driven through `script`; the exec is listed by `iris status`.
 * An exec into a container task that ended is refused (exit 3 with the state). (The process task:
 * test/e2e/exec.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSYBOX, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { describeRun, type E2ECluster } from './harness.js';
import { HAS_SCRIPT, irisInPty } from './pty.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const READY = (await dockerTestEnv()).run || inCI;

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

describe.skipIf(!READY)('iris exec into a running container task', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  }, 60_000);
  afterAll(() => stopDockerCluster(c, clusterId));

  it('runs the command in the container, as its user, in its directory and environment, with its code', async () => {
    const gate = c.gate('box');
    const command = ['sh', '-c', `echo ready; ${gate.hold}`];
    await c.submit(['--name', 'box', '--image', BUSYBOX, '-e', 'LR=0.5', '--cpu', '0.2'], command);
    await c.waitForLog('/box/task-0', 'ready', { timeoutMs: 30_000 });
    const probe = 'echo "uid=$(id -u) id=$IRIS_TASK_ID lr=$LR pwd=$(pwd)"; tr "\\0" " " </proc/1/cmdline; echo; exit 6';
    const args = ['exec', 'box/task-0', '--', 'sh', '-c', probe];
    const r = await c.iris(args, { timeoutMs: 30_000 });
    expect(r.code, describeRun(args, r)).toBe(6);
    expect(r.stdout).toContain(`uid=65534 id=/box/task-0 lr=0.5 pwd=${c.cwd}`);
    // PID 1 is the task's own command: the exec ran in the task's container, not on the host.
    expect(r.stdout).toContain(`echo ready; ${gate.hold}`);
    const cat = ['exec', '-i', 'box/task-0', '--', 'sh', '-c', 'cat; echo end'];
    const input = await c.iris(cat, { input: 'piped\n', timeoutMs: 30_000 });
    expect(input.stdout).toBe('piped\nend\n');
  });

  const ptyTest = it.skipIf(!HAS_SCRIPT && !inCI);
  ptyTest(
    "-it: a shell in the container in a pty; what is typed runs there; its exit code is iris's",
    async () => {
      const r = await irisInPty(['exec', '-it', 'box/task-0', '--', 'sh'], {
        cwd: c.cwd,
        env: c.env,
        rows: 40,
        cols: 120,
        ready: /[$#] /,
        timeoutMs: 20_000,
        input: 'tty; stty size; echo "in=$(pwd) id=$IRIS_TASK_ID uid=$(id -u)"; exit 7\n',
      });
      expect(r.code, `terminal: ${r.stdout}\nstderr: ${r.stderr}`).toBe(7);
      expect(r.stdout).toMatch(/\/dev\/pts\/\d+/);
      expect(r.stdout).toContain('40 120');
      expect(r.stdout).toContain(`in=${c.cwd} id=/box/task-0 uid=65534`);
    },
    40_000,
  );

  it('the execs are listed by iris status; once the task ended an exec is refused with exit 3', async () => {
    const status = await c.iris(['status', '/box']);
    expect(status.stdout).toMatch(/^Execs:$/m);
    expect(status.stdout).toMatch(/task-0#0 +owner \(\S+\) +sh -c 'echo "uid=/);
    if (HAS_SCRIPT) expect(status.stdout).toMatch(/task-0#0 +owner \(\S+\) +\(tty\) sh$/m);
    c.gate('box').open();
    expect((await c.waitForEnd('/box', { timeoutMs: 30_000 })).state).toBe('SUCCEEDED');
    const ended = await c.iris(['exec', 'box/task-0', '--', 'true']);
    expect(ended.code, describeRun(['exec', 'box/task-0'], ended)).toBe(3);
    expect(ended.stderr).toContain('Error: job /box has ended (SUCCEEDED): nothing runs in /box/task-0 to exec into');
  });
});
