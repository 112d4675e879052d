/** Client-side pieces of `iris jobs` filtering: parsing `--state` and hiding old finished trees. */
import type { JobSummary } from '../api/types.js';
import { JOB_STATES, isFinalJobState, type JobState } from '../model/states.js';
import { invalid } from '../model/errors.js';

/** `running,pending` / `FAILED` (repeatable, comma-separated, any case) -> job states. */
export function parseStates(values: readonly string[]): JobState[] {
  const states = new Set<JobState>();
  for (const value of values.flatMap((v) => v.split(','))) {
    const state = value.trim().toUpperCase().replace(/-/g, '_');
    if (state === '') continue;
    if (!(JOB_STATES as readonly string[]).includes(state)) {
      throw invalid(`unknown job state "${value.trim()}"`, `use one of ${JOB_STATES.join(', ')} (any case, comma-separated)`);
    }
    states.add(state as JobState);
  }
  return [...states];
}

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
