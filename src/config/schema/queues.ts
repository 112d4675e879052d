/**
 * `queues:` and `default-queue:` (docs/configuration.md, "Named queues"): a map of named queues,
 * each with the `queue:` block's policy and depths, the workers it may use (`workers:`, constraints
 * over worker attributes) and defaults for its jobs (`time-limit`, `priority`).
 *
 * Rules: `queue:` and `queues:` are not both given; a queue name is lower-case letters, digits and
 * dashes; with one queue it is the default; with two or more `default-queue` names one, or a queue
 * named `default` is it; `default-queue` names a configured queue and needs `queues:`. Every error
 * names its key path (`queues.gpu.workers[0]: ...`).
 */
import { z } from 'zod';
import { BANDS } from '../../model/band.js';
import { parseConstraint, type Constraint } from '../../model/constraints.js';
import { invalid } from '../../model/errors.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { QUEUE_NAME, type QueueCatalog } from '../../model/queues.js';
import { fail, list, map, object, oneOf, text } from './fields.js';
import { queueKeys, resolveQueueBlock, timeLimit, type ResolvedQueueBlock } from './settings.js';

const constraint = parseWith<Constraint, string>((item) => {
  if (typeof item !== 'string')
    throw invalid(`invalid constraint ${describeValue(item)}: expected text such as "pool=gpu"`);
  return parseConstraint(item);
});

const queueEntry = object(
  {
    ...queueKeys,
    workers: z
      .union([z.string().transform((one) => [one]), list(z.unknown(), 'constraints such as "pool=gpu"')])
      .nullish()
      .transform((items) => items ?? [])
      .pipe(z.array(constraint)),
    'time-limit': timeLimit.nullish(),
    priority: oneOf(BANDS, 'priority band').nullish(),
  },
  'an object such as { policy: easy, workers: "pool=gpu" }',
);

export const queues = map(
  queueEntry.nullish(),
  'a map of queue names to queues, such as { gpu: { policy: easy } }',
).nullish();

export type QueuesInput = z.output<typeof queues>;

/** One resolved named queue: its policy block, workers and job defaults. */
export interface NamedQueueConfig extends ResolvedQueueBlock {
  name: string;
  workers: Constraint[];
  timeLimitMs: number | null;
  band: (typeof BANDS)[number] | null;
}

export interface QueuesConfig {
  /** In config order. */
  queues: NamedQueueConfig[];
  defaultQueue: string;
}

/** The catalog admission and the views read (model/queues.ts). */
export function queueCatalog(config: QueuesConfig | null): QueueCatalog | null {
  if (!config) return null;
  return {
    queues: config.queues.map((q) => ({ name: q.name, workers: q.workers, timeLimitMs: q.timeLimitMs, band: q.band })),
    defaultQueue: config.defaultQueue,
  };
}

/** `queues:` with `default-queue:` and `queue:` resolved together (the rules in the header); null without `queues:`. */
export function resolveQueues(
  ctx: z.core.$RefinementCtx,
  given: QueuesInput,
  defaultQueue: string | null | undefined,
  singleGiven: boolean,
): QueuesConfig | null {
  if (given === undefined || given === null) {
    if (defaultQueue != null)
      fail(ctx, ['default-queue'], 'default-queue needs queues:', 'define the queues under queues:, or remove it');
    return null;
  }
  if (singleGiven)
    fail(
      ctx,
      ['queues'],
      'give either queue: (one queue over every worker) or queues: (named queues), not both',
      'move the queue: block into an entry of queues:',
    );
  const names = Object.keys(given);
  if (names.length === 0) fail(ctx, ['queues'], 'queues: names no queue', 'add a queue, or remove queues:');
  const out: NamedQueueConfig[] = [];
  for (const name of names) {
    if (!QUEUE_NAME.test(name))
      fail(
        ctx,
        ['queues', name],
        `invalid queue name ${JSON.stringify(name)}`,
        'use lower-case letters, digits and dashes, starting with a letter',
      );
    const entry = given[name] ?? null;
    const block = resolveQueueBlock(ctx, entry, ['queues', name]);
    out.push({
      name,
      ...block,
      workers: entry?.workers ?? [],
      timeLimitMs: entry?.['time-limit'] ?? null,
      band: entry?.priority ?? null,
    });
  }
  let chosen: string;
  if (defaultQueue != null) {
    if (!names.includes(defaultQueue))
      fail(
        ctx,
        ['default-queue'],
        `default-queue ${JSON.stringify(defaultQueue)} is not a queue`,
        `use one of: ${names.join(', ')}`,
      );
    chosen = defaultQueue;
  } else if (names.length === 1) {
    chosen = names[0]!;
  } else if (names.includes('default')) {
    chosen = 'default';
  } else {
    fail(
      ctx,
      ['default-queue'],
      `default-queue is required with ${names.length} queues (${names.join(', ')}) and none is named default`,
      'name the queue a job without --queue joins: default-queue: NAME',
    );
  }
  return { queues: out, defaultQueue: chosen };
}

export const defaultQueueKey = text('default-queue').nullish();
