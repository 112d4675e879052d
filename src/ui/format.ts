/**
 * Small pure formatters shared by the plain-text renderers and the ink view: durations, relative
 * ages, instants, clock times, cpu and memory. `now` is always a parameter so output is testable.
 * Durations and byte sizes are the model's own formatters (src/model/duration.ts,
 * src/model/resources.ts).
 *
 * The time style of human output (docs/cli.md, "Time style"): durations short (`850ms`, `12s`,
 * `4m05s`, `2h03m`, `1d2h`); instants in the local time zone, `HH:MM:SS` on the same day as now
 * and `YYYY-MM-DD HH:MM` otherwise (formatInstant); log line prefixes `HH:MM:SS.mmm`, or
 * `YYYY-MM-DD HH:MM:SS.mmm` with the date (formatClock); an instant inside a reason the cluster
 * wrote as formatInstant (formatReason). `--json` prints instants as ISO 8601 (src/ui/json.ts).
 *
 * Text that others wrote (a task's results and reasons, commands, names) reaches a terminal only
 * through escapeControl (docs/security.md, "A result is data, never code"): every table cell and
 * field (table.ts) and every line that quotes such text.
 */
import { formatDuration as formatModelDuration } from '../model/duration.js';
import { renderInstants } from '../model/reason-instants.js';
import { formatBytes } from '../model/resources.js';

/** `850ms`, `12s`, `4m05s`, `2h03m`, `3d4h`: the model's short style (`-` when negative or unknown). */
export function formatDuration(ms: number): string {
  return formatModelDuration(ms, { style: 'short' });
}

/** Age of a timestamp relative to now: `5s`, `3m05s`, … ; `-` when unknown. */
export function formatAge(time: number | null | undefined, now: number): string {
  if (time === null || time === undefined) return '-';
  return formatDuration(Math.max(0, now - time));
}

/** Duration between two instants; a still-running span is measured to now. */
export function formatSpan(start: number | null, end: number | null, now: number): string {
  if (start === null) return '-';
  return formatDuration((end ?? now) - start);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const localDate = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** Local wall-clock time `HH:MM:SS.mmm`, or `YYYY-MM-DD HH:MM:SS.mmm` with `date` (log prefixes). */
export function formatClock(time: number, { date = false }: { date?: boolean } = {}): string {
  const d = new Date(time);
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
  return date ? `${localDate(d)} ${clock}` : clock;
}

/** An instant in the local time zone: `HH:MM:SS` on the same day as `now`, else `YYYY-MM-DD HH:MM`. */
export function formatInstant(time: number, now: number): string {
  const d = new Date(time);
  if (localDate(d) === localDate(new Date(now)))
    return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${localDate(d)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * A reason the cluster wrote, with its instants (model/reason-instants.ts) in the local time
 * style: `…; reserved to start at 14:03:20`.
 */
export function formatReason(reason: string, now: number): string {
  return renderInstants(reason, (time) => formatInstant(time, now));
}

export function formatCores(millis: number): string {
  const cores = millis / 1000;
  return Number.isInteger(cores) ? String(cores) : cores.toFixed(3).replace(/0+$/, '');
}

/** Memory as the model formats byte sizes: `512MiB`, `1.5GiB`. */
export function formatMemory(bytes: number): string {
  return formatBytes(bytes);
}

/** C0 controls, DEL and C1 controls: what a terminal may act on instead of showing. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * `text` with every control character shown instead of acted on: newline, tab and carriage
 * return as `\n` `\t` `\r`, any other C0 or C1 control and DEL as `\xHH` (ESC is `\x1b`, CSI
 * `\x9b`). Printable text, backslashes included, is left as it is. The one escaping of the CLI's
 * human output: a value cannot clear the screen, move the cursor, set the title or hide text.
 */
export function escapeControl(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
