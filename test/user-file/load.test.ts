/**
 * The one reader of YAML and JSON files a user wrote (src/user-file/load.ts), shared by the config
 * file, pipeline files and simulator workload files: its format rule, its size limit, and errors
 * that begin with the file, with one code for each kind of failure.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_USER_FILE_BYTES, formatOf, parseUserText, readUserText } from '../../src/user-file/load.js';
import { refusal, rejection } from '../helpers/refusal.js';

describe('the format of a file', () => {
  it.each([
    ['w.json', 'json'],
    ['W.JSON', 'json'],
    ['w.yaml', 'yaml'],
    ['w.yml', 'yaml'],
    ['.irisrc', 'yaml'],
    ['pipeline', 'yaml'],
    ['a.json.yaml', 'yaml'],
  ])('%s is %s', (file, format) => {
    expect(formatOf(file)).toBe(format);
  });
});

describe('parsing', () => {
  it.each([
    ['yaml', 'name: a\nstages: {}\n', { name: 'a', stages: {} }],
    ['yaml', '{"name": "a"}', { name: 'a' }],
    ['yaml', '', null],
    ['yaml', '# only a comment\n', null],
    ['json', '{"name": "a", "jobs": [{"a": 1}, {"a": 2}]}', { name: 'a', jobs: [{ a: 1 }, { a: 2 }] }],
    ['json', '{\n\t"a": {"b": 1},\n\t"c": {"b": 2}\n}', { a: { b: 1 }, c: { b: 2 } }],
    ['json', '{"a\\"b": 1, "a": 2, "x": "\\"a\\""}', { 'a"b': 1, a: 2, x: '"a"' }],
    ['json', '[{}, [], {"": 0}]', [{}, [], { '': 0 }]],
  ] as const)('%s %j', (format, text, expected) => {
    expect(parseUserText(text, 'f', format)).toEqual(expected);
  });

  it.each([
    ['yaml', 'a: [1\n', /^w\.yaml: invalid YAML: /],
    ['yaml', 'a: 1\na: 2\n', /^w\.yaml: invalid YAML: Map keys must be unique at line 2, column 1/],
    ['json', '{ "workers": [ }', /^w\.yaml: invalid JSON: /],
    ['json', '', /^w\.yaml: invalid JSON: /],
    ['json', 'name: a', /^w\.yaml: invalid JSON: /],
    ['json', '{"a": 1,\n "a": 2}', /^w\.yaml: invalid JSON: duplicate key "a" at line 2, column 2$/],
    ['json', '{"s": {"x": 1, "x": 2}}', /^w\.yaml: invalid JSON: duplicate key "x" at line 1, column 16$/],
    ['json', '{"\\u0061": 1, "a": 2}', /^w\.yaml: invalid JSON: duplicate key "a" at line 1, column 15$/],
  ] as const)('%s %j is refused, naming the file, with exit 2 and the hint', (format, text, message) => {
    const error = refusal(() => parseUserText(text, 'w.yaml', format, 'see the docs'));
    expect(error.code).toBe('invalid_argument');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(message);
    expect(error.hint).toBe('see the docs');
  });
});

describe('reading', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-user-file-')));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const TEXT = 'name: é\n';
  const file = (name: string, data: string | Buffer): string => {
    const at = join(dir, name);
    writeFileSync(at, data);
    return at;
  };

  it.each([
    ['plain UTF-8', Buffer.from(TEXT, 'utf8')],
    ['UTF-8 with a byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')])],
    ['UTF-16LE with its mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')])],
    ['UTF-16BE with its mark', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()])],
  ])('reads %s', async (name, bytes) => {
    expect(await readUserText(file(`${name}.yaml`, bytes))).toBe(TEXT);
  });

  it('follows a symbolic link to a file', async () => {
    const target = file('target.yaml', 'a: 1\n');
    symlinkSync(target, join(dir, 'link.yaml'));
    expect(await readUserText(join(dir, 'link.yaml'))).toBe('a: 1\n');
  });

  it('reads a file of exactly the limit', async () => {
    const at = file('max.yaml', '');
    truncateSync(at, MAX_USER_FILE_BYTES);
    expect((await readUserText(at)).length).toBe(MAX_USER_FILE_BYTES);
  });

  it.each([
    ['a missing file', () => join(dir, 'none.yaml'), 'not_found', 3, (f: string) => `${f}: no such file`],
    [
      'a directory',
      () => (mkdirSync(join(dir, 'd.yaml')), join(dir, 'd.yaml')),
      'invalid_argument',
      2,
      (f: string) => `${f}: not a regular file`,
    ],
    [
      'a FIFO (refused, never waited on)',
      () => (execFileSync('mkfifo', [join(dir, 'fifo.yaml')]), join(dir, 'fifo.yaml')),
      'invalid_argument',
      2,
      (f: string) => `${f}: not a regular file`,
    ],
    [
      'a file over the limit',
      () => {
        const at = file('big.yaml', '');
        truncateSync(at, MAX_USER_FILE_BYTES + 1);
        return at;
      },
      'invalid_argument',
      2,
      (f: string) => `${f}: too large (${MAX_USER_FILE_BYTES + 1} bytes; a file iris reads is at most 16 MiB)`,
    ],
    [
      'a path through a file',
      () => join(file('plain', ''), 'x.yaml'),
      'invalid_argument',
      2,
      (f: string) => `${f}: cannot read: ENOTDIR`,
    ],
  ])('refuses %s, naming it', async (_, make, code, exit, message) => {
    const at = make();
    const error = await rejection(readUserText(at));
    expect(error.code).toBe(code);
    expect(error.exitCode).toBe(exit);
    expect(error.message).toBe(message(at));
  });
});
