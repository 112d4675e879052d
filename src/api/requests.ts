/**
 * The shapes of the small request bodies (cancel, retry, update, drain, resume, endpoint registration, result,
 * wait, prune). Like the submit body they are strict: unknown fields are refused. docs/api.md renders these schemas.
 */
import { z } from 'zod';
import { expecting } from './request-schema.js';
import { describeValue, parseOrThrow } from '../model/schema-errors.js';
import { invalid, relabel } from '../model/errors.js';
import { parseDuration } from '../model/duration.js';
import { BANDS } from '../model/band.js';

const NON_EMPTY = 'is required and must be a non-empty string';

function requiredText(description: string) {
  return z.string({ error: NON_EMPTY }).trim().min(1, { error: NON_EMPTY }).describe(description);
}

function body<S extends z.ZodRawShape>(what: string, shape: S) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'invalid_type' ? `${what}: request body must be a JSON object` : undefined),
  });
}

/** An optional true/false field, described for the generated docs. */
function optionalBoolean(description: string) {
  return z
    .boolean({ error: expecting('true or false') })
    .optional()
    .describe(description);
}

/** An optional duration field (checked where it is used); `example` is quoted in the type error. */
function optionalDuration(example: string, description: string) {
  return z
    .string({ error: expecting(`a duration such as "${example}"`) })
    .optional()
    .describe(description);
}

/** A non-empty array of job names, described for the generated docs. */
function jobNames(description: string) {
  return z
    .array(z.string({ error: 'must be a string' }), { error: 'must be a non-empty array of job names' })
    .min(1, { error: 'must be a non-empty array of job names' })
    .describe(description);
}

export const CancelRequestSchema = body('cancel', {
  names: jobNames(
    'Jobs to cancel (`/train` or `train`), their subtrees cancelled with them; or single tasks of a job ' +
      '(`/train/task-3`), each ending CANCELLED.',
  ),
});

export const RetryRequestSchema = body('retry', {
  name: requiredText(
    'The ended job to run again (`/prep` or `prep`): a new run of the name with the same spec. Refused while it has ' +
      'not ended, or when it succeeded (`conflict`).',
  ),
  downstream: optionalBoolean(
    'Also run again the jobs its failure cascaded to (FAILED with `dependency … failed` because of it, ' +
      'transitively); each waits on it again.',
  ),
});

export const UpdateRequestSchema = body('update', {
  name: requiredText('The job to change (`/train` or `train`): one that has not ended.'),
  priority: z
    .enum(BANDS, { error: expecting(`one of ${BANDS.join(', ')}`) })
    .describe(
      'Its new band: `production`, `interactive` or `batch`, by the rules of a submission (not above its ' +
        "parent's band: `forbidden`; production only for the owner or a user the config grants it). Jobs below " +
        'it in a higher band come down to it.',
    ),
});

export const DrainRequestSchema = body('drain', {
  name: requiredText('The worker to drain.'),
});

export const ResumeRequestSchema = body('resume', {
  name: requiredText('The drained worker to put back into service.'),
});

export const DisableRequestSchema = body('disable', {
  name: requiredText('The worker to disable: it takes no new tasks, its running tasks go on.'),
  reason: z
    .string({ error: expecting('a string') })
    .max(200)
    .optional()
    .describe('Why, in words; `iris workers` shows it beside `by user`.'),
});

export const EnableRequestSchema = body('enable', {
  name: requiredText('The disabled worker to enable again.'),
});

export const EndpointRequestSchema = body('endpoint', {
  name: requiredText(
    "Endpoint name, scoped to the task's job (`ps` from /train is `/train/ps`): `/`-separated parts of letters, " +
      "digits and `_ . : -`, each starting with a letter or digit; an absolute name must lie below the task's own " +
      'job (else 403).',
  ),
  address: requiredText('Where the endpoint answers (`host:port`, a URL).'),
});

export const ResultRequestSchema = body('result', {
  key: requiredText(
    'Result key: 1-128 letters, digits and `_ . -`, starting with a letter or digit (e.g. `checkpoint`). Setting a ' +
      'key again overwrites it.',
  ),
  value: z
    .string({ error: 'is required and must be a string' })
    .describe('Result value: a string of at most 64 KiB (UTF-8).'),
});

export const WaitRequestSchema = body('wait', {
  jobs: jobNames(
    'Jobs to wait for, each together with its whole subtree: `/train` or `train`; with a task token a relative name ' +
      "is a child of the task's job (`eval` = `<job>/eval`).",
  ),
  any: optionalBoolean(
    'Answer as soon as any one of the jobs (with its subtree) has ended; default false: when all have.',
  ),
  timeout: optionalDuration(
    '30s',
    'Longest time to wait (`30s`, `10m`, `1h30m`); the answer then has `done: false`. Default: until the jobs end.',
  ),
});

export const PruneRequestSchema = body('prune', {
  olderThan: optionalDuration(
    '7d',
    "Prune runs that ended longer ago than this (`7d`, `36h`). Default: the cluster's `retention` setting.",
  ),
  dryRun: optionalBoolean('Only list what would be pruned, and the log bytes it would free.'),
});

export type CancelRequest = z.infer<typeof CancelRequestSchema>;
export type DrainRequest = z.infer<typeof DrainRequestSchema>;
export type RetryRequest = z.infer<typeof RetryRequestSchema>;
export type UpdateRequest = z.infer<typeof UpdateRequestSchema>;
export type ResumeRequest = z.infer<typeof ResumeRequestSchema>;
export type DisableRequest = z.infer<typeof DisableRequestSchema>;
export type EnableRequest = z.infer<typeof EnableRequestSchema>;
export type EndpointRequest = z.infer<typeof EndpointRequestSchema>;
export type WaitRequest = z.infer<typeof WaitRequestSchema>;
export type ResultRequest = z.infer<typeof ResultRequestSchema>;
export type PruneRequest = z.infer<typeof PruneRequestSchema>;

/** A request body's parser: its schema's check, with errors worded for a body (model/schema-errors.ts). */
function bodyParser<S extends z.ZodType>(schema: S): (value: unknown) => z.output<S> {
  return (value) => parseOrThrow(schema, value, { style: 'body' });
}

export const parseCancelRequest: (value: unknown) => CancelRequest = bodyParser(CancelRequestSchema);
export const parseRetryRequest: (value: unknown) => RetryRequest = bodyParser(RetryRequestSchema);
export const parseUpdateRequest: (value: unknown) => UpdateRequest = bodyParser(UpdateRequestSchema);
export const parseDrainRequest: (value: unknown) => DrainRequest = bodyParser(DrainRequestSchema);
export const parseResumeRequest: (value: unknown) => ResumeRequest = bodyParser(ResumeRequestSchema);
export const parseDisableRequest: (value: unknown) => DisableRequest = bodyParser(DisableRequestSchema);
export const parseEnableRequest: (value: unknown) => EnableRequest = bodyParser(EnableRequestSchema);
export const parseEndpointRequest: (value: unknown) => EndpointRequest = bodyParser(EndpointRequestSchema);
export const parseResultRequest: (value: unknown) => ResultRequest = bodyParser(ResultRequestSchema);
export const parseWaitRequest: (value: unknown) => WaitRequest = bodyParser(WaitRequestSchema);
/**
 * The age of a prune request (`olderThan`), in ms: a duration longer than 0. `label` names it in errors (`--older-than`
 * in the CLI).
 */
export function pruneAgeMs(value: string, label: string): number {
  const ms = relabel(label, () => parseDuration(value));
  if (ms <= 0) throw invalid(`${label}: must be longer than 0 (got ${describeValue(value)})`, 'for example 7d or 36h');
  return ms;
}

export const parsePruneRequest: (value: unknown) => PruneRequest = bodyParser(PruneRequestSchema);
