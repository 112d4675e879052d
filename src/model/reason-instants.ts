/**
 * Instants inside reason texts. A pending reason (`…; reserved to start at <instant>`) is written
 * by the pure scheduler, kept with the job, sent over the API and read long after the pass that
 * wrote it. The writer knows no time zone and no time style, so an instant in a reason is data:
 * a placeholder `<t:N>` holding the number (epoch milliseconds on a live cluster, virtual seconds
 * in the simulator). The reader renders it in its own style: the CLI's human output in local
 * time (ui/format.ts formatReason), its --json as ISO 8601 (ui/json.ts), `iris simulate` as
 * virtual time. The HTTP API passes the text as it is: instants on the wire are numbers.
 *
 * Guarantees: renderInstants(text) replaces exactly the placeholders instantMark writes, each with
 * `render` of the number it holds; a text without one comes back unchanged. A number that is no
 * instant (not finite, or past the range of a Date) is written as plain text, never marked, and a
 * placeholder-like text holding one (a reason can quote what others wrote) is left as it is.
 */

/** The range of a JavaScript Date (±100,000,000 days around 1970). */
const MAX_DATE_MS = 8.64e15;
const NUMBER = /^-?\d+(?:\.\d+)?$/;
const MARK = /<t:(-?\d+(?:\.\d+)?)>/g;

const isInstant = (t: number): boolean => Number.isFinite(t) && Math.abs(t) <= MAX_DATE_MS;

/** `<t:1735725780000>`: the instant `t` as a placeholder a reader renders; plain `String(t)` when it is no instant. */
export function instantMark(t: number): string {
  const digits = String(t);
  return isInstant(t) && NUMBER.test(digits) ? `<t:${digits}>` : digits;
}

/** `text` with each placeholder of instantMark replaced by `render` of its number. */
export function renderInstants(text: string, render: (t: number) => string): string {
  if (!text.includes('<t:')) return text;
  return text.replace(MARK, (mark, digits: string) => {
    const t = Number(digits);
    return isInstant(t) ? render(t) : mark;
  });
}
