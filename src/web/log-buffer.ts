/**
 * The logs view's lines: batches from GET /v1/logs expanded into lines, kept in a bounded buffer
 * that drops the oldest. Pure.
 *
 * Guarantees: a LogBatch gives one line per `\n`-separated text, its time from the run-length
 * encoded `times`; an item of an older cluster (one LogLine) gives itself. LineBuffer never holds
 * more than its limit: pushing past it drops the oldest lines and counts them in `dropped`.
 */
import type { LogBatch, LogLine } from '../api/types.js';

/** The lines of one item of the logs stream (a LogBatch, or an older cluster's LogLine). */
export function expandItem(item: LogBatch | LogLine): LogLine[] {
  if (!('times' in item)) return [item];
  const texts = item.text.split('\n');
  const lines: LogLine[] = [];
  let t = 0;
  for (let i = 0; i < item.times.length; i += 2) {
    const time = item.times[i];
    const count = item.times[i + 1] ?? 0;
    for (let k = 0; k < count && t < texts.length; k++, t++) {
      lines.push({ time, task: item.task, attempt: item.attempt, stream: item.stream, text: texts[t] });
    }
  }
  // A batch whose counts fall short still shows its text, at its last time.
  const last = item.times.length >= 2 ? item.times[item.times.length - 2] : 0;
  for (; t < texts.length; t++) {
    lines.push({ time: last, task: item.task, attempt: item.attempt, stream: item.stream, text: texts[t] });
  }
  return lines;
}

export class LineBuffer<T> {
  private items: T[] = [];
  private start = 0;
  /** Lines dropped from the front since the buffer was made (or cleared). */
  dropped = 0;

  constructor(readonly limit: number) {
    if (!(limit > 0)) throw new RangeError('limit must be positive');
  }

  get size(): number {
    return this.items.length - this.start;
  }

  /** Appends `lines`; returns how many of the oldest were dropped to stay within the limit. */
  push(lines: readonly T[]): number {
    for (const line of lines) this.items.push(line);
    const over = this.size - this.limit;
    if (over <= 0) return 0;
    this.start += over;
    this.dropped += over;
    // Compact once the dropped head is as large as the kept part: amortised O(1) per line.
    if (this.start >= this.limit) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return over;
  }

  /** The `n` oldest items held (fewer when it holds fewer). */
  oldest(n: number): T[] {
    return this.items.slice(this.start, this.start + Math.max(0, n));
  }

  toArray(): T[] {
    return this.items.slice(this.start);
  }

  clear(): void {
    this.items = [];
    this.start = 0;
    this.dropped = 0;
  }
}

/** Whether a line's text (or task) contains `search`, ignoring case; every line for ''. */
export function lineMatches(line: LogLine, search: string): boolean {
  if (!search) return true;
  const needle = search.toLowerCase();
  return line.text.toLowerCase().includes(needle) || line.task.toLowerCase().includes(needle);
}
