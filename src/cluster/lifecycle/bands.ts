/**
 * A band change (`iris update JOB --priority BAND`, docs/priorities.md): the job takes the new
 * band, and every job below it that has not ended and is in a higher band comes down to it, so
 * no child stays above its parent. Raising a job leaves its descendants where they are. Who may
 * ask for which band is admission's rule (admission/band.ts); this only says what changes.
 */
import { bandAbove, bandOf, type Band } from '../../model/band.js';
import { isFinalJobState } from '../../model/states.js';
import type { Change, LifecycleView } from './changes.js';

/** The job changes that move `name` to `band` (none for an unknown or ended job, or no change). */
export function changeBand(view: LifecycleView, name: string, band: Band): Change[] {
  const out: Change[] = [];
  const stack = [name];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const record = view.job(current);
    if (!record || isFinalJobState(record.job.state)) continue;
    const { job } = record;
    const own = bandOf(job.spec);
    if (current === name ? own !== band : bandAbove(own, band))
      out.push({ kind: 'job', job, patch: { spec: { ...job.spec, band } } });
    for (const child of view.children(current)) stack.push(child);
  }
  return out;
}
