import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, cutNote, formatLines } from '../../src/logs/format.js';
import { LogWriter } from '../../src/logs/writer.js';
import { appendNote } from '../../src/logs/files.js';
import { readLines } from './read.js';

let dir = '';
let n = 0;
const file = (): string => join(dir, `w-${++n}.log`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-logs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('LogWriter', () => {
  it('splits chunks into timestamped lines per stream', async () => {
    let t = 1000;
    const path = file();
    const w = new LogWriter(path, { now: () => t });
    w.write('o', Buffer.from('a\nb'));
    t = 1001;
    w.write('e', Buffer.from('x\n'));
    t = 1002;
    w.write('o', Buffer.from('c\nd\n'));
    await w.close();
    // All three chunks join one write buffer: a time line wherever the time changes.
    expect(await readFile(path, 'utf8')).toBe('t1000\noa\nt1001\nex\nt1002\nobc\nod\n');
    expect(await readLines(path)).toEqual([
      { time: 1000, stream: 'stdout', text: 'a' },
      { time: 1001, stream: 'stderr', text: 'x' },
      { time: 1002, stream: 'stdout', text: 'bc' },
      { time: 1002, stream: 'stdout', text: 'd' },
    ]);
  });

  it('writes a partial last line of each stream at close', async () => {
    const path = file();
    const w = new LogWriter(path, { now: () => 5 });
    w.write('o', Buffer.from('no newline'));
    w.write('e', Buffer.from('err tail'));
    await w.close();
    expect(await readFile(path, 'utf8')).toBe('t5\nono newline\neerr tail\n');
  });

  it('keeps empty lines and raw bytes', async () => {
    const path = file();
    const w = new LogWriter(path, { now: () => 7 });
    w.write('o', Buffer.from('\n\ttab  spaces \r\nünï\n'));
    await w.close();
    expect(await readFile(path, 'utf8')).toBe('t7\no\no\ttab  spaces \r\nonï\n'.replace('onï', 'oünï'));
  });

  it('splits very long lines at 64 KiB without cutting a UTF-8 character', async () => {
    const path = file();
    const w = new LogWriter(path, { now: () => 1 });
    // 'é' is 2 bytes; an odd prefix makes a naive 64 KiB cut fall inside one.
    const text = 'x' + 'é'.repeat(MAX_LINE_BYTES);
    for (let i = 0; i < text.length; i += 10_000) w.write('o', Buffer.from(text.slice(i, i + 10_000)));
    w.write('o', Buffer.from('\n'));
    await w.close();
    const lines = await readLines(path);
    expect(lines.length).toBe(3);
    for (const l of lines) {
      expect(Buffer.byteLength(l.text)).toBeLessThanOrEqual(MAX_LINE_BYTES);
      expect(l.text).not.toContain('\uFFFD');
    }
    expect(lines.map((l) => l.text).join('')).toBe(text);
  });

  it('starts every write with a time line, so a note appended between writes changes no time', async () => {
    const path = file();
    let t = 10;
    const w = new LogWriter(path, { now: () => t });
    w.write('o', Buffer.from('first\n'));
    await new Promise((r) => setTimeout(r, 20)); // let the first write go out
    await appendNote(path, 'a note', 99);
    w.write('o', Buffer.from('second\n'));
    t = 11;
    await w.close();
    expect(await readFile(path, 'utf8')).toBe('t10\nofirst\nt99\nea note\nt10\nosecond\n');
    expect((await readLines(path)).map((l) => l.time)).toEqual([10, 99, 10]);
  });

  it('costs one byte per line plus a time line per write: 1.5x for 2-byte lines', async () => {
    const path = file();
    const w = new LogWriter(path, { now: () => 1_700_000_000_000 });
    const yes = Buffer.from('y\n'.repeat(100_000));
    w.write('o', yes);
    await w.close();
    const size = (await readFile(path)).length;
    expect(size).toBe(yes.length * 1.5 + 't1700000000000\n'.length);
  });

  it('cuts the log at its limit with a marker line, then drops output but keeps accepting it', async () => {
    const path = file();
    const w = new LogWriter(path, { now: () => 5, limitBytes: 1000 });
    for (let i = 0; i < 100; i++) expect(w.write('o', Buffer.from(`line ${String(i).padStart(3, '0')}\n`))).toBe(true);
    expect(w.cut).toBe(true);
    w.write('e', Buffer.from('after the cut\npartial'));
    await w.close();
    const lines = await readLines(path);
    const last = lines.at(-1)!;
    expect(last).toEqual({ time: 5, stream: 'stderr', text: cutNote(1000) });
    expect(cutNote(1024 ** 3)).toBe('[iris] log cut at 1GiB: further output of this attempt was dropped');
    expect(lines.slice(0, -1).map((l) => l.text)).toEqual(
      Array.from({ length: lines.length - 1 }, (_, i) => `line ${String(i).padStart(3, '0')}`),
    );
    expect((await readFile(path)).length).toBeLessThanOrEqual(1000 + 100);
    expect(lines.length).toBeGreaterThan(90);
  });

  it('never lets times go backwards', async () => {
    const times = [10, 9, 12, 11];
    const path = file();
    const w = new LogWriter(path, { now: () => times.shift()! });
    for (let i = 0; i < 4; i++) w.write('o', Buffer.from(`${i}\n`));
    await w.close();
    expect((await readLines(path)).map((l) => l.time)).toEqual([10, 10, 12, 12]);
  });

  it('creates no file when nothing was written, unless asked to', async () => {
    const path = file();
    await new LogWriter(path).close();
    await expect(readFile(path, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await new LogWriter(path, { createEmpty: true }).close();
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('appends to an existing file', async () => {
    const path = file();
    await writeFile(path, formatLines(1, 'e', ['before']));
    const w = new LogWriter(path, { now: () => 2 });
    w.write('o', Buffer.from('after\n'));
    await w.close();
    expect(await readFile(path, 'utf8')).toBe('t1\nebefore\nt2\noafter\n');
  });

  it('holds no fd after close, even with thousands of writers at once', async () => {
    const fds = async (): Promise<number> => (await readdir('/proc/self/fd')).length;
    const base = await fds();
    const sub = join(dir, 'many');
    await mkdir(sub);
    const writers = Array.from({ length: 2000 }, (_, i) => new LogWriter(join(sub, `${i}.log`), { now: () => i }));
    writers.forEach((w, i) => w.write(i % 2 ? 'o' : 'e', Buffer.from(`line ${i}\npartial`)));
    await Promise.all(writers.map((w) => w.close()));
    expect(await fds()).toBeLessThanOrEqual(base + 2);
    expect(await readFile(join(sub, '1999.log'), 'utf8')).toBe('t1999\noline 1999\nopartial\n');
  });

  it('rejects writes after close', async () => {
    const w = new LogWriter(file());
    await w.close();
    expect(() => w.write('o', Buffer.from('x'))).toThrow(/closed/);
  });

  it('drops output quietly when the file cannot be opened', async () => {
    await writeFile(join(dir, 'a-file'), '');
    const w = new LogWriter(join(dir, 'a-file', 'x.log'));
    w.write('o', Buffer.from('hello\n'));
    await w.close();
    expect(w.error?.code).toBe('ENOTDIR');
  });

  it('recreates a log directory removed after it was first made', async () => {
    const sub = join(dir, 'gone');
    await appendNote(join(sub, 'first.log'), 'x', 1); // remembers the directory
    await rm(sub, { recursive: true });
    const w = new LogWriter(join(sub, 'second.log'), { now: () => 3 });
    w.write('o', Buffer.from('back\n'));
    await w.close();
    expect(await readFile(join(sub, 'second.log'), 'utf8')).toBe('t3\noback\n');
  });
});

describe('appendNote', () => {
  it('writes each line of a note as a stderr line, creating the directory', async () => {
    const path = join(dir, 'notes', 'deep', 'a.log');
    await appendNote(path, 'attempt 1 preempted\nretrying', 42);
    await appendNote(path, 'done\n', 43);
    expect(await readFile(path, 'utf8')).toBe('t42\neattempt 1 preempted\neretrying\nt43\nedone\n');
  });
});
