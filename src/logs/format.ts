/**
 * The per-attempt log file format: its lines, tags and the few primitives every reader and
 * writer shares. The writer is LogWriter (writer.ts); notes and directories are in files.ts.
 *
 * One file per attempt, made of lines ending in `\n` (docs/architecture.md, "Log files"):
 * - `t<epochMs>` sets the time of the lines after it;
 * - `o<text>` is a line of the task's stdout, `e<text>` one of its stderr (iris's own notes are
 *   `e` lines);
 * - `<epochMs> <o|e> <text>` is the format of iris before 0.x (one time per line); readers still
 *   take it, and such a line also sets the time of the lines after it.
 * A line whose time is not set by anything before it has time 0.
 *
 * Invariants of a file written by LogWriter:
 * - every buffer it hands to one write() starts with a `t` line, and a new `t` line comes
 *   wherever the time changes inside it. Notes appended by another writer (appendNote: one
 *   O_APPEND write that also starts with its own `t` line) therefore never change the time of
 *   the writer's lines, and a reader can start at any `t` line (tail scans backward to one);
 * - every line is complete; a partial trailing line of a stream is held back until its newline
 *   arrives or the writer closes (then it is written with a `\n` added);
 * - no line's text is longer than MAX_LINE_BYTES (longer lines are split at a UTF-8 boundary);
 * - text bytes are written as they came (no re-encoding); lines of one writer appear in arrival
 *   order per stream and their times never decrease;
 * - at most `limitBytes` bytes of output are written (plus one marker line): past the limit the
 *   writer appends CUT_NOTE, sets `cut`, and drops the rest while still accepting it, so the
 *   task's pipes keep draining and the task never blocks or dies because of the limit;
 * - the writer holds at most one fd, opened lazily at the first flush and always closed by
 *   close(). A writer that saw no output creates no file unless `createEmpty` is set.
 *
 * Cost: 1 byte per line (the tag) plus ~15 bytes per write batch and per millisecond in which
 * output arrived: 3 bytes for a 2-byte `yes` line (1.5x), 82 bytes for an 80-character line
 * (1.01x); the format before it took 17 bytes per line (9x and 1.2x).
 */
import { formatBytes } from '../model/resources.js';

/** Stream tag as stored in the file. */
export type StreamTag = 'o' | 'e';
export type StreamName = 'stdout' | 'stderr';

export const MAX_LINE_BYTES = 64 * 1024;
export const TIME_BYTE = 0x74; // 't'
export const OUT_BYTE = 0x6f; // 'o'
export const ERR_BYTE = 0x65; // 'e'

/** The marker line written once when an attempt's output passes its log limit. */
export function cutNote(limitBytes: number): string {
  return `[iris] log cut at ${formatBytes(limitBytes, { trimZero: true })}: further output of this attempt was dropped`;
}

/** Lines as they are written: a time line, then one line per text (texts without newlines). */
export function formatLines(time: number, tag: StreamTag, texts: readonly string[]): string {
  return `t${time}\n` + texts.map((text) => `${tag}${text}\n`).join('');
}

/** Length of the longest prefix of buf[start, start+max) that does not cut a UTF-8 sequence. */
export function utf8Cut(buf: Buffer, start: number, max: number): number {
  let end = start + max;
  // Step back over continuation bytes (10xxxxxx) so the cut falls before a lead byte.
  let back = 0;
  while (back < 3 && end > start && (buf[end]! & 0xc0) === 0x80) {
    end--;
    back++;
  }
  return end > start ? end - start : max;
}

/**
 * Copies the bytes src[start, end) into dst at `at` and returns the index after them (dst has
 * the room). Under 16 bytes a plain loop beats Buffer.copy's call: most log lines are short.
 */
export function copyBytes(src: Buffer, start: number, end: number, dst: Buffer, at: number): number {
  if (end - start < 16) {
    for (let i = start; i < end; i++) dst[at++] = src[i]!;
    return at;
  }
  src.copy(dst, at, start, end);
  return at + (end - start);
}
