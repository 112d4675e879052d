/**
 * loadConfig reads only files the caller or root controls (src/config/find.ts, the rule of
 * src/model/path-trust.ts) on a real filesystem: which files are refused and how the message
 * reads, where the upward search stops, symlinks, the global config directory, and that a
 * refused JS config is never imported. Files of "another user" are made with chown to a uid no
 * account has (root only; test/hostile/config.test.ts runs the same attacks as a real second user).
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { loadConfig } from '../../src/config/index.js';
import { rejection } from '../helpers/refusal.js';
import { mountTmpfs } from '../helpers/tmpfs.js';

const uid = process.geteuid?.() ?? -1;
const isRoot = uid === 0;
const inCI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
/** Cases that chown to another uid need root; CI runs as root, so there they must not be skipped. */
const asRoot = it.runIf(isRoot || inCI);
const STRANGER = 4242;

let root: string;
let counter = 0;

function freshDir(): string {
  const dir = path.join(root, `case-${counter++}`);
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  return dir;
}

function write(file: string, content: string, mode = 0o644): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'iris-config-trust-')));
  chmodSync(root, 0o755);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** An env with the global config directory inside the case (never the tester's ~/.config/iris). */
const envIn = (dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  XDG_CONFIG_HOME: path.join(dir, 'xdg'),
  ...extra,
});

describe('files the caller controls still load', () => {
  it('a 0644 file in a 0755 directory of mine, found from a subdirectory', async () => {
    const project = freshDir();
    const file = write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: mine }]\n');
    mkdirSync(path.join(project, 'sub'));
    const config = await loadConfig({ cwd: path.join(project, 'sub'), env: envIn(project) });
    expect(config.source).toBe(file);
  });

  it('a file of mine under a sticky shared directory (like /tmp) loads, by search and explicitly', async () => {
    const shared = path.join(freshDir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const mine = path.join(shared, 'mine');
    const file = write(path.join(mine, '.irisrc.yaml'), 'workers: [{ name: sticky-ok }]\n');
    expect((await loadConfig({ cwd: mine, env: envIn(mine), stopDir: mine })).source).toBe(file);
    expect((await loadConfig({ cwd: '/', env: envIn(mine), explicitPath: file })).workers[0]!.id).toBe('sticky-ok');
  });

  it('my own symlink to my own file', async () => {
    const project = freshDir();
    const real = write(path.join(project, 'real.yaml'), 'workers: [{ name: linked }]\n');
    symlinkSync(real, path.join(project, '.irisrc.yaml'));
    const config = await loadConfig({ cwd: project, env: envIn(project), stopDir: project });
    expect(config.workers[0]!.id).toBe('linked');
  });
});

describe('files others could change are refused (exit 2), naming the path and the reason', () => {
  it('a group-writable config of my own', async () => {
    const project = freshDir();
    const file = write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: g }]\n', 0o664);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project), stopDir: project }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`refusing the config file ${file}: it is writable by its group (mode 0664)`);
    expect(error.hint).toContain(`chmod go-w ${file}`);
  });

  it('a config in a group-writable directory names the directory (it is refused, not passed over)', async () => {
    const project = freshDir();
    write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: above }]\n');
    const group = path.join(project, 'team');
    mkdirSync(group);
    chmodSync(group, 0o775);
    const file = write(path.join(group, 'iris.config.mjs'), 'export default {};\n');
    const error = await rejection(loadConfig({ cwd: group, env: envIn(project) }));
    expect(error.message).toBe(
      `refusing the config file ${file}: ${group}, a directory above it, is writable by its group (mode 0775)`,
    );
    // Without a file in it, the search goes on up: my file above it is out of the group's reach.
    rmSync(file);
    expect((await loadConfig({ cwd: group, env: envIn(project) })).source).toBe(path.join(project, '.irisrc.yaml'));
  });

  it('an explicit file (IRIS_CONFIG) writable by others says where the path came from', async () => {
    const project = freshDir();
    const file = write(path.join(project, 'cluster.yaml'), 'workers: [{ name: o }]\n', 0o666);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project, { IRIS_CONFIG: file }) }));
    expect(error.message).toBe(
      `refusing the config file ${file} (from IRIS_CONFIG): it is writable by others (mode 0666)`,
    );
  });

  it('my symlink to a file in a directory writable by all (no sticky bit) names the real path', async () => {
    const project = freshDir();
    const open = path.join(project, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const target = write(path.join(open, 'cfg.yaml'), 'workers: [{ name: planted }]\n');
    const link = path.join(project, 'mine');
    mkdirSync(link);
    symlinkSync(target, path.join(link, '.irisrc.yaml'));
    const error = await rejection(loadConfig({ cwd: link, env: envIn(project), stopDir: link }));
    expect(error.message).toBe(
      `refusing the config file ${path.join(link, '.irisrc.yaml')} (${target}): ${open}, a directory above it, is ` +
        `writable by others (mode 0777)`,
    );
  });

  it('a group-writable global config directory', async () => {
    const project = freshDir();
    const globalDir = path.join(project, 'xdg', 'iris');
    const file = write(path.join(globalDir, 'config.yaml'), 'workers: [{ name: global }]\n');
    chmodSync(globalDir, 0o775);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project), stopDir: project }));
    expect(error.message).toBe(
      `refusing the config file ${file}: ${globalDir}, a directory above it, is writable by its group (mode 0775)`,
    );
    chmodSync(globalDir, 0o755);
    expect((await loadConfig({ cwd: project, env: envIn(project), stopDir: project })).source).toBe(file);
  });
});

describe('the search does not look in or above a directory writable by others', () => {
  it('a sticky shared directory is not looked in, nor anything above it', async () => {
    const project = freshDir();
    write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: above-shared }]\n');
    const shared = path.join(project, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    // Planted in the shared directory itself, and writable by all: neither is even looked at.
    write(path.join(shared, '.irisrc.yaml'), 'workers: [{ name: planted }]\n', 0o666);
    const mine = path.join(shared, 'mine');
    mkdirSync(mine);
    const config = await loadConfig({ cwd: mine, env: envIn(project) });
    expect(config.source).toBeNull();
  });

  it('a working directory writable by others: no search at all, the global config still counts', async () => {
    const project = freshDir();
    const open = path.join(project, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    write(path.join(open, '.irisrc.yaml'), 'workers: [{ name: planted }]\n');
    expect((await loadConfig({ cwd: open, env: envIn(project) })).source).toBeNull();
    const global = write(path.join(project, 'xdg', 'iris', 'config'), 'workers: [{ name: global }]\n');
    expect((await loadConfig({ cwd: open, env: envIn(project) })).source).toBe(global);
  });
});

describe('files and directories of another user (chown; root)', () => {
  asRoot('a file owned by another uid is refused before it is read', async () => {
    const project = freshDir();
    const file = write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: theirs }]\n');
    chownSync(file, STRANGER, STRANGER);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project), stopDir: project }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      `refusing the config file ${file}: it is owned by uid ${STRANGER}, not by you (uid ${uid}) or root`,
    );
    expect(error.hint).toContain(`chown ${uid} ${file}`);
  });

  asRoot("another uid's iris.config.mjs is never imported (its marker does not appear)", async () => {
    const project = freshDir();
    const marker = path.join(project, 'IMPORTED');
    const file = write(
      path.join(project, 'iris.config.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport default {};\n`,
    );
    chownSync(file, STRANGER, STRANGER);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project), stopDir: project }));
    expect(error.message).toContain(`refusing the config file ${file}: it is owned by uid ${STRANGER}`);
    expect(existsSync(marker)).toBe(false);
    // The same file, explicitly: refused too, still not imported.
    await rejection(loadConfig({ cwd: project, env: envIn(project), explicitPath: file }));
    expect(existsSync(marker)).toBe(false);
  });

  asRoot("my file in another uid's directory is refused naming the directory", async () => {
    const project = freshDir();
    const theirs = path.join(project, 'theirs');
    mkdirSync(theirs);
    const file = write(path.join(theirs, '.irisrc.yaml'), 'workers: [{ name: x }]\n');
    chownSync(theirs, STRANGER, STRANGER);
    const error = await rejection(loadConfig({ cwd: '/', env: envIn(project), explicitPath: file }));
    expect(error.message).toBe(
      `refusing the config file ${file}: ${theirs}, a directory above it, is owned by uid ${STRANGER}, not by you ` +
        `(uid ${uid}) or root`,
    );
    // Not "chown their directory": copy the file out.
    expect(error.hint).toBe(
      `uid ${STRANGER} could replace what lies under ${theirs}: if you trust the file, copy it to a directory of ` +
        `your own and name it with --config or IRIS_CONFIG, or run iris elsewhere`,
    );
  });

  asRoot('a symlink another uid planted, even to my own file, is refused', async () => {
    const project = freshDir();
    const real = write(path.join(project, 'real.yaml'), 'workers: [{ name: mine }]\n');
    const link = path.join(project, '.irisrc.yaml');
    symlinkSync(real, link);
    lchownSync(link, STRANGER, STRANGER);
    const error = await rejection(loadConfig({ cwd: project, env: envIn(project), stopDir: project }));
    expect(error.message).toBe(
      `refusing the config file ${link}: it is owned by uid ${STRANGER}, not by you (uid ${uid}) or root`,
    );
  });

  asRoot(
    "from inside another uid's directory: their file above the working directory is refused; mine above theirs loads",
    async () => {
      const project = freshDir();
      const mine = write(path.join(project, '.irisrc.yaml'), 'workers: [{ name: above }]\n');
      const theirs = path.join(project, 'theirs');
      const sub = path.join(theirs, 'sub');
      mkdirSync(sub, { recursive: true });
      const planted = write(path.join(theirs, '.irisrc.yaml'), 'workers: [{ name: planted }]\n');
      for (const p of [theirs, sub, planted]) chownSync(p, STRANGER, STRANGER);
      const error = await rejection(loadConfig({ cwd: sub, env: envIn(project) }));
      expect(error.message).toBe(
        `refusing the config file ${planted}: it is owned by uid ${STRANGER}, not by you (uid ${uid}) or root`,
      );
      rmSync(planted);
      expect((await loadConfig({ cwd: sub, env: envIn(project) })).source).toBe(mine);
    },
  );

  asRoot(
    'a 0777 directory on a read-only mount (like a Kubernetes ConfigMap volume) is not writable by anyone: its file ' +
      'loads',
    async () => {
      const project = freshDir();
      mkdirSync(path.join(project, 'etc-iris'));
      const fs = mountTmpfs(1, path.join(project, 'etc-iris'));
      if (!fs) throw new Error('cannot mount a tmpfs (root needed)');
      try {
        chmodSync(fs.dir, 0o777);
        const file = write(path.join(fs.dir, '.irisrc.yaml'), 'workers: [{ name: configmap }]\n');
        // Writable: refused.
        const error = await rejection(loadConfig({ cwd: '/', env: envIn(project), explicitPath: file }));
        expect(error.message).toBe(
          `refusing the config file ${file}: ${fs.dir}, a directory above it, is writable by others (mode 0777)`,
        );
        execFileSync('mount', ['-o', 'remount,ro', fs.dir], { stdio: 'pipe' });
        expect((await loadConfig({ cwd: '/', env: envIn(project), explicitPath: file })).workers[0]!.id).toBe(
          'configmap',
        );
      } finally {
        fs.unmount();
      }
    },
  );
});
