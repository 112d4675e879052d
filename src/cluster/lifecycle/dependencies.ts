/**
 * The rules of dependencies between jobs (`--after JOB[:ok|:any|:failed]`), pure: the one home of
 * "is it met?", "can it still be met?", cycle detection and the words that explain them.
 *
 * - A dependency is met when its job has ended as its condition asks (model/dependency-outcome.ts,
 *   the one home of that rule): `ok` SUCCEEDED, `any` any final state, `failed` any final state but
 *   SUCCEEDED. While its job has not ended it waits. When its job has ended otherwise it can never
 *   be met.
 * - A job's dependencies together: never met when any one can never be met (the first such, in
 *   the order given); else waiting while any one waits (the first waiting one is named); else met.
 *   A dependency on a job that is no longer stored counts as met: only an ended job leaves the
 *   live model (archived or pruned), and a job that waited on it was released or failed then.
 * - A cycle is looked for along the stored dependencies of live jobs, by name.
 * - `iris retry --downstream` re-runs the jobs a failure cascaded to: those FAILED with cause
 *   `dependency_failure` naming the retried job, and theirs in turn (cascadedDependents).
 */
import { dependencyOutcome } from '../../model/dependency-outcome.js';
import type { JobState } from '../../model/states.js';
import type { DependencyCondition, Job, JobDependency } from '../../model/types.js';

export const DEPENDENCY_CONDITIONS: readonly DependencyCondition[] = ['ok', 'any', 'failed'];

// The rule for one dependency lives in the model (the dashboard's page applies it too).
export { type DependencyOutcome, dependencyOutcome } from '../../model/dependency-outcome.js';

export type DependenciesStatus =
  | { kind: 'met' }
  | { kind: 'waiting'; on: JobDependency; state: JobState }
  | { kind: 'never'; on: JobDependency; state: JobState };

/** All of a job's dependencies; `stateOf` answers undefined for a job that is not stored. */
export function dependenciesStatus(
  after: readonly JobDependency[] | undefined,
  stateOf: (job: string) => JobState | undefined,
): DependenciesStatus {
  let waiting: DependenciesStatus | null = null;
  for (const dep of after ?? []) {
    const state = stateOf(dep.job);
    if (state === undefined) continue;
    const outcome = dependencyOutcome(dep.condition, state);
    if (outcome === 'never') return { kind: 'never', on: dep, state };
    if (outcome === 'waiting') waiting ??= { kind: 'waiting', on: dep, state };
  }
  return waiting ?? { kind: 'met' };
}

/**
 * The cycle that `name` depending on `after` would close, as the path `name -> … -> name`, or
 * null. `depsOf` gives the job names a stored job depends on (empty for an unknown one).
 * Depth-first with an explicit stack (chains may be 100,000 jobs long); each step keeps only a
 * link to the step it came from, so the walk is linear in the jobs and dependencies it reaches.
 */
export function findCycle(
  name: string,
  after: readonly string[],
  depsOf: (job: string) => readonly string[],
): string[] | null {
  const seen = new Set<string>();
  // Every step taken: the job reached and the index of the step it was reached from (-1: `name`).
  const jobs: string[] = [];
  const from: number[] = [];
  const stack: number[] = [];
  const push = (job: string, at: number): void => {
    stack.push(jobs.length);
    jobs.push(job);
    from.push(at);
  };
  for (let i = after.length - 1; i >= 0; i--) push(after[i]!, -1);
  while (stack.length > 0) {
    const step = stack.pop()!;
    const last = jobs[step]!;
    if (last === name) {
      const path: string[] = [];
      for (let at = step; at >= 0; at = from[at]!) path.push(jobs[at]!);
      path.push(name);
      return path.reverse();
    }
    if (seen.has(last)) continue;
    seen.add(last);
    const next = depsOf(last);
    for (let i = next.length - 1; i >= 0; i--) push(next[i]!, step);
  }
  return null;
}

/**
 * `JOB`, `JOB:ok`, `JOB:any`, `JOB:failed` -> the name as written and its condition; null when the condition is
 * unknown.
 */
export function splitDependency(text: string): { job: string; condition: DependencyCondition } | null {
  const cut = text.lastIndexOf(':');
  if (cut < 0) return { job: text, condition: 'ok' };
  const condition = text
    .slice(cut + 1)
    .trim()
    .toLowerCase();
  if (!(DEPENDENCY_CONDITIONS as readonly string[]).includes(condition)) return null;
  return { job: text.slice(0, cut), condition: condition as DependencyCondition };
}

/** The pending reason of a job waiting on `dep`: `waiting for /prep (RUNNING)`. */
export function waitingForReason(dep: JobDependency, state: JobState): string {
  return `waiting for ${dep.job} (${state})`;
}

/** The reason a job ends with when `dep` can never be met: `dependency /prep failed`. */
export function dependencyFailureReason(dep: JobDependency, state: JobState): string {
  const how = state === 'FAILED' ? 'failed' : state === 'SUCCEEDED' ? 'succeeded' : `ended ${state}`;
  return `dependency ${dep.job} ${how}`;
}

/**
 * The jobs whose failure `name`'s failure caused, transitively, parents before the jobs they
 * caused to fail (each depends on one listed before it or on `name`): breadth-first, a loop
 * linear in the jobs it reaches.
 */
export function cascadedDependents(
  name: string,
  dependentsOf: (job: string) => Iterable<string>,
  jobOf: (job: string) => Job | undefined,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>([name]);
  // Breadth-first: `out` is the queue too (each parent is read once, by index: no shift()).
  for (let i = -1; i < out.length; i++) {
    const parent = i < 0 ? name : out[i]!;
    for (const dependent of dependentsOf(parent)) {
      const job = jobOf(dependent);
      if (
        seen.has(dependent) ||
        job?.state !== 'FAILED' ||
        job.cause?.kind !== 'dependency_failure' ||
        job.cause.parent !== parent
      )
        continue;
      seen.add(dependent);
      out.push(dependent);
    }
  }
  return out;
}
