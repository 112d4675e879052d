/** Client-side piece of `iris jobs` filtering: hiding old finished trees (`--state` is parsed by model/states.ts). */
import type { JobSummary } from '../api/types.js';
import { isFinalJobState } from '../model/states.js';

export const RECENT_MS = 60 * 60 * 1000;

/**
 * Keep every job of a tree (grouped by root path) that still has an unfinished job or that
 * finished within `recentMs`; trees that ended earlier are hidden unless `--all`.
 */
export function hideOldTrees(jobs: readonly JobSummary[], now: number, recentMs = RECENT_MS): JobSummary[] {
  const live = new Set<string>();
  for (const job of jobs) {
    if (!isFinalJobState(job.state) || (job.finishedAt ?? now) >= now - recentMs) live.add(rootOf(job.name));
  }
  return jobs.filter((job) => live.has(rootOf(job.name)));
}

function rootOf(name: string): string {
  const cut = name.indexOf('/', 1);
  return cut < 0 ? name : name.slice(0, cut);
}
