/**
 * Hostile suite, "Mounts: what a container may see of the host" (docs/security.md): a mount is the
 * most powerful thing a submitter can ask for. With the built binary and the real Docker engine:
 * the host's `/`, `/proc`, `/sys`, `/dev`, the cluster's state directory, its sockets, the Docker
 * socket, a symlink to any of them and a submit directory that holds the state directory are all
 * refused at submit with exit 4 and the reason, nothing is started; and a task in a container may
 * not give its child a host path its own container lacks (the attack: a contained task mounting
 * the owner's home, or the state directory, into a child), nor read-write what it has read-only.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSYBOX, NODE_IMAGE, containersWithLabel, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from '../e2e/docker-fixture.js';
import { describeRun, type E2ECluster } from '../e2e/harness.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const READY = (await dockerTestEnv()).run || inCI;

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

describe.skipIf(!READY)('mounts of what holds the host or the cluster are refused', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
    symlinkSync(c.home, path.join(c.cwd, 'innocent-looking'));
    symlinkSync('/var/run/docker.sock', path.join(c.cwd, 'engine'));
  }, 60_000);
  afterAll(() => stopDockerCluster(c, clusterId));

  const cases = (): Array<[string, string, string]> => [
    ["the host's root", '/:/host', '"/:/host" may never be mounted into a container: it is the host\'s root directory'],
    ['/proc', '/proc:/hostproc', "it lies in /proc, the host kernel's own file system"],
    ['/sys', '/sys/fs/cgroup:/cg', "it lies in /sys, the host kernel's own file system"],
    ['/dev', '/dev:/hostdev', "it lies in /dev, the host kernel's own file system"],
    ['the state directory', `${c.home}:/state`, `it lies in the cluster's state directory ${c.home}`],
    [
      "the owner socket's directory",
      `${path.join(c.home, 'run')}:/run-iris`,
      `it lies in the cluster's state directory ${c.home}`,
    ],
    [
      "the task door's socket",
      `${path.join(c.home, 'tasks', 'iris.sock')}:/door.sock`,
      `it lies in the cluster's state directory ${c.home}`,
    ],
    ['a directory holding the state directory', `${c.root}:/r`, `it holds the cluster's state directory ${c.home}`],
    [
      'a symlink to the state directory',
      `${path.join(c.cwd, 'innocent-looking')}:/x`,
      `(${path.join(c.cwd, 'innocent-looking')} is ${c.home}) may never be mounted into a container`,
    ],
    ['the Docker socket', '/var/run/docker.sock:/var/run/docker.sock', "the container engine's socket"],
    ['a symlink to the Docker socket', `${path.join(c.cwd, 'engine')}:/docker.sock`, "the container engine's socket"],
    ['/var/run, which holds the Docker socket', '/var/run:/vr', "holds the container engine's socket"],
  ];

  it('each is refused at submit with exit 4 and the reason; no container is started', async () => {
    for (const [what, mount, message] of cases()) {
      const args = ['submit', '--name', 'escape', '--image', BUSYBOX, '--mount', mount, '--', 'true'];
      const r = await c.iris(args);
      expect(r.code, `${what}: ${describeRun(args, r)}`).toBe(4);
      expect(r.stderr, what).toContain(message);
      expect(r.stderr, what).toMatch(/^Error: --mount /);
      expect(r.stderr, what).toContain('Hint: ');
    }
    expect((await c.jobs()).map((j) => j.name)).not.toContain('/escape');
    expect(containersWithLabel('iris.cluster', clusterId)).toEqual([]);
  });

  it(
    'a submit directory that holds the state directory is refused (exit 4) with a hint to use ' + '--no-workspace',
    async () => {
      const r = await c.iris(['submit', '--image', BUSYBOX, '--', 'true'], { cwd: c.root });
      expect(r.code, describeRun(['submit'], r)).toBe(4);
      expect(r.stderr).toContain(
        `Error: the submit directory ${c.root} may never be mounted into a container: it holds the cluster's state ` +
          `directory ${c.home}`,
      );
      expect(r.stderr).toMatch(/Hint: .*--no-workspace/);
    },
  );

  it(
    'a task in a container may not mount for its child a host path its own container lacks, nor write what it has ' +
      'read-only (exit 4)',
    async () => {
      const data = path.join(c.root, 'shared');
      mkdirSync(data, { recursive: true });
      writeFileSync(path.join(data, 'f'), 'x');
      const secret = path.join(c.root, 'owners-files');
      mkdirSync(secret, { recursive: true });
      const tries = [
        ['home', `${secret}:/stolen`],
        ['state', `${c.home}:/state`],
        ['rw', `${data}:/data`],
        ['sub', `${path.join(data)}:/again:ro`],
      ];
      const script = tries
        .map(([what, mount]) => `iris submit --name ${what} --mount '${mount}' -- true; echo "${what}=$?"`)
        .join('\n');
      const args = [
        'run',
        '--name',
        'contained',
        '--image',
        NODE_IMAGE,
        '--mount',
        `${data}:/data:ro`,
        '--cpu',
        '0.2',
        '--',
        'sh',
        '-c',
        script,
      ];
      const r = await c.iris(args, { timeoutMs: 90_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      const text = (await c.logs('/contained/task-0')).map((l) => l.text).join('\n');
      expect(text).toContain('home=4');
      expect(text).toContain(
        `Error: --mount "${secret}:/stolen": a task may mount only what its own container has mounted, and ${secret}` +
          ` is not in its mounts (${data}, ${c.cwd})`,
      );
      expect(text).toContain('state=4');
      expect(text).toContain(`it lies in the cluster's state directory ${c.home}`);
      expect(text).toContain('rw=4');
      expect(text).toContain(`a task may mount ${data} only read-only: its own container has ${data} read-only`);
      // Within its own mount, read-only: allowed.
      expect(text).toContain('sub=0');
      expect((await c.job('/contained')).children.map((j) => j.name)).toEqual(['/contained/sub']);
    },
  );
});
