/**
 * Plain-text tables: a header row and left-aligned columns separated by two spaces. Trailing
 * spaces are trimmed; an empty table renders only `empty` (e.g. "no jobs").
 */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Right-align (numbers). */
  right?: boolean;
}

export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty = ''): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => width(line[i]!))));
  const format = (line: string[]) =>
    line
      .map((cell, i) => (columns[i]!.right ? cell.padStart(widths[i]!) : padEnd(cell, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [format(columns.map((c) => c.header)), ...cells.map(format)].join('\n');
}

/** Key/value lines: `Key:   value`, keys padded to the longest. */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>): string {
  const keyWidth = Math.max(0, ...fields.map(([key]) => key.length + 1));
  return fields.map(([key, value]) => `${(key + ':').padEnd(keyWidth)}  ${value}`.trimEnd()).join('\n');
}

/** Display width; counts code points so tree glyphs like └ are one column. */
function width(text: string): number {
  return [...text].length;
}

function padEnd(text: string, size: number): string {
  return text + ' '.repeat(Math.max(0, size - width(text)));
}
