/**
 * The BAND column of `iris jobs`, `watch` and `history`: shown only when a listed job is in a band
 * other than the default, so a cluster that does not use bands keeps its narrower tables
 * (`--json` always carries the band; `iris queue` always shows it, as the first key of its order).
 */
import { DEFAULT_BAND, type Band } from '../model/band.js';
import type { Column } from './table.js';

export function bandColumn<T>(rows: readonly T[], band: (row: T) => Band | undefined): Column<T>[] {
  if (!rows.some((row) => (band(row) ?? DEFAULT_BAND) !== DEFAULT_BAND)) return [];
  return [{ header: 'BAND', value: (row) => band(row) ?? DEFAULT_BAND }];
}
