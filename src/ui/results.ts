/**
 * The text of `iris results`: a TASK KEY VALUE table of one job run's results. A value is cut
 * for display: its first line, at most VALUE_WIDTH characters, ending in `…` when cut
 * (`--json` gives the full values).
 */
import type { ResultsResponse } from '../api/types.js';
import { renderTable } from './table.js';

export const VALUE_WIDTH = 60;

/** `value` as one short line: newlines and tabs shown as spaces, cut at `width` with `…`. */
export function displayValue(value: string, width = VALUE_WIDTH): string {
  const line = value.replace(/[\r\n\t]+/g, ' ');
  const chars = [...line];
  return chars.length > width ? chars.slice(0, width - 1).join('') + '…' : line;
}

export function renderResults(answer: ResultsResponse): string {
  return renderTable(answer.results, [
    { header: 'TASK', value: (row) => `task-${row.index}` },
    { header: 'KEY', value: (row) => row.key },
    { header: 'VALUE', value: (row) => displayValue(row.value) },
  ], `no results for ${answer.job}@${answer.run}`);
}
