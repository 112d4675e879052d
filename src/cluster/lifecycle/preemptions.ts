/**
 * The lifecycle's side of a plan's preemption (docs/priorities.md, "Preemption"), shared by the
 * controller and the simulator: the re-check before acting and the words of the end.
 *
 * - Decide, check, act: a preemption is carried out only if every victim still runs (its task
 *   RUNNING, its latest attempt live); `liveVictims` answers their attempts, or null when any is
 *   not (then nothing of that preemption is carried out).
 * - Each victim attempt then ends through `preemptAttempt` (attempts.ts) with `preemptedBy`'s
 *   reason: PREEMPTED, counted against maxPreemptions, requeued at its old place.
 */
import type { Band } from '../../model/band.js';
import type { Attempt } from '../../model/types.js';
import type { LifecycleView } from './changes.js';

/** The reason a victim's attempt ends with. */
export const preemptedBy = (job: string, band: Band): string => `preempted by ${job} (${band})`;

/** The victims' live attempts when every one still runs, else null. */
export function liveVictims(
  view: Pick<LifecycleView, 'task' | 'attempt'>,
  victims: readonly string[],
): Attempt[] | null {
  const out: Attempt[] = [];
  for (const id of victims) {
    const task = view.task(id);
    if (task?.state !== 'RUNNING') return null;
    const a = view.attempt(id, task.attempt);
    if (a?.state !== 'RUNNING') return null;
    out.push(a);
  }
  return out;
}
