/**
 * Log line prefixes: `HH:MM:SS.mmm task-0[1] text` (task relative to the target, attempt in
 * brackets; with `date`, `YYYY-MM-DD HH:MM:SS.mmm task-0[1] text`), and the output of log batches: each batch becomes
 * one string (one write), its
 * prefix built once per time rather than once per line. Commands write a task's stdout lines
 * to stdout and its stderr lines to stderr (LogOutput, which also owns backpressure and EPIPE).
 */
import type { LogBatch, LogLine } from '../api/types.js';
import { batchLines } from '../api/log-batch.js';
import { formatClock } from './format.js';
import { jsonText } from './json.js';

/**
 * Short task label relative to the target: for target `/train`, `/train/task-0` is `task-0` and
 * `/train/eval/task-1` is `eval/task-1`; otherwise the full task id.
 */
export function taskLabel(task: string, target: string): string {
  const base = target.replace(/\/task-\d+$/, '');
  if (task.startsWith(base + '/')) return task.slice(base.length + 1);
  return task;
}

/** How a log prefix shows its time: `date` adds the local date (`iris logs --timestamps=full`). */
export interface LogPrefixOptions {
  date?: boolean;
}

export function formatLogLine(line: LogLine, target: string, { date = false }: LogPrefixOptions = {}): string {
  return `${formatClock(line.time, { date })} ${taskLabel(line.task, target)}[${line.attempt}] ${line.text}`;
}

/**
 * The human lines of a batch, each ending in `\n`, as one string. All lines of one time share a
 * prefix, so each run of them is one slice of the batch's text with the prefix put after each
 * newline (no per-line strings).
 */
export function formatLogBatch(batch: LogBatch, target: string, { date = false }: LogPrefixOptions = {}): string {
  const label = ` ${taskLabel(batch.task, target)}[${batch.attempt}] `;
  const { text, times } = batch;
  const out: string[] = [];
  let start = 0;
  for (let r = 0; r < times.length; r += 2) {
    // The run ends before the newline that follows its last line (or at the end of the text).
    let end = start - 1;
    for (let n = times[r + 1]!; n > 0 && end < text.length; n--) {
      end = text.indexOf('\n', end + 1);
      if (end < 0) end = text.length;
    }
    const prefix = formatClock(times[r]!, { date }) + label;
    out.push(prefix, text.slice(start, end).replaceAll('\n', '\n' + prefix), '\n');
    start = end + 1;
  }
  return out.join('');
}

/**
 * The `--json` lines of a batch: one LogLine object per line (time as ISO 8601), each ending in `\n`, as one string.
 */
export function formatLogBatchJson(batch: LogBatch): string {
  const out: string[] = [];
  for (const line of batchLines(batch)) out.push(jsonText(line), '\n');
  return out.join('');
}

/**
 * Writes big chunks to stdout/stderr, waiting for 'drain' when a stream is full, and turns EPIPE
 * (the reader went away, e.g. `iris logs JOB | head`) into `closed` plus one call of `onClosed`
 * instead of an error.
 */
export class LogOutput {
  closed = false;
  private readonly onError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') throw error;
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
  };

  constructor(private readonly onClosed: () => void) {
    process.stdout.on('error', this.onError);
    process.stderr.on('error', this.onError);
  }

  /** Resolves once the stream can take more (at once unless it is full). */
  write(stream: 'stdout' | 'stderr', text: string): Promise<void> | undefined {
    if (this.closed || text === '') return undefined;
    const out = stream === 'stderr' ? process.stderr : process.stdout;
    if (out.write(text)) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
      out.once('error', done);
    });
  }

  dispose(): void {
    process.stdout.off('error', this.onError);
    process.stderr.off('error', this.onError);
  }
}
