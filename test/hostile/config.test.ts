/**
 * Hostile suite, issue 28 section 2: configuration only from files the owner controls, and a CLI
 * that checks what "the cluster" answers. The built binary, run as root, against a second local
 * user (test/helpers/local-user.ts) who plants config files:
 *
 * (a) the other user's `.irisrc.yaml` in a shared sticky directory above root's working directory
 *     is not even looked at: the cluster starts with the machine's defaults;
 * (a') in a directory of that user above the working directory, it is refused with exit 2 naming
 *     the file and its owner, by `cluster start` and by the cluster `submit` starts;
 * (b) the other user's `iris.config.mjs`, which writes a marker when imported, is never imported;
 *     nor is a cosmiconfig "meta config" (`.config/config.mjs`) in the working directory;
 * (c) a group-writable config of root's own is refused;
 * (d) root's own config in its own 0755 directory still loads;
 * (e) a stand-in "cluster" answering `{}` (on the owner's socket, or at an IRIS_CONTROLLER_ADDRESS
 *     a task could be given) makes `iris submit` fail with exit 6 instead of printing a job.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, describeRun, runIris, type RunResult } from '../e2e/harness.js';
import { createLocalUser, type LocalUser } from '../helpers/local-user.js';

const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const isRoot = process.getuid?.() === 0;

describe.runIf(isRoot || inCI)('config files of another local user, and answers of a stand-in cluster', () => {
  let user: LocalUser;
  let root: string;
  let shared: string;
  let homes = 0;
  const started: string[] = [];

  /** A fresh IRIS_HOME of root's (missing: the CLI creates it 0700). */
  const freshHome = (): string => path.join(root, `home-${homes++}`);
  const iris = (args: string[], cwd: string, home: string, env: Record<string, string> = {}): Promise<RunResult> =>
    runIris(args, {
      cwd,
      env: { IRIS_HOME: home, XDG_CONFIG_HOME: path.join(root, 'xdg'), ...env },
      timeoutMs: 30_000,
    });
  /** As the other user: write `content` to `file` (its own file, mode 0644). */
  const plant = (file: string, content: string): void => {
    user.as(['sh', '-c', 'umask 022; cat > "$1"', 'sh', file], { input: content });
  };
  const start = async (cwd: string, home: string): Promise<RunResult> => {
    const r = await iris(['cluster', 'start', '--detach'], cwd, home);
    if (r.code === 0) started.push(home);
    return r;
  };
  const workerIds = async (cwd: string, home: string): Promise<string[]> => {
    const r = await iris(['workers', '--json'], cwd, home);
    expect(r.code, describeRun(['workers', '--json'], r)).toBe(0);
    return (JSON.parse(r.stdout) as Array<{ id: string }>).map((w) => w.id);
  };

  beforeAll(() => {
    assertBuilt();
    const made = createLocalUser('cfg');
    if (!made) throw new Error('these tests need root (a second local user); CI runs as root');
    user = made;
    root = mkdtempSync(path.join(tmpdir(), 'iris-hostile-config-'));
    chmodSync(root, 0o755); // the other user may walk in, as into any directory
    shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777); // like /tmp: root's, writable by all, sticky
  });

  afterAll(async () => {
    // On the old code some of these clusters started with the other user's config: stop them all.
    for (const home of started) await iris(['cluster', 'stop'], root, home).catch(() => undefined);
    user?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it(
    "(a) another user's .irisrc.yaml in a shared sticky directory above the working directory is not " + 'loaded',
    async () => {
      const planted = path.join(shared, '.irisrc.yaml');
      plant(planted, 'workers:\n  - {name: planted, cpu: 1, memory: 1GiB}\n');
      const work = path.join(shared, 'root-work', 'sub');
      mkdirSync(work, { recursive: true });
      const home = freshHome();
      const r = await start(work, home);
      expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(0);
      expect(await workerIds(work, home)).toEqual(['local']);
      rmSync(planted);
    },
  );

  it(
    "(a') another user's .irisrc.yaml in their directory above the working directory is refused (exit 2), naming " +
      'it',
    async () => {
      const theirs = path.join(shared, 'theirs-a');
      user.as(['mkdir', '-p', '-m', '0755', path.join(theirs, 'sub')]);
      const planted = path.join(theirs, '.irisrc.yaml');
      plant(planted, 'task-door: {listen: "127.0.0.1:47999", advertise: "http://127.0.0.1:47998"}\n');
      const cwd = path.join(theirs, 'sub');
      const expected =
        `refusing the config file ${planted}: ` + `it is owned by uid ${user.uid}, not by you (uid 0) or root`;

      const home = freshHome();
      const r = await start(cwd, home);
      expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
      expect(r.stderr).toContain(expected);
      expect(r.stderr).toContain(`chown 0 ${planted}`);
      expect(existsSync(path.join(home, 'run', 'iris.sock'))).toBe(false);

      // `submit` starts a cluster in its working directory: the same refusal, no job printed.
      const home2 = freshHome();
      const s = await iris(['submit', '--', 'true'], cwd, home2);
      if (s.code === 0) started.push(home2);
      expect(s.code, describeRun(['submit', '--', 'true'], s)).toBe(2);
      expect(s.stderr).toContain(expected);
      expect(s.stdout).toBe('');
    },
  );

  it("(b) another user's iris.config.mjs is never imported: its marker does not appear", async () => {
    const theirs = path.join(shared, 'theirs-b');
    user.as(['mkdir', '-p', '-m', '0755', path.join(theirs, 'sub')]);
    const marker = path.join(theirs, 'IMPORTED-AS-ROOT');
    const planted = path.join(theirs, 'iris.config.mjs');
    // Imported as root, this would write the marker (as root) and then give a valid config.
    plant(
      planted,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}` +
        `, String(process.getuid()));\nexport default {};\n`,
    );
    const home = freshHome();
    const r = await start(path.join(theirs, 'sub'), home);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
    expect(r.stderr).toContain(`refusing the config file ${planted}: it is owned by uid ${user.uid}`);
    expect(existsSync(marker)).toBe(false);

    // Named explicitly (IRIS_CONFIG): refused too, still not imported.
    const e = await iris(['cluster', 'start', '--detach'], root, freshHome(), { IRIS_CONFIG: planted });
    expect(e.code, describeRun(['cluster', 'start', '--detach'], e)).toBe(2);
    expect(e.stderr).toContain(
      `refusing the config file ${planted} (from IRIS_CONFIG): it is owned by uid ${user.uid}`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it(
    "(b) a cosmiconfig meta config (.config/config.mjs) in another user's working directory is never " + 'imported',
    async () => {
      const theirs = path.join(shared, 'theirs-meta');
      user.as(['mkdir', '-p', '-m', '0755', path.join(theirs, '.config')]);
      const marker = path.join(theirs, 'META-IMPORTED-AS-ROOT');
      plant(
        path.join(theirs, '.config', 'config.mjs'),
        `import { writeFileSync } from 'node:fs';\n` +
          `writeFileSync(${JSON.stringify(marker)}, 'x');\nexport default {};\n`,
      );
      const home = freshHome();
      const r = await start(theirs, home);
      // Not a config file of iris: the cluster starts with the defaults, and the module is never run.
      expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(await workerIds(theirs, home)).toEqual(['local']);
    },
  );

  it("(c) a group-writable config of root's own is refused", async () => {
    const work = path.join(root, 'work-c');
    mkdirSync(work, { mode: 0o755 });
    const file = path.join(work, '.irisrc.yaml');
    writeFileSync(file, 'workers:\n  - {name: mine, cpu: 1, memory: 1GiB}\n');
    chmodSync(file, 0o664);
    const home = freshHome();
    const r = await start(work, home);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(2);
    expect(r.stderr).toContain(`refusing the config file ${file}: it is writable by its group (mode 0664)`);
    expect(r.stderr).toContain(`chmod go-w ${file}`);
  });

  it("(d) root's own config in its own 0755 directory still loads", async () => {
    const work = path.join(root, 'work-d');
    mkdirSync(path.join(work, 'sub'), { recursive: true, mode: 0o755 });
    const file = path.join(work, '.irisrc.yaml');
    writeFileSync(file, 'workers:\n  - {name: mine, cpu: 1, memory: 1GiB}\n', { mode: 0o644 });
    const home = freshHome();
    const r = await start(path.join(work, 'sub'), home);
    expect(r.code, describeRun(['cluster', 'start', '--detach'], r)).toBe(0);
    expect(await workerIds(work, home)).toEqual(['mine']);
  });

  describe('(e) a stand-in cluster answering {}', () => {
    let server: Server;
    const requests: string[] = [];
    /** Answers health as a cluster would (so the CLI goes on), and `{}` to everything else. */
    const standIn = (): Server =>
      createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`);
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(req.url === '/v1/health' ? JSON.stringify({ ok: true, version: '0.1.0', pid: process.pid }) : '{}');
        });
      });

    afterAll(async () => {
      if (server?.listening) await new Promise((resolve) => server.close(resolve));
    });

    it('on the owner socket: `iris submit` exits 6 naming the socket, prints no job', async () => {
      const home = freshHome();
      mkdirSync(path.join(home, 'run'), { recursive: true, mode: 0o700 });
      chmodSync(home, 0o700);
      const socket = path.join(home, 'run', 'iris.sock');
      server = standIn();
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      try {
        const r = await iris(['submit', '--', 'true'], root, home);
        expect(r.code, describeRun(['submit', '--', 'true'], r)).toBe(6);
        expect(r.stderr).toContain(
          `Error: the cluster at ${socket} sent an answer iris cannot use: name is missing (expected a string) ` +
            `(POST /v1/jobs)`,
        );
        expect(r.stdout).toBe('');
        expect(requests).toContain('POST /v1/jobs');
        // A reading command too: `{}` is not a list of jobs.
        const j = await iris(['jobs'], root, home);
        expect(j.code, describeRun(['jobs'], j)).toBe(6);
        expect(j.stderr).toContain('the answer must be an array, got an object (GET /v1/jobs)');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('at the IRIS_CONTROLLER_ADDRESS a task was given (task door on TCP): exit 6, no job printed', async () => {
      server = standIn();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const r = await iris(['submit', '--', 'true'], root, freshHome(), {
          IRIS_CONTROLLER_ADDRESS: url,
          IRIS_TASK_TOKEN: 'tok',
        });
        expect(r.code, describeRun(['submit', '--', 'true'], r)).toBe(6);
        expect(r.stderr).toContain(
          `Error: the cluster at ${url} sent an answer iris cannot use: name is missing (expected a string) (POST ` +
            `/v1/jobs)`,
        );
        expect(r.stdout).toBe('');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('an error the stand-in sends with terminal escapes is printed escaped, never raw', async () => {
      const home = freshHome();
      mkdirSync(path.join(home, 'run'), { recursive: true, mode: 0o700 });
      chmodSync(home, 0o700);
      const socket = path.join(home, 'run', 'iris.sock');
      // A title-setting OSC and a clear-screen CSI in the message and the hint.
      const hostile = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          if (req.url === '/v1/health') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ ok: true, version: '0.1.0', pid: process.pid }));
            return;
          }
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: { code: 'invalid_argument', message: 'bad\u001b]0;pwned\u0007 x', hint: '\u001b[2Jline1\nline2' },
            }),
          );
        });
      });
      await new Promise<void>((resolve) => hostile.listen(socket, resolve));
      try {
        const r = await iris(['submit', '--', 'true'], root, home);
        expect(r.code, describeRun(['submit', '--', 'true'], r)).toBe(2);
        expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
        expect(r.stderr).toContain('Error: bad\\x1b]0;pwned\\x07 x');
        expect(r.stderr).toContain('Hint: \\x1b[2Jline1\nline2');
      } finally {
        await new Promise((resolve) => hostile.close(resolve));
      }
    });
  });
});
