/**
 * The query parameters of GET /v1/jobs, GET /v1/history, GET /v1/logs and GET /v1/results as zod schemas. Values are
 * the trimmed
 * strings of the URL (an empty value is "not given"); a refusal names the parameter:
 * `query parameter "tail" must be a non-negative integer, got "-1"`.
 */
import { z } from 'zod';
import { parseJobStates } from '../model/states.js';
import { IrisError } from '../model/errors.js';
import { issuesToError } from '../model/schema-errors.js';

const BOOLEAN = new Set(['1', '0', 'true', 'false', 'yes', 'no']);
const TRUE = new Set(['1', 'true', 'yes']);

const count = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, {
      error: (issue) => `query parameter "${name}" must be a non-negative integer, got "${String(issue.input)}"`,
    })
    .transform(Number);

const flag = (name: string) =>
  z
    .string()
    .transform((value) => value.toLowerCase())
    .refine((value) => BOOLEAN.has(value), {
      error: (issue) => `query parameter "${name}" must be 1 or 0, got "${String(issue.input).toLowerCase()}"`,
    })
    .transform((value) => TRUE.has(value));

const JobSelectSchema = z.object({
  prefix: z.string().optional(),
  user: z.string().optional(),
  state: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseJobStates([value]);
      } catch (error) {
        if (!(error instanceof IrisError)) throw error;
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `query parameter "state": ${error.message}`,
          params: { hint: error.hint },
        });
        return z.NEVER;
      }
    })
    .optional(),
});

const runId = (name: string) =>
  z
    .string()
    .regex(/^[1-9]\d*$/, {
      error: (issue) => `query parameter "${name}" must be a run id (a positive integer), got "${String(issue.input)}"`,
    })
    .transform(Number);

/** Epoch milliseconds (as the CLI sends them). */
const instant = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, {
      error: (issue) => `query parameter "${name}" must be a time in epoch milliseconds, got "${String(issue.input)}"`,
    })
    .transform(Number);

/**
 * GET /v1/jobs: `recent` (epoch ms) leaves out the archived job trees that ended before it (the
 * trees `iris jobs` hides without --all).
 */
export const JobsQuerySchema = JobSelectSchema.extend({ recent: instant('recent').optional() });

/** GET /v1/job: the run of the named job (`name` itself is checked by the route). */
export const JobQuerySchema = z.object({ run: runId('run').optional() });

export const HistoryQuerySchema = JobSelectSchema.extend({
  since: instant('since').optional(),
  until: instant('until').optional(),
  limit: count('limit').optional(),
});

export const LogsQuerySchema = z.object({
  target: z.string({ error: 'query parameter "target" is required' }),
  run: runId('run').optional(),
  follow: flag('follow').optional(),
  tail: count('tail').optional(),
  since: z.string().optional(),
  attempt: count('attempt').optional(),
});

/** GET /v1/results: the job (`job`, checked by the route; NAME@RUN allowed) and its run. */
export const ResultsQuerySchema = z.object({
  job: z.string({ error: 'query parameter "job" is required' }),
  run: runId('run').optional(),
});

/** The known parameters of `query` (trimmed; empty ones left out) checked by `schema`. */
export function parseQuery<S extends z.ZodObject>(schema: S, query: URLSearchParams): z.output<S> {
  const values: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = query.get(key)?.trim();
    if (value) values[key] = value;
  }
  const result = schema.safeParse(values, { reportInput: true });
  if (result.success) return result.data;
  // The messages name the parameter themselves.
  throw issuesToError(
    result.error.issues.map((issue) => ({ ...issue, path: [] })),
    { style: 'body' },
  );
}
