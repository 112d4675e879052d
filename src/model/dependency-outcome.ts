/**
 * Whether one `--after JOB[:ok|:any|:failed]` dependency is met, given the state of its job. Pure and
 * browser-safe: the one home of this rule, used by the scheduler's lifecycle
 * (cluster/lifecycle/dependencies.ts, which adds the rules over all of a job's dependencies) and by
 * the dashboard's page.
 *
 * A dependency is met when its job has ended as its condition asks: `ok` SUCCEEDED, `any` any
 * final state, `failed` any final state but SUCCEEDED. While its job has not ended it waits. When
 * its job has ended otherwise it can never be met.
 */
import type { JobState } from './states.js';
import { isFinalJobState } from './states.js';
import type { DependencyCondition } from './types.js';

export type DependencyOutcome = 'met' | 'waiting' | 'never';

/** One dependency, given the state of its job. */
export function dependencyOutcome(condition: DependencyCondition, state: JobState): DependencyOutcome {
  if (!isFinalJobState(state)) return 'waiting';
  switch (condition) {
    case 'any':
      return 'met';
    case 'ok':
      return state === 'SUCCEEDED' ? 'met' : 'never';
    case 'failed':
      return state === 'SUCCEEDED' ? 'never' : 'met';
  }
}
