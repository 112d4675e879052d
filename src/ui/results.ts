/**
 * The text of `iris results`: a TASK KEY VALUE table of one job run's results. A value is shown
 * on one short line: newlines and tabs as spaces, any other control character escaped
 * (format.ts escapeControl: ESC as `\x1b`), cut at VALUE_WIDTH characters with `…`
 * (`--json` gives the full values).
 */
import type { ResultsResponse } from '../api/types.js';
import { escapeControl } from './format.js';
import { renderTable } from './table.js';

export const VALUE_WIDTH = 60;

/** `value` as one short line: newlines and tabs as spaces, controls escaped, cut at `width` with `…`. */
export function displayValue(value: string, width = VALUE_WIDTH): string {
  // Escape each character on its own, so a cut never splits an escape.
  const units = [...value.replace(/[\r\n\t]+/g, ' ')].map(escapeControl);
  if (units.reduce((sum, unit) => sum + unit.length, 0) <= width) return units.join('');
  let out = '';
  for (const unit of units) {
    if (out.length + unit.length > width - 1) break;
    out += unit;
  }
  return `${out}…`;
}

export function renderResults(answer: ResultsResponse): string {
  return renderTable(
    answer.results,
    [
      { header: 'TASK', value: (row) => `task-${row.index}` },
      { header: 'KEY', value: (row) => row.key },
      { header: 'VALUE', value: (row) => displayValue(row.value) },
    ],
    `no results for ${answer.job}@${answer.run}`,
  );
}
