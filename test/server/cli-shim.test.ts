/**
 * The `iris` shim on tasks' PATH (src/server/cli-shim.ts): written atomically over whatever is at
 * `bin/iris` (a planted symlink is replaced, its target untouched), owner-only, runnable, and left
 * alone when it is already right.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { shimText, writeCliShim } from '../../src/server/cli-shim.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'iris-shim-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

it('writes bin/iris 0755 in a 0711 bin (a container user may run it), with no temporary file left', () => {
  const dir = writeCliShim(home, ROOT);
  expect(dir).toBe(path.join(home, 'bin'));
  expect(statSync(dir).mode & 0o7777).toBe(0o711);
  expect(statSync(path.join(dir, 'iris')).mode & 0o7777).toBe(0o755);
  expect(readdirSync(dir)).toEqual(['iris']);
  expect(readFileSync(path.join(dir, 'iris'), 'utf8')).toBe(shimText(ROOT));
  expect(execFileSync(path.join(dir, 'iris'), ['--version'], { encoding: 'utf8' })).toMatch(/\d+\.\d+\.\d+/);
});

it('replaces a symlink planted at bin/iris instead of writing through it', () => {
  const target = path.join(home, 'target');
  writeFileSync(target, 'root data\n');
  mkdirSync(path.join(home, 'bin'), { mode: 0o700 });
  symlinkSync(target, path.join(home, 'bin', 'iris'));
  writeCliShim(home, ROOT);
  expect(readFileSync(target, 'utf8')).toBe('root data\n');
  expect(lstatSync(path.join(home, 'bin', 'iris')).isFile()).toBe(true);
});

it('rewrites a shim with other text or a looser mode, and leaves a right one alone', () => {
  writeCliShim(home, ROOT);
  const file = path.join(home, 'bin', 'iris');
  const inode = statSync(file).ino;
  writeCliShim(home, ROOT);
  expect(statSync(file).ino).toBe(inode);
  chmodSync(file, 0o755);
  writeCliShim(home, ROOT);
  expect(statSync(file).mode & 0o7777).toBe(0o755);
  writeFileSync(file, '#!/bin/sh\necho evil\n');
  writeCliShim(home, ROOT);
  expect(readFileSync(file, 'utf8')).toBe(shimText(ROOT));
});

it('refuses a bin that is a symlink', () => {
  mkdirSync(path.join(home, 'elsewhere'));
  symlinkSync(path.join(home, 'elsewhere'), path.join(home, 'bin'));
  expect(() => writeCliShim(home, ROOT)).toThrow(/bin in the state directory is a symlink/);
  expect(readdirSync(path.join(home, 'elsewhere'))).toEqual([]);
});
