/**
 * The name a submission gets (docs/api.md, "Task token"). Without a task caller every name is
 * root-relative (`eval` == `/eval`). With a task caller:
 *   - no name            -> `<caller.job>/<generated>` (an empty or blank name is refused)
 *   - relative (`eval`)  -> `<caller.job>/eval`
 *   - absolute (`/x/y`)  -> must lie strictly under caller.job, else forbidden
 * `task-<n>` components are refused by parseJobName: they name tasks.
 */
import { IrisError } from '../../model/errors.js';
import { isWithin, nameFromTask, parseJobName } from '../../model/names.js';
import type { TaskCaller } from '../../model/caller.js';
import type { NameSource } from './types.js';
import { fieldError, given, withField } from './values.js';

const GENERATE_ATTEMPTS = 50;

function generate(parent: string | null, names: NameSource): string {
  for (let i = 0; i < GENERATE_ATTEMPTS; i++) {
    const component = names.generateName();
    const name = withField('name', 'name', () => parseJobName(parent ? `${parent}/${component}` : component));
    if (!names.isNameTaken(name)) return name;
  }
  throw new IrisError('conflict', 'name: could not generate an unused job name', 'give the job a name with --name');
}

export function jobName(
  requested: string | null | undefined,
  caller: TaskCaller | null,
  names: NameSource,
): { name: string; generated: boolean } {
  if (!given(requested)) return { name: generate(caller?.job ?? null, names), generated: true };
  if (requested.trim() === '') {
    throw fieldError(
      'name',
      `name may not be ${requested.length > 0 ? 'blank' : 'empty'}`,
      'give a name such as train or train/eval, or leave the name out to get a generated one',
    );
  }
  const trimmed = requested.trim();
  if (!caller) return { name: withField('name', 'name', () => parseJobName(trimmed)), generated: false };
  if (trimmed.startsWith('/')) {
    const name = withField('name', 'name', () => parseJobName(trimmed));
    if (name === caller.job || !isWithin(name, caller.job)) {
      throw fieldError(
        'name',
        `name "${name}": a task may only create children under its own job ${caller.job}`,
        `use a relative name such as "eval" to create ${caller.job}/eval`,
        'forbidden',
      );
    }
    return { name, generated: false };
  }
  return { name: withField('name', 'name', () => parseJobName(nameFromTask(trimmed, caller.job))), generated: false };
}
