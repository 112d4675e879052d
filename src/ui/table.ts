/**
 * Plain-text tables: a header row and left-aligned columns separated by two spaces. Trailing
 * spaces are trimmed; an empty table renders only `empty` (e.g. "no jobs"). Column widths count
 * what a terminal shows: code points, without colour escape codes (colour.ts).
 *
 * Every cell and field value is escaped (format.ts escapeControl) before it is laid out, so what
 * a task wrote (a result, a reason, a command) cannot act on the terminal; colour is added after
 * that, by a column's or a field's `paint` (the only escape codes a table prints).
 */
// node:util through process.getBuiltinModule, not an ESM import: importing a builtin as ESM reads
// every export, and node:util's lazy ones load streams, worker_threads and more (~3 ms at the
// start of every command that prints a table; docs/benchmarks.md "CLI start").
const { stripVTControlCharacters } = process.getBuiltinModule('node:util');
import { escapeControl } from './format.js';

export interface Column<Row> {
  header: string;
  /** The cell's text; control characters in it are escaped. */
  value: (row: Row) => string;
  /** Colour for the escaped cell (colour.ts Style); absent: none. */
  paint?: (cell: string, row: Row) => string;
  /** Right-align (numbers). */
  right?: boolean;
}

/** A `renderFields` entry: key, value, and optionally the colour for the escaped value. */
export type Field = readonly [key: string, value: string, paint?: (value: string) => string];

export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty = ''): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((row) =>
    columns.map((column) => {
      const cell = escapeControl(column.value(row));
      return column.paint ? column.paint(cell, row) : cell;
    }),
  );
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => width(line[i]!))));
  const format = (line: string[]) =>
    line
      .map((cell, i) => (columns[i]!.right ? padStart(cell, widths[i]!) : padEnd(cell, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [format(columns.map((c) => c.header)), ...cells.map(format)].join('\n');
}

/** Key/value lines: `Key:   value`, keys padded to the longest; values escaped, then painted. */
export function renderFields(fields: ReadonlyArray<Field>): string {
  const keyWidth = Math.max(0, ...fields.map(([key]) => key.length + 1));
  return fields
    .map(([key, value, paint]) => {
      const shown = paint ? paint(escapeControl(value)) : escapeControl(value);
      return `${(key + ':').padEnd(keyWidth)}  ${shown}`.trimEnd();
    })
    .join('\n');
}

/** Display width: code points (tree glyphs like └ are one column), escape codes not counted. */
function width(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

function padStart(text: string, size: number): string {
  return ' '.repeat(Math.max(0, size - width(text))) + text;
}

function padEnd(text: string, size: number): string {
  return text + ' '.repeat(Math.max(0, size - width(text)));
}
