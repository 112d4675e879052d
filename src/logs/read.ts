/**
 * Reading per-attempt log files (format: src/logs/format.ts).
 *
 * Only complete lines count: a trailing line without its `\n` is not returned (it may be
 * half-written) and follow mode picks it up once it is complete. Lines that do not parse are
 * skipped. A missing file reads as empty. Knows nothing of jobs or tasks: the server's log
 * stream (src/server/log-stream.ts) maps files to tasks/attempts, reads them with readFrom()
 * and merges several files with mergeByTime().
 */
import { stat } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open as openAsync } from 'node:fs/promises';
import { streamOf, type StreamName } from './format.js';
import { DirWatches, Wakeup } from './wake.js';
import { EventHeap } from '../model/heap.js';

export interface LogRecord {
  time: number;
  stream: StreamName;
  text: string;
}

export interface ReadOptions {
  /** Only the last `tail` lines (after the `since` filter). */
  tail?: number;
  /** Only lines with time >= since (epoch ms). */
  since?: number;
}

export interface FollowOptions {
  /** Start with the whole file (the default when nothing else is given). */
  fromStart?: boolean;
  /** Start with the lines at or after this time. */
  since?: number;
  /** Start with the last `tail` lines (0 = only new lines). */
  tail?: number;
  /** Safety poll backing up fs.watch, in ms (default 250). */
  pollMs?: number;
  /** Called once the starting position is fixed: lines written from now on will be yielded. */
  onStart?: () => void;
}

const NEWLINE = 0x0a;
const BLOCK = 256 * 1024;

/** Parses one line without its newline; null when it is not in the log format. */
export function parseLine(line: string): LogRecord | null {
  const sp = line.indexOf(' ');
  if (sp <= 0 || line.length < sp + 3 || line.charCodeAt(sp + 2) !== 32) return null;
  const tag = line[sp + 1];
  if (tag !== 'o' && tag !== 'e') return null;
  const time = Number(line.slice(0, sp));
  if (!Number.isSafeInteger(time) || time < 0) return null;
  return { time, stream: streamOf(tag), text: line.slice(sp + 3) };
}

function parseBuffer(buf: Buffer, start: number, end: number, out: LogRecord[], since: number | undefined): void {
  let s = start;
  while (s < end) {
    const nl = buf.indexOf(NEWLINE, s);
    if (nl < 0 || nl >= end) break;
    const rec = parseLine(buf.toString('utf8', s, nl));
    if (rec !== null && (since === undefined || rec.time >= since)) out.push(rec);
    s = nl + 1;
  }
}

async function openOrNull(path: string): Promise<FileHandle | null> {
  try {
    return await openAsync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

interface Scan {
  records: LogRecord[];
  /** Byte offset just past the last complete line read. */
  end: number;
}

/**
 * Forward scan from `offset` to the current end of file, complete lines only, one batch per
 * block read. `end` of a batch is the offset just past its last complete line.
 */
async function* scanForward(fh: FileHandle, offset: number, since: number | undefined): AsyncGenerator<Scan> {
  let buf = Buffer.allocUnsafe(BLOCK);
  let carry = 0; // bytes of an unfinished line kept at the start of buf
  let pos = offset;
  for (;;) {
    if (carry === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, carry);
      buf = bigger;
    }
    const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos);
    if (bytesRead === 0) return;
    pos += bytesRead;
    const filled = carry + bytesRead;
    const lastNl = buf.lastIndexOf(NEWLINE, filled - 1);
    if (lastNl < 0) {
      carry = filled;
      continue;
    }
    const records: LogRecord[] = [];
    parseBuffer(buf, 0, lastNl + 1, records, since);
    carry = filled - lastNl - 1;
    buf.copy(buf, 0, lastNl + 1, filled);
    yield { records, end: pos - carry };
  }
}

async function scanAll(fh: FileHandle, offset: number, since: number | undefined): Promise<Scan> {
  let records: LogRecord[] = [];
  let end = offset;
  for await (const batch of scanForward(fh, offset, since)) {
    records = records.length === 0 ? batch.records : records.concat(batch.records);
    end = batch.end;
  }
  return { records, end };
}

/** Backward scan for the last `tail` matching complete lines. */
async function scanTail(fh: FileHandle, tail: number, since: number | undefined): Promise<Scan> {
  let pos = (await fh.stat()).size;
  let end = -1; // just past the last complete line, once found
  let found: LogRecord[] = [];
  let rest: Buffer = Buffer.alloc(0); // bytes after the current block not parsed yet
  while (pos > 0 && found.length < tail) {
    const len = Math.min(BLOCK, pos);
    pos -= len;
    const block = Buffer.allocUnsafe(len);
    await readExact(fh, block, pos);
    let data = rest.length > 0 ? Buffer.concat([block, rest]) : block;
    if (end < 0) {
      const nl = data.lastIndexOf(NEWLINE);
      if (nl < 0) {
        rest = data;
        continue;
      }
      end = pos + nl + 1;
      data = data.subarray(0, nl + 1);
    }
    // The first line of data may continue in the block before it, unless data starts the file.
    let head = 0;
    if (pos > 0) {
      const nl = data.indexOf(NEWLINE);
      if (nl < 0 || nl === data.length - 1) {
        rest = Buffer.from(data);
        continue;
      }
      head = nl + 1;
    }
    const recs: LogRecord[] = [];
    parseBuffer(data, head, data.length, recs, since);
    found = recs.concat(found);
    rest = Buffer.from(data.subarray(0, head));
  }
  if (found.length > tail) found = found.slice(found.length - tail);
  return { records: found, end: Math.max(end, 0) };
}

async function readExact(fh: FileHandle, buf: Buffer, pos: number): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, pos + off);
    if (bytesRead === 0) throw new Error('log file shrank while reading');
    off += bytesRead;
  }
}

async function readScan(path: string, options: ReadOptions): Promise<Scan> {
  const fh = await openOrNull(path);
  if (fh === null) return { records: [], end: 0 };
  try {
    if (options.tail !== undefined) {
      if (options.tail <= 0) return { records: [], end: (await scanTail(fh, 1, undefined)).end };
      return await scanTail(fh, options.tail, options.since);
    }
    return await scanAll(fh, 0, options.since);
  } finally {
    await fh.close();
  }
}

/** All complete lines of a log file, optionally only those since a time and/or the last N. */
export async function readLines(path: string, options: ReadOptions = {}): Promise<LogRecord[]> {
  return (await readScan(path, options)).records;
}

function sizeOf(path: string): Promise<number | null> {
  return new Promise((resolve) => stat(path, (err, st) => resolve(err ? null : st.size)));
}

export interface Chunk {
  records: LogRecord[];
  /** Byte offset where the next read of this file starts. */
  end: number;
}

/**
 * The lines of a log file from byte `offset` to its current end; `end` is where the next call
 * continues. A file now shorter than `offset` (truncated or replaced) is read from its start.
 * Only complete lines unless `partial` is set (for a file whose writer has finished): then a
 * trailing line without its newline is returned too and `end` is the end of the file.
 */
export async function readFrom(path: string, offset: number, options: { since?: number; partial?: boolean } = {}): Promise<Chunk> {
  const fh = await openOrNull(path);
  if (fh === null) return { records: [], end: offset };
  try {
    if ((await fh.stat()).size < offset) offset = 0;
    const scan = await scanAll(fh, offset, options.since);
    if (options.partial) {
      const size = (await fh.stat()).size;
      if (size > scan.end) {
        const rest = Buffer.allocUnsafe(size - scan.end);
        await readExact(fh, rest, scan.end);
        const rec = parseLine(rest.toString('utf8'));
        if (rec !== null && (options.since === undefined || rec.time >= options.since)) scan.records.push(rec);
        scan.end = size;
      }
    }
    return scan;
  } finally {
    await fh.close();
  }
}

/**
 * Yields the existing lines (per options), then new lines as the file grows, until `signal`
 * aborts. The file may not exist yet. A file that shrinks (truncated/replaced) is read again
 * from its start. Woken by changes in the file's directory (fs.watch), backed by a poll.
 */
export async function* followLines(path: string, signal: AbortSignal, options: FollowOptions = {}): AsyncGenerator<LogRecord> {
  const pollMs = options.pollMs ?? 250;
  const wakeup = new Wakeup();
  const watches = new DirWatches(wakeup.poke);
  try {
    let offset = 0;
    const startTail = options.fromStart ? undefined : options.tail;
    if (startTail !== undefined || options.since !== undefined) {
      const first = await readScan(path, { tail: startTail, since: options.since });
      offset = first.end;
      options.onStart?.();
      for (const rec of first.records) {
        if (signal.aborted) return;
        yield rec;
      }
    } else {
      options.onStart?.();
    }
    while (!signal.aborted) {
      watches.watchFilesIn([path]);
      wakeup.clear();
      const size = await sizeOf(path);
      if (size !== null && size < offset) offset = 0;
      if (size !== null && size > offset) {
        const fh = await openOrNull(path);
        if (fh !== null) {
          const before = offset;
          try {
            for await (const batch of scanForward(fh, offset, undefined)) {
              offset = batch.end;
              for (const rec of batch.records) {
                if (signal.aborted) return;
                yield rec;
              }
            }
          } finally {
            await fh.close();
          }
          if (offset !== before) continue; // more may have arrived meanwhile
        }
      }
      await wakeup.wait(signal, pollMs);
    }
  } finally {
    watches.close();
  }
}

/**
 * Merges lists that are each sorted by time into one sorted list. Stable: on equal times the
 * earlier list wins, and order within a list is kept.
 */
export function mergeByTime<T extends { time: number }>(lists: readonly (readonly T[])[]): T[] {
  const live = lists.filter((l) => l.length > 0);
  if (live.length === 0) return [];
  if (live.length === 1) return live[0]!.slice();
  const out: T[] = [];
  // One head per list; seq = the list's index, so equal times keep the earlier list first.
  const heads = new EventHeap<{ time: number; seq: number; at: number }>();
  live.forEach((list, i) => heads.push({ time: list[0]!.time, seq: i, at: 0 }));
  for (let head = heads.pop(); head; head = heads.pop()) {
    const list = live[head.seq]!;
    out.push(list[head.at]!);
    const at = head.at + 1;
    if (at < list.length) heads.push({ time: list[at]!.time, seq: head.seq, at });
  }
  return out;
}
