/**
 * The per-band part of a simulation's report (docs/simulate.md, "Preemption"): for each band with
 * finished jobs, highest first, the wait (mean, median, 95th percentile by nearest rank) and the
 * mean bounded slowdown of its jobs, and what preemption cost its tasks. Given when the run had
 * preemption or finished jobs of more than one band; otherwise nothing (the report is unchanged).
 */
import { BANDS, DEFAULT_BAND, type Band } from '../model/band.js';
import type { BandSummary, SimJobResult } from './results.js';

/** The `q`-th quantile of ascending `sorted` by nearest rank (0 when empty). */
export function nearestRank(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function bandSummaries(results: readonly SimJobResult[], preemption: boolean): BandSummary[] | undefined {
  const by = new Map<Band, SimJobResult[]>();
  for (const r of results) {
    const band = r.band ?? DEFAULT_BAND;
    const list = by.get(band);
    if (list) list.push(r);
    else by.set(band, [r]);
  }
  if (!preemption && by.size < 2) return undefined;
  const out: BandSummary[] = [];
  for (const band of BANDS) {
    const jobs = by.get(band);
    if (!jobs) continue;
    const waits = jobs.map((j) => j.wait).sort((a, b) => a - b);
    out.push({
      band,
      jobs: jobs.length,
      waitMean: waits.reduce((s, w) => s + w, 0) / jobs.length,
      waitMedian: nearestRank(waits, 0.5),
      waitP95: nearestRank(waits, 0.95),
      slowdownMean: jobs.reduce((s, j) => s + j.boundedSlowdown, 0) / jobs.length,
      preemptions: jobs.reduce((s, j) => s + (j.preemptions ?? 0), 0),
      lostCpuSeconds: jobs.reduce((s, j) => s + (j.lostCpuSeconds ?? 0), 0),
    });
  }
  return out;
}
