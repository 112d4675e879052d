/**
 * Priority bands (docs/priorities.md). Every job is in one band; the queue orders band first
 * (production, then interactive, then batch), and seed 000's progress order within a band.
 * A job's effective band is its own, except that a task running beyond its user's quota is
 * borrowing and counts as `batch` (docs/priorities.md, "Quotas that lend").
 *
 * Rules owned here: the names and their rank, which of two bands is higher, and what a child
 * may ask for (its parent's band or a lower one).
 */

export const BANDS = ['production', 'interactive', 'batch'] as const;
export type Band = (typeof BANDS)[number];

/** The band of a job that asks for none. */
export const DEFAULT_BAND: Band = 'interactive';

/** 0 for the highest band (production), 2 for the lowest (batch). */
export function bandRank(band: Band): number {
  return band === 'production' ? 0 : band === 'interactive' ? 1 : 2;
}

/** True when `a` is strictly above `b` (production > interactive > batch). */
export function bandAbove(a: Band, b: Band): boolean {
  return bandRank(a) < bandRank(b);
}

export function isBand(value: unknown): value is Band {
  return value === 'production' || value === 'interactive' || value === 'batch';
}

/** The band of a job stored before bands existed (absent): the default. */
export function bandOf(spec: { band?: Band | null }): Band {
  return spec.band ?? DEFAULT_BAND;
}
