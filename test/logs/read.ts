/**
 * Test support: reading one per-attempt log file as records (format: src/logs/format.ts), on top
 * of the block-wise scans of src/logs/scan.ts: `readLines` for a whole (small) file and
 * `followLines` for a file that grows. Both hold one block in memory at a time apart from what
 * they hand out. No module of src/ reads logs this way (the server streams them through
 * src/server/log-stream.ts), so it lives here, beside the tests that read logs.
 *
 * Only complete lines count: a trailing line without its `\n` is not returned (it may be
 * half-written) and follow mode picks it up once it is complete. Lines that do not parse are
 * skipped. A missing file reads as empty. Knows nothing of jobs or tasks: the server's log
 * stream (src/server/log-stream.ts) maps files to tasks/attempts and merges them (src/logs/merge.ts).
 */
import { stat } from 'node:fs';
import type { StreamName } from '../../src/logs/format.js';
import { LogSource, tailStart, type Position, type Segment } from '../../src/logs/scan.js';
import { mergeSources } from '../../src/logs/merge.js';
import { DirWatches, Wakeup } from '../../src/logs/wake.js';

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

/** The lines of a run of `count` lines joined with `\n`. */
export function splitLines(text: string, count: number): string[] {
  return count === 1 ? [text] : text.split('\n');
}

function* recordsOf(
  segment: Pick<Segment, 'stream' | 'text' | 'count'>,
  times: readonly number[],
): Generator<LogRecord> {
  const texts = splitLines(segment.text, segment.count);
  let k = 0;
  for (let r = 0; r < times.length; r += 2) {
    for (let n = 0; n < times[r + 1]!; n++) yield { time: times[r]!, stream: segment.stream, text: texts[k++]! };
  }
}

/** Where a read of the last `tail` lines (or all, without tail) starts, and how many lines to skip. */
async function startOf(
  path: string,
  options: ReadOptions & { partial?: boolean },
): Promise<{ from: Position; skip: number; end?: number }> {
  if (options.tail === undefined) return { from: { offset: 0, time: 0 }, skip: 0 };
  const start = await tailStart(path, options.tail, options);
  return { from: start, skip: Math.max(0, start.count - options.tail), end: start.end };
}

/** Records of one file from a start, in order; `position` of the source tells where it stopped. */
async function* recordsFrom(source: LogSource, skip: number, signal?: AbortSignal): AsyncGenerator<LogRecord> {
  for await (const batch of mergeSources([source], { skip, signal })) yield* recordsOf(batch, batch.times);
}

/** All complete lines of a log file, optionally only those since a time and/or the last N. For small files. */
export async function readLines(path: string, options: ReadOptions = {}): Promise<LogRecord[]> {
  const { from, skip, end } = await startOf(path, options);
  const out: LogRecord[] = [];
  for await (const rec of recordsFrom(new LogSource(path, from, { since: options.since, end }), skip)) out.push(rec);
  return out;
}

function sizeOf(path: string): Promise<number | null> {
  return new Promise((resolve) => stat(path, (err, st) => resolve(err ? null : st.size)));
}

/**
 * Yields the existing lines (per options), then new lines as the file grows, until `signal`
 * aborts. The file may not exist yet. A file that shrinks (truncated/replaced) is read again
 * from its start. Woken by changes in the file's directory (fs.watch), backed by a poll.
 */
export async function* followLines(
  path: string,
  signal: AbortSignal,
  options: FollowOptions = {},
): AsyncGenerator<LogRecord> {
  const pollMs = options.pollMs ?? 250;
  const wakeup = new Wakeup();
  const watches = new DirWatches(wakeup.poke);
  try {
    let position: Position = { offset: 0, time: 0 };
    const startTail = options.fromStart ? undefined : options.tail;
    if (startTail !== undefined || options.since !== undefined) {
      const { from, skip, end } = await startOf(path, { tail: startTail, since: options.since });
      const source = new LogSource(path, from, { since: options.since, end });
      options.onStart?.();
      for await (const rec of recordsFrom(source, skip, signal)) yield rec;
      position = source.position;
    } else {
      options.onStart?.();
    }
    while (!signal.aborted) {
      watches.watchFilesIn([path]);
      wakeup.clear();
      const size = await sizeOf(path);
      if (size !== null && size < position.offset) position = { offset: 0, time: 0 };
      if (size !== null && size > position.offset) {
        const before = position.offset;
        const source = new LogSource(path, position);
        for await (const rec of recordsFrom(source, 0, signal)) yield rec;
        position = source.position;
        if (position.offset !== before) continue; // more may have arrived meanwhile
      }
      await wakeup.wait(signal, pollMs);
    }
  } finally {
    watches.close();
  }
}
