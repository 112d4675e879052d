/**
 * LogWriter: appends the lines of a task's two streams to its attempt's log file, in the format
 * of format.ts (see the invariants there: a `t` line starts every write, complete lines only,
 * lines split at MAX_LINE_BYTES, the log limit and its cut note, at most one fd).
 */
import { open, write, close as closeFd } from 'node:fs';
import { dirname } from 'node:path';
import { ERR_BYTE, MAX_LINE_BYTES, OUT_BYTE, copyBytes, cutNote, utf8Cut, type StreamTag } from './format.js';
import { ensureDir, forgetDir, LOG_OPEN_FLAGS } from './files.js';

/** Above this many unflushed bytes attached readables are paused until the writer catches up. */
const HIGH_WATER = 1024 * 1024;
const NEWLINE = 0x0a;

export interface LogWriterOptions {
  /** Clock for line times (tests inject one). */
  now?: () => number;
  /** Create the (empty) file at close even when nothing was written. Default false. */
  createEmpty?: boolean;
  /** Bytes of output after which the log is cut (CUT_NOTE); default none. */
  limitBytes?: number | null;
  /** Bytes of this attempt's output already in the log (a later writer of the same log counts on from there). */
  countedBytes?: number;
}

/**
 * Appends lines of two streams to one log file. Not safe to write after close().
 * `write()` returns false when the caller should pause; `drained()` resolves when it may go on.
 */
export class LogWriter {
  readonly path: string;
  private readonly now: () => number;
  private readonly createEmpty: boolean;
  private readonly limitBytes: number | null;
  private fd: number | null = null;
  /** Bytes waiting to be written: pend[0, pendLen). */
  private pend: Buffer = Buffer.allocUnsafe(0);
  /** The buffer of the last finished write, reused for the next lines (a chatty task makes no garbage). */
  private spare: Buffer | null = null;
  private pendLen = 0;
  /** Time of the last `t` line in pend (-1: pend has none yet). */
  private pendTime = -1;
  /** Bytes handed to pend so far (what the limit counts). */
  private total = 0;
  private writing = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  private partial: { o: Buffer | null; e: Buffer | null } = { o: null, e: null };
  private lastTime = 0;
  private drainWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  /** First fs error met; later output is dropped (the task keeps running). */
  error: NodeJS.ErrnoException | null = null;
  /** Set once output passed `limitBytes`: the log ends with the cut note, later output was dropped. */
  cut = false;

  constructor(path: string, options: LogWriterOptions = {}) {
    this.path = path;
    this.now = options.now ?? Date.now;
    this.createEmpty = options.createEmpty ?? false;
    this.limitBytes = options.limitBytes ?? null;
    this.total = options.countedBytes ?? 0;
  }

  /** Feeds a chunk of a stream. Returns false when more than HIGH_WATER bytes wait to be written. */
  write(tag: StreamTag, chunk: Buffer): boolean {
    if (this.closed) throw new Error(`log writer for ${this.path} is closed`);
    if (chunk.length === 0 || this.error !== null || this.cut) return this.pendLen < HIGH_WATER;
    const time = this.stamp();
    let data = chunk;
    let start = 0;
    const tagByte = tag === 'o' ? OUT_BYTE : ERR_BYTE;
    const held = this.partial[tag];
    // Worst case: every byte a newline (1 byte -> 2), plus a time line.
    this.reserve(2 * chunk.length + (held?.length ?? 0) + 64);
    if (held !== null) {
      this.partial[tag] = null;
      const nl = chunk.indexOf(NEWLINE);
      if (nl >= 0 && held.length + nl <= MAX_LINE_BYTES) {
        // The held start of a line and its end in this chunk, without joining them first.
        this.push(time, tagByte, held, 0, held.length, chunk, nl);
        start = nl + 1;
      } else {
        data = Buffer.concat([held, chunk]);
      }
    }
    for (;;) {
      const nl = data.indexOf(NEWLINE, start);
      const lineEnd = nl < 0 ? data.length : nl;
      if (lineEnd - start > MAX_LINE_BYTES) {
        const len = utf8Cut(data, start, MAX_LINE_BYTES);
        this.push(time, tagByte, data, start, start + len);
        start += len;
        continue;
      }
      if (nl < 0) break;
      this.push(time, tagByte, data, start, nl);
      start = nl + 1;
    }
    if (start < data.length && !this.cut) this.partial[tag] = Buffer.from(data.subarray(start));
    this.schedule();
    return this.pendLen < HIGH_WATER;
  }

  /** Resolves when the writer is below its high-water mark again. */
  drained(): Promise<void> {
    if (this.pendLen < HIGH_WATER || this.error !== null) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Resolves once every complete line handed so far is in the file (a partial line held for its
   * newline is not). Lets a caller that tracks its own read offsets record them only after the
   * bytes they cover are written, without closing the writer.
   */
  flushed(): Promise<void> {
    this.schedule();
    return this.whenIdle();
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
        this.reserve(held.length + 32);
        this.push(this.stamp(), tag === 'o' ? OUT_BYTE : ERR_BYTE, held, 0, held.length);
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

  /** Makes room for `more` bytes after pend[0, pendLen). */
  private reserve(more: number): void {
    if (this.pendLen + more <= this.pend.length) return;
    const need = Math.max(this.pendLen + more, this.pend.length * 2, 64 * 1024);
    if (this.pendLen === 0 && this.spare !== null && this.spare.length >= need) {
      this.pend = this.spare;
      this.spare = null;
      return;
    }
    const bigger = Buffer.allocUnsafe(need);
    this.pend.copy(bigger, 0, 0, this.pendLen);
    this.pend = bigger;
  }

  /**
   * Appends the line data[start, end) (followed by more[0, moreEnd) when given) with its tag, and
   * a time line first when needed. Room is reserved.
   */
  private push(
    time: number,
    tagByte: number,
    data: Buffer,
    start: number,
    end: number,
    more?: Buffer,
    moreEnd = 0,
  ): void {
    if (this.error !== null || this.cut) return;
    const before = this.pendLen;
    if (this.limitBytes !== null && this.total + (end - start) + moreEnd + 2 > this.limitBytes) {
      this.cutHere(time);
      return;
    }
    if (this.pendTime !== time) this.pushTime(time);
    const pend = this.pend;
    let at = this.pendLen;
    pend[at++] = tagByte;
    at = copyBytes(data, start, end, pend, at);
    if (more !== undefined) {
      more.copy(pend, at, 0, moreEnd);
      at += moreEnd;
    }
    pend[at++] = NEWLINE;
    this.pendLen = at;
    this.total += at - before;
  }

  private pushTime(time: number): void {
    this.pendLen += this.pend.write(`t${time}\n`, this.pendLen, 'latin1');
    this.pendTime = time;
  }

  private cutHere(time: number): void {
    const note = Buffer.from(`e${cutNote(this.limitBytes!)}\n`);
    this.reserve(note.length + 32);
    if (this.pendTime !== time) this.pushTime(time);
    note.copy(this.pend, this.pendLen);
    this.pendLen += note.length;
    this.cut = true;
    this.partial = { o: null, e: null };
  }

  private whenIdle(): Promise<void> {
    if (!this.writing && (this.pendLen === 0 || this.error !== null)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.writing || this.pendLen === 0) return;
    this.writing = true;
    // Let the rest of this tick's chunks join the same write.
    setImmediate(() => this.flush());
  }

  private openFd(retry = true): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      open(this.path, LOG_OPEN_FLAGS, 0o600, (err, fd) => {
        if (err) return reject(err);
        this.fd = fd;
        resolve();
      });
    }).catch(async (err: NodeJS.ErrnoException) => {
      // The directory may have been removed since ensureDir() remembered it.
      if (!retry || err.code !== 'ENOENT') throw err;
      forgetDir(dirname(this.path));
      await ensureDir(dirname(this.path));
      return this.openFd(false);
    });
  }

  private flush(): void {
    if (this.error !== null || this.pendLen === 0) {
      this.settle();
      return;
    }
    if (this.fd === null) {
      this.openFd().then(
        () => this.flush(),
        (err: NodeJS.ErrnoException) => this.fail(err),
      );
      return;
    }
    // Hand the filled buffer to write(); the next lines go to a fresh one, starting with a time line.
    const whole = this.pend;
    const length = this.pendLen;
    this.pend = Buffer.allocUnsafe(0);
    this.pendLen = 0;
    this.pendTime = -1;
    this.release();
    this.writeAll(whole, length, 0);
  }

  private writeAll(whole: Buffer, length: number, offset: number): void {
    write(this.fd!, whole, offset, length - offset, null, (err, written) => {
      if (err) return this.fail(err);
      if (offset + written < length) return this.writeAll(whole, length, offset + written);
      if (whole.length <= SPARE_MAX) this.spare = whole;
      this.flush();
    });
  }

  private fail(err: NodeJS.ErrnoException): void {
    this.error ??= err;
    this.pend = Buffer.allocUnsafe(0);
    this.pendLen = 0;
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

/** Write buffers up to this size are kept for reuse. */
const SPARE_MAX = 4 * 1024 * 1024;
