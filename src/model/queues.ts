/**
 * Named queues (docs/configuration.md, `queues:`): what a job's queue means outside the
 * scheduler. A queue names the workers it may use (constraints over worker attributes, like a
 * Slurm partition) and defaults for its jobs (time limit, band). A job stores its queue's name
 * (JobSpec.queue); a cluster without `queues:` has no named queue and its jobs none.
 *
 * Guarantees: `queueWorkers` is the one filter of a queue's workers (admission's never-fit check
 * and the scheduler's placement both read the queue's constraints through `queueConstraints`);
 * `unknownQueue` is the one refusal of a name that is not a queue, with the known names and the
 * closest one.
 */
import type { Band } from './band.js';
import { constraintHolds, formatConstraint, type Constraint } from './constraints.js';
import { IrisError } from './errors.js';
import { suggestKey } from './suggest.js';

/** A queue name: lower-case letters, digits and dashes, starting with a letter. */
export const QUEUE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export interface QueueDefaults {
  name: string;
  /** Which workers the queue may use (all must hold); empty: every worker. */
  workers: readonly Constraint[];
  /** Time limit of a job of this queue that gives none; null: the cluster's `time-limit`. */
  timeLimitMs: number | null;
  /** Band of a job of this queue that asks for none; null: interactive (or its parent's). */
  band: Band | null;
}

/** The configured queues, in config order, and the one a job without `--queue` joins. */
export interface QueueCatalog {
  queues: readonly QueueDefaults[];
  defaultQueue: string;
}

export function findQueue(catalog: QueueCatalog, name: string): QueueDefaults | undefined {
  return catalog.queues.find((q) => q.name === name);
}

/** The refusal of `name`, which is not a queue of `catalog` (exit 2). */
export function unknownQueue(queues: readonly { name: string }[], name: string): IrisError {
  const names = queues.map((q) => q.name);
  if (names.length === 0)
    return new IrisError(
      'invalid_argument',
      `unknown queue ${JSON.stringify(name)}: this cluster has no named queues`,
      'leave --queue out, or define queues: in the cluster config',
      'queue',
    );
  const close = suggestKey(name, names);
  return new IrisError(
    'invalid_argument',
    `unknown queue ${JSON.stringify(name)}: the queues are ${names.join(', ')}`,
    close ? `did you mean --queue ${close}?` : `use one of: ${names.join(', ')}`,
    'queue',
  );
}

/** The constraints placement adds for a job of `queue` (none for no queue or an unknown one). */
export function queueConstraints(catalog: QueueCatalog | null, queue: string | undefined): readonly Constraint[] {
  if (!catalog || queue === undefined) return [];
  return findQueue(catalog, queue)?.workers ?? [];
}

/** The workers `queue` may use, of `workers`. */
export function queueWorkers<W extends { attributes: Readonly<Record<string, string>> }>(
  constraints: readonly Constraint[],
  workers: readonly W[],
): W[] {
  if (constraints.length === 0) return [...workers];
  return workers.filter((w) => constraints.every((c) => constraintHolds(c, w.attributes)));
}

/** `pool=gpu, zone in (a,b)`, or `every worker`. */
export function describeQueueWorkers(constraints: readonly Constraint[]): string {
  return constraints.length === 0 ? 'every worker' : constraints.map(formatConstraint).join(', ');
}
