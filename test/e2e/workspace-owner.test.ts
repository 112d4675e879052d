/**
 * E2E (issue 30, §1) on the real Docker engine: a cluster run by a user who is not root runs its
 * container jobs as that user's uid:gid, so a file a task writes in the mounted submit directory
 * belongs to the submitter — not to root and not to nobody. The cluster and the CLI run as a
 * second local user (test/helpers/local-user.ts) in the `docker` group; needs root to create it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterInfo } from '../../src/api/types.js';
import { BUSYBOX, containersWithLabel, dockerTestEnv, removeContainers } from '../helpers/docker.js';
import { createLocalUser, type LocalUser } from '../helpers/local-user.js';
import { BIN, cleanEnv } from './harness.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const hasDockerGroup = (): boolean => {
  try {
    execFileSync('getent', ['group', 'docker'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// The user reaches the engine through the `docker` group of its socket (Debian's docker.io makes it).
const READY = ((await dockerTestEnv()).run && process.getuid?.() === 0 && hasDockerGroup()) || inCI;

describe.skipIf(!READY)('a cluster owner who is not root', () => {
  let user: LocalUser | null = null;
  let root = '';
  let work = '';
  let clusterId = '';
  const env = (): Record<string, string> => cleanEnv({ IRIS_HOME: path.join(root, 'home'), HOME: work });
  /** `iris ARGS…` as the user, in the work directory: its stdout (throws on a non-zero exit). */
  const irisAs = (args: readonly string[]): string =>
    user!.as([process.execPath, BIN, ...args], { cwd: work, env: env(), timeout: 90_000 });

  beforeAll(() => {
    user = createLocalUser('ws');
    execFileSync('usermod', ['-aG', 'docker', user!.name]);
    root = mkdtempSync(path.join(tmpdir(), 'iris-e2e-owner-'));
    chmodSync(root, 0o755);
    chownSync(root, user!.uid, user!.gid);
    work = path.join(root, 'work');
    mkdirSync(work, { mode: 0o755 });
    chownSync(work, user!.uid, user!.gid);
    const config = 'stop-grace: 1s\nworkers:\n  - {name: w0, cpu: 2, memory: 2GiB}\n';
    writeFileSync(path.join(work, '.irisrc.yaml'), config, { mode: 0o644 });
    chownSync(path.join(work, '.irisrc.yaml'), user!.uid, user!.gid);
    irisAs(['cluster', 'start', '--detach']);
    clusterId = (JSON.parse(irisAs(['cluster', 'status', '--json'])) as ClusterInfo).clusterId;
  }, 90_000);

  afterAll(() => {
    try {
      if (user && root) irisAs(['cluster', 'stop']);
    } catch {
      // already stopped
    }
    if (clusterId) removeContainers(containersWithLabel('iris.cluster', clusterId));
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("runs a container job as the owner's uid:gid: a file it writes in the submit directory is theirs", () => {
    const write = 'echo "uid=$(id -u):$(id -g)"; echo data > out.txt';
    const out = irisAs(['run', '--name', 'writer', '--image', BUSYBOX, '--', 'sh', '-c', write]);
    expect(out).toContain(`uid=${user!.uid}:${user!.gid}`);
    const written = statSync(path.join(work, 'out.txt'));
    expect({ uid: written.uid, gid: written.gid }).toEqual({ uid: user!.uid, gid: user!.gid });
    const runsAs = `Runs as: +containers of ${BUSYBOX} as ${user!.uid}:${user!.gid}`;
    expect(irisAs(['status', '/writer'])).toMatch(new RegExp(runsAs));
  }, 90_000);

  it('--no-workspace leaves the directory out and the configured container user is kept', () => {
    const out = irisAs(['run', '--image', BUSYBOX, '--no-workspace', '--', 'sh', '-c', 'echo "uid=$(id -u)"']);
    expect(out).toContain('uid=65534');
  }, 90_000);
});
