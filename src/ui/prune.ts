/**
 * The text of `iris prune`: one summary line (what was pruned, or with --dry-run would be, older
 * than the age given as it was typed, and the log bytes freed), then a table of the runs
 * (`NAME@RUN`, state, how long ago they ended).
 */
import type { PruneResponse } from '../api/types.js';
import { formatBytes } from '../model/resources.js';
import { formatAge, formatDuration } from './format.js';
import { renderTable } from './table.js';

/** `olderThan`: the age as the user gave it (`--older-than 2d`); absent: the cluster's own, from `result.cutoff`. */
export function renderPrune(result: PruneResponse, now: number, olderThan?: string): string {
  const count = `${result.runs.length} run${result.runs.length === 1 ? '' : 's'}`;
  const age = `ended more than ${olderThan?.trim() ?? formatDuration(now - result.cutoff)} ago`;
  const freed = `${formatBytes(result.logBytes, { trimZero: true })} of logs`;
  const head =
    result.runs.length === 0
      ? `nothing to prune: no run ${age.replace('ended', 'that ended')}`
      : result.dryRun
        ? `would prune ${count} that ${age} (${freed})`
        : `pruned ${count} that ${age} (freed ${freed})`;
  const table = renderTable(result.runs, [
    { header: 'RUN', value: (run) => `${run.name}@${run.run}` },
    { header: 'STATE', value: (run) => run.state },
    { header: 'ENDED', value: (run) => `${formatAge(run.finishedAt, now)} ago` },
  ]);
  const errors = result.logErrors.map((error) => `could not remove ${error}`);
  return [head, table, ...errors].filter((part) => part !== '').join('\n');
}
