/**
 * E2E: a state directory nobody else controls (issue 12, section 1), on the built CLI as root.
 *
 * Reproduces the attacks: another local user pre-creates IRIS_HOME in a world-writable place and
 * plants `bin/iris` and a log file as symlinks to root's files; IRIS_HOME set to a /tmp-like
 * directory (root's, mode 1777) used to be chmodded to 0700 for everyone; a symlink planted at
 * `bin/iris` or at a log's path inside root's own state directory used to be followed; state.db
 * and logs used to be created 0644.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, runIris, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

const isRoot = process.getuid?.() === 0;
const mode = (p: string): string => (statSync(p).mode & 0o7777).toString(8).padStart(4, '0');

describe.runIf(isRoot || process.env.CI === 'true')('the state directory', () => {
  const user = `iristest${process.pid % 100000}`;
  let root: string;
  let shared: string;
  let work: string;
  const victim = (name: string) => path.join(root, `victim-${name}`);

  const asUser = (...argv: string[]): void => {
    execFileSync('runuser', ['-u', user, '--', ...argv], { stdio: 'pipe' });
  };
  const irisAt = (home: string, args: string[]) =>
    runIris(args, { cwd: work, env: { IRIS_HOME: home }, timeoutMs: 30_000 });

  beforeAll(() => {
    if (!isRoot) throw new Error('these tests need root (to create another user); CI runs as root');
    execFileSync('useradd', ['-M', user], { stdio: 'pipe' });
    root = mkdtempSync(path.join(tmpdir(), 'iris-statedir-'));
    chmodSync(root, 0o755); // the other user may walk in, as into any home
    shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777); // like /tmp: root's, world-writable, sticky
    work = path.join(root, 'work');
    mkdirSync(work);
    writeFileSync(path.join(work, '.irisrc.yaml'), CONFIG);
    for (const name of ['shim', 'log']) writeFileSync(victim(name), `root's ${name} file\n`, { mode: 0o644 });
  });

  afterAll(async () => {
    // On the old code the attacked clusters did start: stop them.
    for (const home of [path.join(shared, 'home'), shared]) {
      if (existsSync(path.join(home, 'run', 'iris.sock')))
        await irisAt(home, ['cluster', 'stop']).catch(() => undefined);
    }
    chmodSync(shared, 0o1777);
    try {
      execFileSync('userdel', [user], { stdio: 'pipe' });
    } catch {
      // already gone
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses an IRIS_HOME another user created, and follows none of the symlinks planted in it', async () => {
    const home = path.join(shared, 'home');
    asUser('mkdir', '-m', '0777', home);
    asUser('mkdir', '-m', '0777', path.join(home, 'bin'));
    asUser('ln', '-s', victim('shim'), path.join(home, 'bin', 'iris'));
    asUser('mkdir', '-p', '-m', '0777', path.join(home, 'logs', 'leak', '@1', 'task-0'));
    asUser('ln', '-s', victim('log'), path.join(home, 'logs', 'leak', '@1', 'task-0', 'attempt-0.log'));

    const r = await irisAt(home, ['submit', '--name', 'leak', '--cpu', '0.1', '--', 'echo', 'secret-output']);
    expect(r.code, describeRun(['submit'], r)).toBe(2);
    expect(r.stderr).toContain(`refusing the state directory ${home}`);
    expect(r.stderr).toContain('belongs to another user');
    expect(r.stderr).toMatch(/mkdir -m 700/); // the fix is named
    // Nothing of root's was written there, and the planted targets are untouched.
    expect(existsSync(path.join(home, 'state.db'))).toBe(false);
    expect(existsSync(path.join(home, 'cluster.log'))).toBe(false);
    expect(readFileSync(victim('shim'), 'utf8')).toBe("root's shim file\n");
    expect(readFileSync(victim('log'), 'utf8')).toBe("root's log file\n");
    // The foreground controller applies the same rule.
    const fg = await irisAt(home, ['cluster', 'start']);
    expect(fg.code, describeRun(['cluster', 'start'], fg)).toBe(2);
    expect(fg.stderr).toContain('belongs to another user');
  });

  it('refuses IRIS_HOME set to a shared sticky directory like /tmp, without changing its mode', async () => {
    const r = await irisAt(shared, ['cluster', 'start', '--detach']);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
    expect(r.stderr).toContain(`refusing the state directory ${shared}: it is writable by other users (mode 1777)`);
    expect(mode(shared)).toBe('1777');
    expect(existsSync(path.join(shared, 'cluster.log'))).toBe(false);
  });

  it('refuses a state directory under a directory another user owns', async () => {
    const theirs = path.join(shared, 'theirs');
    asUser('mkdir', '-m', '0755', theirs);
    const home = path.join(theirs, 'iris');
    const r = await irisAt(home, ['cluster', 'start', '--detach']);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
    expect(r.stderr).toContain(`${theirs}, above it, belongs to another user`);
    expect(existsSync(home)).toBe(false);
  });

  describe('in its own state directory', () => {
    const c = withCluster({ config: CONFIG, noStart: true });

    it('replaces a symlink planted at bin/iris and never follows one planted at a log path', async () => {
      // A home iris made itself, then symlinks planted in it while no cluster ran.
      mkdirSync(path.join(c.home, 'bin'), { recursive: true, mode: 0o700 });
      symlinkSync(victim('shim'), path.join(c.home, 'bin', 'iris'));
      // The first job of this cluster is run 1: its logs go to logs/leak/@1/ (docs/architecture.md).
      const logDir = path.join(c.home, 'logs', 'leak', '@1', 'task-0');
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      symlinkSync(victim('log'), path.join(logDir, 'attempt-0.log'));
      await c.start();

      const shim = lstatSync(path.join(c.home, 'bin', 'iris'));
      expect(shim.isFile()).toBe(true);
      expect(mode(path.join(c.home, 'bin', 'iris'))).toBe('0755');
      expect(readFileSync(victim('shim'), 'utf8')).toBe("root's shim file\n");

      const job = await c.submit(
        ['--name', 'leak', '--cpu', '0.1'],
        ['sh', '-c', 'echo secret-output; iris --version >/dev/null'],
      );
      const done = await c.waitForEnd(job);
      // The attempt fails with the reason instead of writing its output into root's file.
      expect(done.state).toBe('FAILED');
      expect(done.taskList[0]?.reason ?? '').toContain('ELOOP');
      expect(readFileSync(victim('log'), 'utf8')).toBe("root's log file\n");
      expect(lstatSync(path.join(logDir, 'attempt-0.log')).isSymbolicLink()).toBe(true);
    });

    it('keeps state.db, its WAL, logs and runtime files owner-only', async () => {
      const job = await c.submit(['--name', 'modes', '--cpu', '0.1'], ['sh', '-c', 'echo hello; echo oops >&2']);
      const done = await c.waitForEnd(job);
      expect(done.state).toBe('SUCCEEDED');
      // No state.db-shm (the WAL index lives in the controller's memory) and no controller.lock (the
      // lock is state.db's own): src/server/state-lock.ts.
      expect(existsSync(path.join(c.home, 'state.db-shm'))).toBe(false);
      const files = ['state.db', 'state.db-wal', 'cluster.pid', 'cluster.log', 'logs/modes/@2/task-0/attempt-0.log'];
      for (const f of files) expect(`${f} ${mode(path.join(c.home, f))}`).toBe(`${f} 0600`);
      for (const d of ['', 'run', 'logs', 'logs/modes', 'logs/modes/@2', 'logs/modes/@2/task-0'])
        expect(`${d || '.'} ${mode(path.join(c.home, d))}`).toBe(`${d || '.'} 0700`);
      // What a container's unprivileged user must reach: traversable, not listable.
      for (const d of ['bin', 'tasks']) expect(`${d} ${mode(path.join(c.home, d))}`).toBe(`${d} 0711`);
      const lines = await c.logs(job);
      expect(lines.map((l) => l.text)).toContain('hello');
    });
  });
});
