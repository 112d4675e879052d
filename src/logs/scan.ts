/**
 * Block-wise reading of one log file (format: src/logs/format.ts), forward and backward.
 *
 * Guarantees:
 * - memory per open file is one block (plus one line longer than a block, which only a foreign
 *   file has: the writer caps lines at MAX_LINE_BYTES); no string is longer than
 *   MAX_SEGMENT_TEXT plus one line;
 * - only complete lines count, unless `partial` is asked for (a finished writer's file): then a
 *   last line without its `\n` is taken too;
 * - lines that do not parse are skipped; a missing file reads as empty;
 * - a LogSource reads its next block only when asked (`next()`), and never past the `end` it
 *   was given, so a file that grows while it is read still gives a finite read;
 * - lines before `since` are skipped without building strings for them.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { ERR_BYTE, MAX_LINE_BYTES, OUT_BYTE, TIME_BYTE, copyBytes, type StreamName } from './format.js';

const NEWLINE = 0x0a;
const SPACE = 0x20;
/**
 * The read block of one file. Small on purpose: what a reader holds while it awaits the disk or
 * the socket survives young-generation GCs and is promoted; with several concurrent readers,
 * 256 KiB blocks made the controller's old generation grow by ~25 MB per reader between full
 * GCs, 64 KiB blocks do not (and read as fast: docs/benchmarks.md, "Logs").
 */
export const MAX_BLOCK = 64 * 1024;
export const MIN_BLOCK = 16 * 1024;
/**
 * Text bytes after which a segment is closed. It keeps every string the reader makes below V8's
 * large-object size (128 KiB): such strings die young and cheaply, while large ones wait for a
 * full GC and make a busy controller's RSS grow.
 */
export const MAX_SEGMENT_TEXT = 16 * 1024;

/** Consecutive lines of one file with one time and one stream. */
export interface Segment {
  time: number;
  stream: StreamName;
  /** The lines joined with `\n` (no trailing newline). */
  text: string;
  count: number;
}

/** Where to read a file from: a byte offset and the time in effect there. */
export interface Position {
  offset: number;
  time: number;
}

export async function openOrNull(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Parses the decimal digits of buf[start, end); -1 when there are none or anything else. */
function digits(buf: Buffer, start: number, end: number): number {
  if (start >= end || end - start > 16) return -1;
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = buf[i]! - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** A line of the format before time lines: `<epochMs> <o|e> <text>`; null when it is not one. */
function oldLine(buf: Buffer, start: number, end: number): { time: number; tag: number; text: number } | null {
  const sp = buf.indexOf(SPACE, start);
  if (sp < 0 || sp >= end || end < sp + 3 || buf[sp + 2] !== SPACE) return null;
  const tag = buf[sp + 1];
  if (tag !== OUT_BYTE && tag !== ERR_BYTE) return null;
  const time = digits(buf, start, sp);
  if (time < 0) return null;
  return { time, tag, text: sp + 3 };
}

/**
 * Decodes the complete lines of buf[start, end) (end just past a `\n`, or the end of a partial
 * last line) into segments, starting with `time` in effect. Returns the time in effect after them.
 * `scratch` must hold at least end - start bytes.
 */
export function decode(
  buf: Buffer,
  start: number,
  end: number,
  time: number,
  since: number,
  scratch: Buffer,
  out: Segment[],
): number {
  let segTag = 0;
  let segTime = 0;
  let segLen = 0;
  let segCount = 0;
  const close = (): void => {
    if (segCount === 0) return;
    out.push({
      time: segTime,
      stream: segTag === OUT_BYTE ? 'stdout' : 'stderr',
      text: scratch.toString('utf8', 0, segLen - 1),
      count: segCount,
    });
    segCount = 0;
    segLen = 0;
  };
  let s = start;
  while (s < end) {
    let nl = buf.indexOf(NEWLINE, s);
    if (nl < 0 || nl >= end) nl = end;
    const first = buf[s]!;
    let tag = first;
    let textStart = s + 1;
    if (first === TIME_BYTE) {
      const t = digits(buf, s + 1, nl);
      if (t >= 0) time = t;
      s = nl + 1;
      continue;
    } else if (first !== OUT_BYTE && first !== ERR_BYTE) {
      const old = first >= 0x30 && first <= 0x39 ? oldLine(buf, s, nl) : null;
      if (old === null) {
        s = nl + 1;
        continue;
      }
      time = old.time;
      tag = old.tag;
      textStart = old.text;
    }
    if (time >= since) {
      if (segCount > 0 && (tag !== segTag || time !== segTime || segLen >= MAX_SEGMENT_TEXT)) close();
      segTag = tag;
      segTime = time;
      segLen = copyBytes(buf, textStart, nl, scratch, segLen);
      scratch[segLen++] = NEWLINE;
      segCount++;
    }
    s = nl + 1;
  }
  close();
  return time;
}

export interface SourceOptions {
  /** Lines with an earlier time are skipped (default: none). */
  since?: number;
  /** Block size in bytes (default MAX_BLOCK). */
  blockBytes?: number;
  /** Take a last line without its newline (the writer has finished). */
  partial?: boolean;
  /** Read no further than this offset (default: the size when the source opens). */
  end?: number;
}

/**
 * Reads one file forward from a position, one block per next(): each call gives the segments of
 * the complete lines in the next block (none when all were before `since`), null once the end
 * is reached. `position` is always just
 * past what was given so far (where a later read continues).
 */
export class LogSource {
  position: Position;
  private fh: FileHandle | null = null;
  private opened = false;
  private end = 0;
  private buf: Buffer;
  private scratch: Buffer;
  private readonly since: number;
  private partial: boolean;

  constructor(
    readonly path: string,
    start: Position,
    private options: SourceOptions = {},
  ) {
    this.position = { ...start };
    const block = Math.max(MIN_BLOCK, Math.min(options.blockBytes ?? MAX_BLOCK, MAX_BLOCK));
    this.buf = Buffer.allocUnsafe(block);
    this.scratch = Buffer.allocUnsafe(block);
    this.since = options.since ?? 0;
    this.partial = options.partial ?? false;
  }

  /**
   * Reads again from `start` (default: where it stopped) up to the file's size at the next read
   * or `end`, keeping its buffers: a follower reads each new part of a file with one source.
   */
  restart(start: Position = this.position, options: Pick<SourceOptions, 'partial' | 'end'> = {}): void {
    this.position = { ...start };
    this.options = { ...this.options, end: options.end };
    this.partial = options.partial ?? false;
    this.opened = false;
  }

  private async openOnce(): Promise<void> {
    this.opened = true;
    this.fh = await openOrNull(this.path);
    if (this.fh === null) return;
    const size = (await this.fh.stat()).size;
    // A file now shorter than where we were (truncated or replaced) is read from its start.
    if (size < this.position.offset) this.position = { offset: 0, time: 0 };
    this.end = Math.min(size, this.options.end ?? size);
  }

  /** Segments of the next block; null at the end (the file is then closed). */
  async next(): Promise<Segment[] | null> {
    if (!this.opened) await this.openOnce();
    for (;;) {
      if (this.fh === null) return null;
      const pos = this.position.offset;
      const want = Math.min(this.buf.length, this.end - pos);
      const filled = want > 0 ? await readUpTo(this.fh, this.buf, want, pos) : 0;
      const atEnd = filled < want || pos + filled >= this.end;
      let stop = filled === 0 ? 0 : this.buf.lastIndexOf(NEWLINE, filled - 1) + 1;
      if (atEnd && this.partial) stop = filled; // a last line without its newline counts
      if (stop === 0) {
        if (atEnd) {
          await this.close();
          return null;
        }
        // A full block without a newline: a line longer than any the writer makes.
        if (this.grow()) continue;
        this.position = { offset: await this.skipLine(pos + filled), time: this.position.time };
        continue;
      }
      const out: Segment[] = [];
      const time = decode(this.buf, 0, stop, this.position.time, this.since, this.scratch, out);
      this.position = { offset: pos + stop, time };
      return out;
    }
  }

  /** Doubles the block up to what the longest line the writer makes needs. */
  private grow(): boolean {
    if (this.buf.length >= MAX_LINE_BYTES * 2) return false;
    this.buf = Buffer.allocUnsafe(this.buf.length * 2);
    this.scratch = Buffer.allocUnsafe(this.buf.length);
    return true;
  }

  /** Offset just past the next newline at or after `from` (or the end). */
  private async skipLine(from: number): Promise<number> {
    let pos = from;
    while (pos < this.end) {
      const n = await readUpTo(this.fh!, this.buf, Math.min(this.buf.length, this.end - pos), pos);
      if (n === 0) break;
      const nl = this.buf.indexOf(NEWLINE);
      if (nl >= 0 && nl < n) return pos + nl + 1;
      pos += n;
    }
    return this.end;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }
}

async function readUpTo(fh: FileHandle, buf: Buffer, want: number, pos: number): Promise<number> {
  let off = 0;
  while (off < want) {
    const { bytesRead } = await fh.read(buf, off, want - off, pos + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off;
}

/** Where a forward read must start to see the last `tail` lines, and how many lines it will see. */
export interface TailStart extends Position {
  /** Lines (at or after `since`) between the position and `end`: at least min(tail, all of them). */
  count: number;
  /** The end the count was taken at (give it to the LogSource). */
  end: number;
}

/**
 * Scans a file backward from its end, block by block, to the first position from which a forward
 * read sees the last `tail` lines at or after `since`. The position is a line where the time is
 * known (a time line, an old-format line or the start of the file), so a few more lines than
 * `tail` may follow it: `count` says how many, and the caller skips the surplus.
 */
export async function tailStart(
  path: string,
  tail: number,
  options: { since?: number; partial?: boolean; blockBytes?: number } = {},
): Promise<TailStart> {
  const fh = await openOrNull(path);
  if (fh === null) return { offset: 0, time: 0, count: 0, end: 0 };
  try {
    const size = (await fh.stat()).size;
    const since = options.since ?? 0;
    const block = Math.max(MIN_BLOCK, Math.min(options.blockBytes ?? MAX_BLOCK, MAX_BLOCK));
    let buf = Buffer.allocUnsafe(block);
    // The end: just past the last complete line, or the file's end when a partial line counts.
    let end = size;
    if (!options.partial && size > 0) {
      const last = Buffer.allocUnsafe(1);
      await readUpTo(fh, last, 1, size - 1);
      if (last[0] !== NEWLINE) end = await lastNewlineBefore(fh, size, buf);
    }
    if (tail <= 0) return { offset: end, time: 0, count: 0, end };
    let matched = 0;
    let unresolved = 0; // data lines after the last time-setting line seen so far
    // Blocks are read from the back: [lo, hi) is the block, followed in buf by `carry` bytes
    // (the start of the region already scanned: an incomplete first line of the last block).
    let hi = end;
    let carry = 0;
    while (hi > 0) {
      if (carry === buf.length) {
        if (buf.length >= MAX_LINE_BYTES * 4) {
          carry = 0; // a line longer than any the writer makes: drop what is held of it
        } else {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, carry);
          buf = bigger;
        }
        continue;
      }
      const len = Math.min(buf.length - carry, hi);
      const lo = hi - len;
      if (carry > 0) buf.copy(buf, len, 0, carry);
      await readUpTo(fh, buf, len, lo);
      const filled = len + carry;
      // Walk the lines of buf[0, filled) from the back; the first one may continue in the block
      // before, unless lo is the start of the file.
      let lineEnd = filled;
      for (;;) {
        const prevNl = lineEnd >= 2 ? buf.lastIndexOf(NEWLINE, lineEnd - 2) : -1;
        if (prevNl < 0 && lo > 0) break;
        const lineStart = prevNl + 1;
        const r = classify(buf, lineStart, lineEnd);
        if (r === 'data') unresolved++;
        else if (r !== null) {
          // A line that sets the time: the unresolved lines after it have that time.
          if (r.time >= since) matched += unresolved + (r.data ? 1 : 0);
          unresolved = 0;
          if (matched >= tail) return { offset: lo + lineStart, time: r.time, count: matched, end };
        }
        if (lineStart === 0) break;
        lineEnd = lineStart;
      }
      if (lo === 0) break;
      carry = lineEnd; // buf[0, lineEnd) is the incomplete first line
      hi = lo;
    }
    // The start of the file: lines before any time line have time 0.
    if (0 >= since) matched += unresolved;
    return { offset: 0, time: 0, count: matched, end };
  } finally {
    await fh.close();
  }
}

/** What a line means to a backward scan: 'data' (time unknown yet), a time setter, or null (skipped). */
function classify(buf: Buffer, start: number, end: number): 'data' | { time: number; data: boolean } | null {
  const e = end > start && buf[end - 1] === NEWLINE ? end - 1 : end;
  if (e <= start) return null;
  const first = buf[start];
  if (first === OUT_BYTE || first === ERR_BYTE) return 'data';
  if (first === TIME_BYTE) {
    const time = digits(buf, start + 1, e);
    return time >= 0 ? { time, data: false } : null;
  }
  const old = oldLine(buf, start, e);
  return old === null ? null : { time: old.time, data: true };
}

async function lastNewlineBefore(fh: FileHandle, size: number, buf: Buffer): Promise<number> {
  let hi = size;
  while (hi > 0) {
    const len = Math.min(buf.length, hi);
    await readUpTo(fh, buf, len, hi - len);
    const nl = buf.lastIndexOf(NEWLINE, len - 1);
    if (nl >= 0) return hi - len + nl + 1;
    hi -= len;
  }
  return 0;
}
