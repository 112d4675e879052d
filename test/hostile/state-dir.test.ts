/**
 * Hostile suite: the state directory (docs/security.md, "The state directory: one controller,
 * disk full, damage"), on the built binary against real local clusters.
 *
 * - With `controller.lock` deleted and both sockets gone, a second `cluster start` used to start
 *   a second controller on the same state.db: it is refused (exit 4) naming the running one, which
 *   keeps its task.
 * - With 0 bytes free under IRIS_HOME (a real tmpfs), `cluster start` used to fail ("cannot lock …
 *   database or disk is full", hint "check the permissions") and offline `iris jobs` printed a
 *   stack trace: the cluster starts (refusing new work until space returns) and `jobs` answers; a
 *   new state directory, whose database cannot be created, is refused with a true hint (exit 7).
 * - A truncated, bit-flipped, random, empty or foreign state.db used to give stack traces (exit 70)
 *   or start an empty cluster that orphans the logs: every command answers `state.db is damaged:
 *   …` with a hint, exit 6, and changes nothing; `--fresh` starts empty deliberately.
 * - Offline reads used to create `state.db-wal` and `state.db-shm`: they change nothing.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  E2ECluster,
  controllersOf,
  describeRun,
  isRunning,
  killAll,
  marker,
  pidsWithMarker,
  runIris,
  waitUntil,
  type RunResult,
} from '../e2e/harness.js';
import { SocketClient } from '../../src/client/socket-client.js';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';
import { DAMAGES, damage, damageDetail } from '../helpers/damage.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;

/** Every file under `dir` with what a write would change: size, mtime, inode. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSocket()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const st = statSync(file);
    out[path.relative(dir, file)] = entry.isDirectory() ? 'dir' : `${st.size} ${st.mtimeMs} ${st.ino}`;
  }
  return out;
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** No stack trace and no "internal error": what a user error looks like. */
function expectUserError(args: readonly string[], r: RunResult): void {
  expect(r.stderr, describeRun(args, r)).not.toContain('internal error');
  expect(r.stderr, describeRun(args, r)).not.toMatch(/\n\s+at /);
}

describe('the state directory', () => {
  const tag = marker('hostile-statedir');
  const clusters: E2ECluster[] = [];
  const cluster = async (opts: { noStart?: boolean } = {}): Promise<E2ECluster> => {
    const c = await E2ECluster.create({ config: CONFIG, ...opts });
    clusters.push(c);
    return c;
  };
  afterAll(async () => {
    for (const c of clusters) await c.stop().catch(() => undefined);
    for (const c of clusters) killAll(controllersOf(c.home));
    killAll(pidsWithMarker(tag));
    for (const c of clusters) await c.dispose();
  });

  it('one controller: with controller.lock and both sockets gone, a second `cluster start` is refused and the first ' +
    'keeps working', async () => {
    const c = await cluster();
    await c.submit(
      ['--name', 'keep', '--cpu', '0.5'],
      ['sh', '-c', `echo up; while :; do sleep 1; done # ${tag}-keep`],
    );
    await c.waitForLog('/keep', 'up');
    const first = c.pid()!;
    const taskPids = pidsWithMarker(`${tag}-keep`);
    expect(taskPids.length).toBeGreaterThan(0);

    // The lock file (an older iris's) and both sockets disappear; the owner's socket is kept aside
    // (renamed) only so the test can ask the first controller afterwards.
    rmSync(path.join(c.home, 'controller.lock'), { force: true });
    rmSync(path.join(c.home, 'tasks', 'iris.sock'));
    const aside = path.join(c.home, 'aside.sock');
    renameSync(c.socket, aside);

    for (const args of [
      ['cluster', 'start', '--detach'],
      ['cluster', 'start'],
    ]) {
      const r = await c.iris(args, { timeoutMs: 30_000 });
      expect(r.code, describeRun(args, r)).toBe(4);
      expect(r.stderr).toContain(`another iris controller (pid ${first})`);
      expect(r.stderr).toContain(`kill ${first}`);
      expectUserError(args, r);
    }
    const jobs = await c.iris(['jobs']);
    expect(jobs.code, describeRun(['jobs'], jobs)).toBe(6);
    expect(jobs.stderr).toContain(`(pid ${first}) does not answer`);

    expect(controllersOf(c.home)).toEqual([first]);
    expect(isRunning(first)).toBe(true);
    expect(pidsWithMarker(`${tag}-keep`)).toEqual(taskPids);
    const client = new SocketClient({ socketPath: aside, env: {} });
    const job = await client.job('/keep');
    expect(job.state).toBe('RUNNING');
    expect(job.taskList[0]!.attempts.map((a) => [a.attempt, a.state])).toEqual([[0, 'RUNNING']]);
    renameSync(aside, c.socket);
    await c.stop();
  }, 90_000);

  describe('a full disk', () => {
    let fs: Tmpfs | null = null;
    afterAll(() => fs?.unmount());

    it('with 0 bytes free, offline `jobs` answers from the saved state and `cluster start` starts, refusing work ' +
      'until space returns', async (ctx) => {
      const c = await cluster({ noStart: true });
      mkdirSync(c.home, { recursive: true });
      fs = mountTmpfs(8, c.home);
      if (!fs) return ctx.skip();
      await c.start();
      await c.submit(['--name', 'before', '--cpu', '0.1'], ['echo', 'saved']);
      await c.waitForState('/before', 'SUCCEEDED');
      await c.stop();
      // A second, new state directory on the same filesystem: its database cannot be created.
      const fresh = path.join(c.home, 'fresh');
      mkdirSync(fresh, { mode: 0o700 });
      fs.fill();
      expect(statSync(path.join(c.home, 'state.db')).size).toBeGreaterThan(0);

      for (const args of [
        ['cluster', 'start'],
        ['cluster', 'start', '--detach'],
      ]) {
        const r = await runIris(args, { env: { IRIS_HOME: fresh }, cwd: c.cwd, timeoutMs: 30_000 });
        expect(r.code, describeRun(args, r)).toBe(7);
        expect(r.stderr).toContain(`the disk holding ${fresh} is full`);
        expect(r.stderr).toMatch(/Hint: free space on that filesystem/);
        expectUserError(args, r);
      }

      const jobs = await c.iris(['jobs']);
      expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
      expect(jobs.stdout).toMatch(/before.*SUCCEEDED/);
      expectUserError(['jobs'], jobs);

      const start = await c.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
      expect(start.code, describeRun(['cluster', 'start', '--detach'], start)).toBe(0);
      expect((await c.job('/before')).state).toBe('SUCCEEDED');
      const refused = await c.iris(['submit', '--name', 'later', '--', 'true']);
      expect(refused.code, describeRun(['submit'], refused)).toBe(7);
      expect(refused.stderr).toContain(`no space left on ${path.join(c.home, 'state.db')}`);

      fs.free();
      await waitUntil(
        'a submission accepted',
        () => c.iris(['submit', '--name', 'later', '--', 'true']),
        (r) => r.code === 0,
        { timeoutMs: 20_000 },
      );
      expect((await c.waitForEnd('/later')).state).toBe('SUCCEEDED');
      await c.stop();
    }, 90_000);
  });

  describe('a damaged state.db', () => {
    let pristine: string;
    let root: string;
    beforeAll(async () => {
      const c = await cluster();
      await c.submit(['--name', 'a', '--cpu', '0.1'], ['echo', 'from-a']);
      await c.waitForState('/a', 'SUCCEEDED');
      await c.stop();
      pristine = c.home;
      root = mkdtempSync(path.join(tmpdir(), 'iris-damaged-'));
    }, 60_000);
    afterAll(() => {
      for (const dir of readdirSync(root)) killAll(controllersOf(path.join(root, dir)));
      rmSync(root, { recursive: true, force: true });
    });

    const copyOf = (name: string): string => {
      const home = path.join(root, name);
      cpSync(pristine, home, { recursive: true, filter: (src) => !src.endsWith('.sock') });
      return home;
    };
    const irisAt = (home: string, args: readonly string[]) =>
      runIris(args, { env: { IRIS_HOME: home }, cwd: root, timeoutMs: 30_000 });
    const COMMANDS = [['cluster', 'start'], ['jobs'], ['status', 'a'], ['logs', 'a'], ['history']] as const;

    for (const kind of DAMAGES) {
      it(`${kind}: every command answers "state.db is damaged: …" with a hint, exit 6, and changes ` +
        `nothing`, async () => {
        const home = copyOf(kind);
        const db = path.join(home, 'state.db');
        damage(db, kind);
        const before = digest(db);
        const files = snapshot(home);
        const results = await Promise.all(COMMANDS.map((args) => irisAt(home, args)));
        COMMANDS.forEach((args, i) => {
          const r = results[i]!;
          expect(r.code, describeRun(args, r)).toBe(6);
          expect(r.stderr, describeRun(args, r)).toContain(`Error: ${db} is damaged: `);
          expect(r.stderr, describeRun(args, r)).toMatch(damageDetail(kind));
          expect(r.stderr, describeRun(args, r)).toContain('iris cluster start --fresh');
          expectUserError(args, r);
        });
        expect(controllersOf(home)).toEqual([]);
        expect(digest(db)).toBe(before);
        expect(snapshot(home)).toEqual(files);
      }, 60_000);
    }

    it('a 0-byte state.db beside the logs of earlier runs is never re-initialised; --fresh starts empty ' +
      'deliberately, deleting nothing', async () => {
      const home = copyOf('fresh');
      damage(path.join(home, 'state.db'), 'zero-bytes');
      const refused = await irisAt(home, ['cluster', 'start', '--detach']);
      expect(refused.code, describeRun(['cluster', 'start', '--detach'], refused)).toBe(6);
      expect(refused.stderr).toContain(
        `is damaged: it is empty, but ${path.join(home, 'logs')} holds the logs of earlier runs`,
      );
      expect(statSync(path.join(home, 'state.db')).size).toBe(0);

      const fresh = await irisAt(home, ['cluster', 'start', '--detach', '--fresh']);
      expect(fresh.code, describeRun(['cluster', 'start', '--fresh'], fresh)).toBe(0);
      try {
        const jobs = await irisAt(home, ['jobs', '--json']);
        expect(JSON.parse(jobs.stdout)).toEqual([]);
        const [aside] = readdirSync(home).filter((name) => name.startsWith('aside-'));
        expect(aside).toBeDefined();
        expect(readdirSync(path.join(home, aside!)).sort()).toEqual(expect.arrayContaining(['logs', 'state.db']));
        expect(existsSync(path.join(home, aside!, 'logs', 'a'))).toBe(true);
      } finally {
        await irisAt(home, ['cluster', 'stop']);
      }
    }, 60_000);
  });

  it('offline reads change nothing in the state directory: after a clean stop, and after a kill -9 left a ' +
    'WAL', async () => {
    const c = await cluster();
    await c.submit(['--name', 'r', '--cpu', '0.1'], ['echo', 'read-me']);
    await c.waitForState('/r', 'SUCCEEDED');
    const reads = [['jobs'], ['status', 'r'], ['logs', 'r'], ['history']];
    const readAll = async (): Promise<void> => {
      for (const args of reads) {
        const r = await c.iris(args);
        expect(r.code, describeRun(args, r)).toBe(0);
        expect(r.stderr).toContain('(read-only)');
      }
    };

    await c.stop();
    let before = snapshot(c.home);
    await readAll();
    expect(snapshot(c.home)).toEqual(before);

    await c.start();
    await c.submit(['--name', 'late', '--cpu', '0.1'], ['echo', 'late']);
    await c.waitForState('/late', 'SUCCEEDED');
    const pid = c.pid()!;
    process.kill(pid, 'SIGKILL');
    await waitUntil(
      'the controller gone',
      async () => isRunning(pid),
      (running) => !running,
    );
    expect(statSync(path.join(c.home, 'state.db-wal')).size).toBeGreaterThan(32);
    before = snapshot(c.home);
    await readAll();
    // The WAL's changes are read (the job submitted last is there), and nothing changed.
    expect((await c.iris(['jobs'])).stdout).toMatch(/late.*SUCCEEDED/);
    expect(snapshot(c.home)).toEqual(before);
  }, 90_000);
});
