/**
 * The state-directory rule (src/api/state-dir.ts) on a real filesystem: what is refused and why,
 * that nothing existing is chmodded, and that files are made 0600 without following symlinks.
 * Cases with another owner use chown (root only; the e2e test covers a real second user).
 */
import {
  chmodSync,
  chownSync,
  lchownSync,
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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkStateDir, ensurePrivateDir, ensurePrivateFile, prepareStateDir } from '../../src/api/state-dir.js';
import { refusal } from '../helpers/refusal.js';

const isRoot = process.getuid?.() === 0;
const mode = (p: string): number => statSync(p).mode & 0o7777;

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'iris-statedir-unit-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('checkStateDir / prepareStateDir', () => {
  it('refuses /tmp itself (writable by everyone), with exit code 2 and a fix', () => {
    const e = refusal(() => checkStateDir('/tmp'));
    expect(e.message).toBe(
      `refusing the state directory /tmp: it is writable by other users (mode ` +
        `${mode('/tmp').toString(8).padStart(4, '0')})`,
    );
    expect(e.exitCode).toBe(2);
    expect(e.hint).toContain('mkdir -m 700');
  });

  it('accepts a new directory under /tmp-like sticky parents and creates it (and its parents) 0700', () => {
    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const home = path.join(shared, 'a', 'home');
    prepareStateDir(home);
    expect(mode(home)).toBe(0o700);
    expect(mode(path.join(shared, 'a'))).toBe(0o700);
    expect(mode(shared)).toBe(0o1777);
  });

  it('accepts an existing 0755 directory of the caller and leaves its mode alone', () => {
    const home = path.join(root, 'home');
    mkdirSync(home);
    chmodSync(home, 0o755);
    prepareStateDir(home);
    expect(mode(home)).toBe(0o755);
  });

  it('refuses a group-writable state directory without chmodding it', () => {
    const home = path.join(root, 'home');
    mkdirSync(home);
    chmodSync(home, 0o770);
    expect(refusal(() => prepareStateDir(home)).message).toContain('it is writable by other users (mode 0770)');
    expect(mode(home)).toBe(0o770);
  });

  it('refuses a parent writable by others without the sticky bit', () => {
    const open = path.join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const e = refusal(() => prepareStateDir(path.join(open, 'home')));
    expect(e.message).toContain(`${open}, above it, is writable by other users and has no sticky bit (mode 0777)`);
    expect(e.hint).toContain(`chmod go-w ${open}`);
  });

  it('refuses a path that leads through a symlink into a directory others can write', () => {
    const open = path.join(root, 'open');
    mkdirSync(path.join(open, 'home'), { recursive: true });
    chmodSync(open, 0o777);
    symlinkSync(open, path.join(root, 'link'));
    expect(refusal(() => checkStateDir(path.join(root, 'link', 'home'))).message).toContain(
      `${open}, above it, is writable`,
    );
  });

  it('refuses a state directory that is a file', () => {
    writeFileSync(path.join(root, 'file'), '');
    expect(refusal(() => checkStateDir(path.join(root, 'file'))).message).toContain('it is not a directory');
  });

  it.runIf(isRoot)('refuses a state directory, a symlink to one, or a parent owned by another user', () => {
    const home = path.join(root, 'theirs');
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, 65534, 65534);
    expect(refusal(() => prepareStateDir(home)).message).toContain(
      'it belongs to another user (uid 65534), not to you (uid 0)',
    );
    expect(refusal(() => prepareStateDir(path.join(home, 'iris'))).message).toContain(
      `${home}, above it, belongs to another user (uid 65534)`,
    );
    const mine = path.join(root, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    const link = path.join(root, 'link');
    symlinkSync(mine, link);
    checkStateDir(link); // a link of mine to a directory of mine
    const planted = path.join(root, 'planted');
    symlinkSync(mine, planted);
    lchownSync(planted, 65534, 65534);
    expect(refusal(() => checkStateDir(planted)).message).toContain(
      'it is a symlink that belongs to another user (uid 65534)',
    );
  });
});

describe('ensurePrivateFile / ensurePrivateDir', () => {
  it('creates a missing file 0600 and tightens an existing one of the caller', () => {
    const file = path.join(root, 'state.db');
    ensurePrivateFile(file);
    expect(mode(file)).toBe(0o600);
    writeFileSync(path.join(root, 'old'), 'kept');
    chmodSync(path.join(root, 'old'), 0o644);
    ensurePrivateFile(path.join(root, 'old'));
    expect(mode(path.join(root, 'old'))).toBe(0o600);
    expect(readFileSync(path.join(root, 'old'), 'utf8')).toBe('kept');
  });

  it('refuses a symlink where a file or a directory is expected, leaving the target alone', () => {
    const target = path.join(root, 'target');
    writeFileSync(target, 'root data');
    chmodSync(target, 0o644);
    symlinkSync(target, path.join(root, 'state.db'));
    expect(refusal(() => ensurePrivateFile(path.join(root, 'state.db'))).message).toContain(
      'is a symlink; iris will not follow or use it',
    );
    expect(mode(target)).toBe(0o644);
    mkdirSync(path.join(root, 'elsewhere'));
    symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'bin'));
    expect(refusal(() => ensurePrivateDir(path.join(root, 'bin'))).message).toContain(
      'is a symlink; iris will not use it',
    );
    expect(lstatSync(path.join(root, 'bin')).isSymbolicLink()).toBe(true);
  });
});
