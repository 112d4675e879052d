/**
 * Arguments several commands declare alike, defined once so their help text and parsing stay the
 * same in each: the worker NAME of `iris workers drain|resume|disable|enable`, and the
 * `JOB [JOB…]` list of `iris cancel` and `iris wait` (oclif parses one positional and leaves the
 * rest in argv: `jobList` puts them back together, in the order given).
 */
import { Args } from '../oclif.js';

/** `NAME`: a worker, as `iris workers` shows it. */
export const workerArgs = {
  name: Args.string({ description: 'Worker name, as `iris workers` shows it.', required: true }),
};

/** `JOB [JOB…]` (with `static strict = false`): the first name, described by `description`. */
export function jobListArgs(description: string) {
  return { job: Args.string({ description, required: true }) };
}

/** Every name of a `JOB [JOB…]` command: oclif puts the first in args.job and all of them, or the rest, in argv. */
export function jobList(args: { job: string }, argv: unknown[]): string[] {
  const rest = argv as string[];
  return rest.length > 0 && rest[0] === args.job ? rest : [args.job, ...rest];
}
