/**
 * The per-attempt log file format and its writer.
 *
 * One file per attempt. Every line is `<epochMs> <o|e> <text>\n` (`o` = stdout, `e` = stderr;
 * iris's own notes are written as `e` lines). Invariants of a file written by LogWriter:
 * - every line is complete (ends with `\n`); a partial trailing line of a stream is held back
 *   until its newline arrives or the writer closes (then it is written with a `\n` added);
 * - no line's text is longer than MAX_LINE_BYTES (longer lines are split, at a UTF-8 boundary);
 * - text bytes are written as they came (no re-encoding);
 * - lines of one writer appear in arrival order and their times never decrease;
 * - the file is opened with O_APPEND, so notes appended by another writer land between whole
 *   lines; the writer holds at most one fd, opened lazily at the first flush and always closed
 *   by close(). A writer that saw no output creates no file unless `createEmpty` is set
 *   (creating a file costs ~0.5 ms of kernel time here; readers take a missing file as empty).
 */
import { open, write, close as closeFd, mkdir, appendFile } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';

/** Stream tag as stored in the file. */
export type StreamTag = 'o' | 'e';
export type StreamName = 'stdout' | 'stderr';

export const MAX_LINE_BYTES = 64 * 1024;
/** Above this many unflushed bytes attached readables are paused until the writer catches up. */
const HIGH_WATER = 1024 * 1024;
const NEWLINE = 0x0a;

export function streamOf(tag: StreamTag): StreamName {
  return tag === 'o' ? 'stdout' : 'stderr';
}

/** Formats one complete line (text without its newline). */
export function formatLine(time: number, tag: StreamTag, text: string): string {
  return `${time} ${tag} ${text}\n`;
}

/** Length of the longest prefix of buf[start, start+max) that does not cut a UTF-8 sequence. */
function utf8Cut(buf: Buffer, start: number, max: number): number {
  let end = start + max;
  // Step back over continuation bytes (10xxxxxx) so the cut falls before a lead byte.
  let back = 0;
  while (back < 3 && end > start && (buf[end]! & 0xc0) === 0x80) {
    end--;
    back++;
  }
  return end > start ? end - start : max;
}

export interface LogWriterOptions {
  /** Clock for line times (tests inject one). */
  now?: () => number;
  /** Create the (empty) file at close even when nothing was written. Default false. */
  createEmpty?: boolean;
}

/**
 * Appends lines of two streams to one log file. Not safe to write after close().
 * `write()` returns false when the caller should pause; `onDrain` listeners run when it may go on.
 */
export class LogWriter {
  readonly path: string;
  private readonly now: () => number;
  private readonly createEmpty: boolean;
  private fd: number | null = null;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  private partial: { o: Buffer | null; e: Buffer | null } = { o: null, e: null };
  private lastTime = 0;
  private drainWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  /** First fs error met; later output is dropped (the task keeps running). */
  error: NodeJS.ErrnoException | null = null;

  constructor(path: string, options: LogWriterOptions = {}) {
    this.path = path;
    this.now = options.now ?? Date.now;
    this.createEmpty = options.createEmpty ?? false;
  }

  /** Feeds a chunk of a stream. Returns false when more than HIGH_WATER bytes wait to be written. */
  write(tag: StreamTag, chunk: Buffer): boolean {
    if (this.closed) throw new Error(`log writer for ${this.path} is closed`);
    if (chunk.length === 0 || this.error !== null) return this.pendingBytes < HIGH_WATER;
    const time = this.stamp();
    let data = chunk;
    const held = this.partial[tag];
    if (held !== null) {
      data = Buffer.concat([held, chunk]);
      this.partial[tag] = null;
    }
    let start = 0;
    const header = Buffer.from(`${time} ${tag} `, 'latin1');
    for (;;) {
      const nl = data.indexOf(NEWLINE, start);
      const lineEnd = nl < 0 ? data.length : nl;
      if (lineEnd - start > MAX_LINE_BYTES) {
        const len = utf8Cut(data, start, MAX_LINE_BYTES);
        this.push(header, data.subarray(start, start + len));
        start += len;
        continue;
      }
      if (nl < 0) break;
      this.push(header, data.subarray(start, nl));
      start = nl + 1;
    }
    if (start < data.length) this.partial[tag] = Buffer.from(data.subarray(start));
    this.schedule();
    return this.pendingBytes < HIGH_WATER;
  }

  /** Resolves when the writer is below its high-water mark again. */
  drained(): Promise<void> {
    if (this.pendingBytes < HIGH_WATER || this.error !== null) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Pipes a readable into the writer as `tag`, pausing it while the writer is behind.
   * Resolves when the readable ends, closes or errors (never rejects).
   */
  attach(readable: Readable, tag: StreamTag): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        readable.off('data', onData);
        resolve();
      };
      const onData = (chunk: Buffer | string): void => {
        if (this.closed) return;
        const ok = this.write(tag, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        if (!ok) {
          readable.pause();
          void this.drained().then(() => readable.resume());
        }
      };
      readable.on('data', onData);
      readable.once('end', finish);
      readable.once('close', finish);
      readable.once('error', finish);
    });
  }

  /** Flushes partial lines (adding a newline) and everything pending, then closes the fd. */
  close(): Promise<void> {
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<void> {
    for (const tag of ['o', 'e'] as const) {
      const held = this.partial[tag];
      if (held !== null) {
        this.partial[tag] = null;
        this.push(Buffer.from(`${this.stamp()} ${tag} `, 'latin1'), held);
      }
    }
    this.closed = true;
    this.schedule();
    await this.whenIdle();
    if (this.fd === null && this.error === null && this.createEmpty) {
      await this.openFd().catch((err: NodeJS.ErrnoException) => {
        this.error = err;
      });
    }
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      await new Promise<void>((resolve) => closeFd(fd, () => resolve()));
    }
  }

  private stamp(): number {
    const t = this.now();
    if (t > this.lastTime) this.lastTime = t;
    return this.lastTime;
  }

  private push(header: Buffer, text: Buffer): void {
    if (this.error !== null) return;
    this.pending.push(header, text, NEWLINE_BUF);
    this.pendingBytes += header.length + text.length + 1;
  }

  private whenIdle(): Promise<void> {
    if (!this.writing && (this.pending.length === 0 || this.error !== null)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    // Let the rest of this tick's chunks join the same write.
    setImmediate(() => this.flush());
  }

  private openFd(retry = true): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      open(this.path, 'a', 0o644, (err, fd) => {
        if (err) return reject(err);
        this.fd = fd;
        resolve();
      });
    }).catch(async (err: NodeJS.ErrnoException) => {
      // The directory may have been removed since ensureDir() remembered it.
      if (!retry || err.code !== 'ENOENT') throw err;
      madeDirs.delete(dirname(this.path));
      await ensureDir(dirname(this.path));
      return this.openFd(false);
    });
  }

  private flush(): void {
    if (this.error !== null || this.pending.length === 0) return this.settle();
    if (this.fd === null) {
      this.openFd().then(
        () => this.flush(),
        (err: NodeJS.ErrnoException) => this.fail(err),
      );
      return;
    }
    const buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.release();
    this.writeAll(buf, 0);
  }

  private writeAll(buf: Buffer, offset: number): void {
    write(this.fd!, buf, offset, buf.length - offset, null, (err, written) => {
      if (err) return this.fail(err);
      if (offset + written < buf.length) return this.writeAll(buf, offset + written);
      this.flush();
    });
  }

  private fail(err: NodeJS.ErrnoException): void {
    this.error ??= err;
    this.pending = [];
    this.pendingBytes = 0;
    this.release();
    this.settle();
  }

  private release(): void {
    if (this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private settle(): void {
    this.writing = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

const NEWLINE_BUF = Buffer.from('\n');

const madeDirs = new Set<string>();

/** mkdir -p, remembered per process so launches in one directory pay for it once. */
export function ensureDir(dir: string): Promise<void> {
  if (madeDirs.has(dir)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    mkdir(dir, { recursive: true }, (err) => {
      if (err) return reject(err);
      if (madeDirs.size > 10_000) madeDirs.clear();
      madeDirs.add(dir);
      resolve();
    });
  });
}

/**
 * Appends iris's own note (e.g. "attempt 2 stopped: preempted") to a log file as `e` lines,
 * one per line of `text`. Creates the directory and the file when needed.
 */
export async function appendNote(path: string, text: string, now: number = Date.now()): Promise<void> {
  await ensureDir(dirname(path));
  const lines = text.replace(/\n$/, '').split('\n');
  const body = lines.map((line) => formatLine(now, 'e', line)).join('');
  await new Promise<void>((resolve, reject) => appendFile(path, body, (err) => (err ? reject(err) : resolve())));
}
