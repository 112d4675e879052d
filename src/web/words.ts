/**
 * The page's sentences that depend on data: a dependency and whether it is met, the waiting line of
 * a pending job, the question before a cancel, a count with its noun. Pure.
 */
import type { JobDependency } from '../model/types.js';
import { type DependencyOutcome, dependencyOutcome } from '../model/dependency-outcome.js';
import type { JobState } from '../model/states.js';

/** `3 lines`, `1 line`. */
export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const VERB: Record<JobDependency['condition'], string> = { ok: 'succeeds', any: 'ends', failed: 'fails' };

/** What `--after JOB:condition` waits for, in words: `succeeds` (`:ok`), `ends` (`:any`), `fails` (`:failed`). */
export const afterVerb = (condition: JobDependency['condition']): string => VERB[condition];

/** `after /prep succeeds`. */
export const afterWords = (dep: JobDependency): string => `after ${dep.job} ${afterVerb(dep.condition)}`;

/**
 * Whether it is met yet, given its job's state: `undefined` while not known, `null` for a job no
 * longer stored (the cluster counts that as met: only an ended job leaves the live model).
 */
export function afterStatus(
  dep: JobDependency,
  state: JobState | null | undefined,
): { outcome: DependencyOutcome | null; text: string } {
  if (state === undefined) return { outcome: null, text: '' };
  if (state === null) return { outcome: 'met', text: `met (${dep.job} is no longer stored)` };
  const outcome = dependencyOutcome(dep.condition, state);
  if (outcome === 'waiting') return { outcome, text: `not met yet: ${dep.job} is ${state}` };
  if (outcome === 'met') return { outcome, text: `met: ${dep.job} ended ${state}` };
  return { outcome, text: `never met: ${dep.job} ended ${state}` };
}

/** The pending line's label and text: a reason that already says `waiting …` is not labelled `waiting:` again. */
export function waitingWords(reason: string): { label: string | null; text: string } {
  if (!reason) return { label: 'waiting:', text: 'to be scheduled' };
  if (/^waiting\b/i.test(reason)) return { label: null, text: reason.charAt(0).toUpperCase() + reason.slice(1) };
  return { label: 'waiting:', text: reason };
}

/** The question asked before a cancel: a task alone, or a job with every job below it. */
export function cancelQuestion(name: string): string {
  return /\/task-\d+$/.test(name) ? `Cancel task ${name}?` : `Cancel ${name} and every job below it?`;
}
