/**
 * Building blocks of the request schemas (zod) and the one way a request is parsed: a refused
 * request is an IrisError('invalid_argument') whose message names the field and the value it
 * got (`replicas must be between 1 and 10000, got 0`), see src/model/schema-errors.ts.
 * Null and a missing field both mean "not given" on the wire.
 */
import { z } from 'zod';
import { describeValue } from '../model/schema-errors.js';
import { NUL_REFUSAL, hasNul } from '../model/nul.js';

interface IssueInput {
  input?: unknown;
}

/** Error wording `must be <what>, got <value>`; `is required…` when the field is missing. */
export function expecting(what: string, required = 'is required'): (issue: IssueInput) => string {
  return (issue) =>
    issue.input === undefined ? required : `must be ${what}, got ${describeValue(issue.input, 'body')}`;
}

/**
 * A whole request body: a strict object of `shape` (unknown fields refused). Anything but an object
 * is refused as `the <what> must be a JSON object, got <value>`, the same words for every body.
 */
export function requestBody<S extends z.ZodRawShape>(what: string, shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `the ${what} must be a JSON object, got ${describeValue(issue.input, 'body')}`
        : undefined,
  });
}

/** An integer in [min, max] (no upper bound when max is left out). */
export function integer(min: number, max?: number) {
  const range = max === undefined ? `must be ${min} or more` : `must be between ${min} and ${max}`;
  const outOfRange = (issue: IssueInput) => `${range}, got ${describeValue(issue.input, 'body')}`;
  const base = z
    .number({ error: expecting('an integer') })
    .int({ error: expecting('an integer') })
    .min(min, { error: outOfRange });
  return max === undefined ? base : base.max(max, { error: outOfRange });
}

/** A string field (`must be a string, got 5`); never with a NUL character (src/model/nul.ts). */
export function text() {
  return z.string({ error: expecting('a string') }).refine((value) => !hasNul(value), { error: NUL_REFUSAL });
}
