/**
 * The `after` field of a submission (`--after JOB[:ok|:any|:failed]`): its names resolve like the
 * job's own (inside a task a relative name is a child of the task's job, so a child may name a
 * sibling), and it is refused (docs/cli.md, "Dependencies") when it names
 * - a job that is not stored (not_found, exit 3),
 * - the job itself, or a job whose dependencies lead back to it: a cycle, named in the message
 *   (invalid_argument, exit 2). A cycle is looked for only when some job depends on the name
 *   (ClusterView.dependedOn): submitting a new job after the last of a long chain costs no walk.
 * A dependency that can no longer be met is refused by the store (lifecycle/dependencies.ts, conflict).
 */
import { describeValue } from '../../model/errors.js';
import { nameFromTask, parseJobName } from '../../model/names.js';
import type { TaskCaller } from '../../model/caller.js';
import type { JobDependency } from '../../model/types.js';
import { findCycle, splitDependency } from '../lifecycle/dependencies.js';
import type { ClusterView } from './types.js';
import { fieldError, given, withField } from './values.js';

const FORMS =
  'write JOB, JOB:ok (it succeeded, the default), JOB:any (it ended) or JOB:failed (it ended without success)';

/** The request's `after` entries as canonical dependencies (empty when none is given). */
export function resolveAfter(after: readonly string[] | null | undefined, caller: TaskCaller | null): JobDependency[] {
  if (!given(after)) return [];
  return after.map((text, i) => {
    const field = `after[${i}]`;
    const split = splitDependency(text.trim());
    if (split === null) throw fieldError(field, `${field}: unknown condition in ${describeValue(text)}`, FORMS);
    if (split.job.trim() === '') throw fieldError(field, `${field}: no job named in ${describeValue(text)}`, FORMS);
    const job = withField(field, field, () => parseJobName(nameFromTask(split.job, caller?.job ?? null)));
    return { job, condition: split.condition };
  });
}

/** Why `name` may not depend on `after` now, thrown as an IrisError (see the header). */
export function checkDependencies(
  name: string,
  after: readonly JobDependency[],
  view: Pick<ClusterView, 'jobState' | 'dependenciesOf' | 'dependedOn'>,
): void {
  after.forEach((dep, i) => {
    if (dep.job === name)
      throw fieldError(`after[${i}]`, `after[${i}]: job ${name} cannot run after itself`, 'name another job');
    if (view.jobState(dep.job) === undefined) {
      throw fieldError(
        `after[${i}]`,
        `after[${i}]: no job ${dep.job}`,
        'a job may only run after a job already submitted; list jobs with `iris jobs`',
        'not_found',
      );
    }
  });
  // A cycle through `name` ends with a job that depends on it: with none, there is nothing to walk.
  if (after.length === 0 || view.dependedOn?.(name) === false) return;
  const cycle = findCycle(
    name,
    after.map((dep) => dep.job),
    (job) => view.dependenciesOf(job),
  );
  if (cycle) {
    throw fieldError(
      'after',
      `after: would close a cycle: ${cycle.join(' -> ')}`,
      `${cycle[cycle.length - 2]} already runs after ${name}; drop one of the dependencies`,
    );
  }
}
