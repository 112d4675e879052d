import { execFileSync } from 'node:child_process';
import {
  chownSync,
  linkSync,
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
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTaskFile, taskFileOwner, writeTaskFile, type TaskFileRules } from '../../src/runtime/task-file.js';

const me = process.geteuid!();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'iris-task-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rules: TaskFileRules = { maxBytes: 100, owner: me };
const write = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const refusal = (path: string, r = rules) => {
  const read = readTaskFile(path, r);
  return read.kind === 'refused' ? read.why : read.kind;
};

describe('readTaskFile', () => {
  it('reads a small regular file of the expected owner', () => {
    const read = readTaskFile(write('ok', '{"k": "v"}'), rules);
    expect(read.kind === 'ok' && read.data.toString()).toBe('{"k": "v"}');
    const empty = readTaskFile(write('empty', ''), rules);
    expect(empty.kind === 'ok' && empty.data.length).toBe(0);
    const full = readTaskFile(write('full', 'x'.repeat(100)), rules);
    expect(full.kind === 'ok' && full.data.length).toBe(100);
  });

  it('answers missing for no file', () => {
    expect(readTaskFile(join(dir, 'none'), rules)).toEqual({ kind: 'missing' });
  });

  it('never follows a symlink, even to a readable file, and says nothing of its target', () => {
    const secret = write('secret', 'root:$6$secret');
    symlinkSync(secret, join(dir, 'link'));
    symlinkSync('/dev/zero', join(dir, 'zero'));
    expect(refusal(join(dir, 'link'))).toBe('it is a symbolic link (never followed)');
    expect(refusal(join(dir, 'zero'))).toBe('it is a symbolic link (never followed)');
  });

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const started = performance.now();
    expect(refusal(fifo)).toBe('it is a FIFO, not a regular file');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a directory, a socket and a device', async () => {
    mkdirSync(join(dir, 'd'));
    expect(refusal(join(dir, 'd'))).toBe('it is a directory, not a regular file');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      expect(refusal(join(dir, 'sock'))).toBe('it is a socket, not a regular file');
    } finally {
      server.close();
    }
    expect(refusal('/dev/null', { maxBytes: 100, owner: null })).toBe('it is a character device, not a regular file');
  });

  it('refuses a hard link (two links), whoever owns it', () => {
    const own = write('own', '{}');
    linkSync(own, join(dir, 'hard'));
    expect(refusal(join(dir, 'hard'))).toBe("it has 2 hard links (a file of the task's own has one)");
    expect(refusal(own, { maxBytes: 100, owner: null })).toBe("it has 2 hard links (a file of the task's own has one)");
  });

  it.skipIf(me !== 0)('refuses a file of another owner; any owner when none is expected', () => {
    const other = write('other', '{}');
    chownSync(other, 4242, 4242);
    expect(refusal(other)).toBe(`it belongs to uid 4242, not to the task's user (uid ${me})`);
    expect(readTaskFile(other, { maxBytes: 100, owner: null }).kind).toBe('ok');
    expect(readTaskFile(other, { maxBytes: 100, owner: 4242 }).kind).toBe('ok');
  });

  it('refuses a file larger than the limit before reading it', () => {
    expect(refusal(write('big', 'x'.repeat(101)))).toBe('it is 101 bytes, more than the limit of 100');
  });
});

describe('taskFileOwner', () => {
  it("is the controller's uid for a process, the container user's uid when it is a number or root", () => {
    expect(taskFileOwner(null, 1000)).toBe(1000);
    expect(taskFileOwner(undefined, 1000)).toBe(1000);
    expect(taskFileOwner({ user: '65534:65534' }, 1000)).toBe(65534);
    expect(taskFileOwner({ user: '1234' }, 1000)).toBe(1234);
    expect(taskFileOwner({ user: 'root' }, 1000)).toBe(0);
    expect(taskFileOwner({ user: '0:0' }, 1000)).toBe(0);
  });

  it("is unknown (null) for a container user by name or the image's own", () => {
    expect(taskFileOwner({ user: 'app:app' }, 1000)).toBeNull();
    expect(taskFileOwner({}, 1000)).toBeNull();
  });
});

describe('writeTaskFile', () => {
  it('writes the text, readable by others (a container user), and leaves no temporary file', () => {
    const file = join(dir, 'notice');
    writeTaskFile(file, 'preempted by /eval (interactive)\n');
    expect(readFileSync(file, 'utf8')).toBe('preempted by /eval (interactive)\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['notice']);
  });

  it('replaces a symlink a task put in its place without writing through it', () => {
    const target = write('elsewhere', 'untouched');
    const file = join(dir, 'notice');
    symlinkSync(target, file);
    writeTaskFile(file, 'notice\n');
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('notice\n');
  });

  it('replaces a hard link without changing the file it shares', () => {
    const target = write('shared', 'untouched');
    const file = join(dir, 'notice');
    linkSync(target, file);
    writeTaskFile(file, 'notice\n');
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(readFileSync(file, 'utf8')).toBe('notice\n');
  });

  it('throws when the path is a directory, and leaves no temporary file', () => {
    const file = join(dir, 'notice');
    mkdirSync(file);
    expect(() => writeTaskFile(file, 'x')).toThrow();
    expect(readdirSync(dir)).toEqual(['notice']);
  });
});
