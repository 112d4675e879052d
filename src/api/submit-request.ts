/**
 * The shape of a submit (and dry-run estimate) request body: which fields exist, their JSON
 * types and ranges. Only the shape: what the values mean (names, resources, devices, durations,
 * defaults, a task caller's children) is decided by admission (src/cluster/admission/), so the
 * CLI, tasks using curl and tests get the same answers. docs/api.md renders this schema.
 */
import { z } from 'zod';
import { describeValue } from '../model/schema-errors.js';
import { expecting, fieldsOf, integer, parseWith, text } from './request-schema.js';

export const MAX_REPLICAS = 10_000;

const quantity = (what: string) => z.union([z.number(), z.string()], { error: expecting(what) });
const duration = () => quantity('a duration string such as "10m"');

export const SubmitRequestSchema = z.strictObject(
  {
    name: text().nullish().describe('Job name (`/exp/train`, or relative `train`); for a task caller a relative name is created under the task\'s job. Generated when left out.'),
    command: z
      .array(text(), { error: expecting('a non-empty array of strings', 'is required: a non-empty array of strings such as ["python", "train.py"]') })
      .min(1, { error: expecting('a non-empty array of strings') })
      .refine((command) => !(typeof command[0] === 'string' && command[0].trim() === ''), { error: '(the program) may not be empty', path: [0] })
      .describe('Program and arguments.'),
    replicas: integer(1, MAX_REPLICAS).nullish().describe('Number of tasks (default 1; a multi-host TPU variant: its hosts).'),
    cpu: quantity('a number of cores such as 0.5 or "2"').nullish().describe('CPU cores per task (`0.5`, `"2"`, `"500m"`); default 1.'),
    memory: quantity('a size such as "4GiB" or a number of bytes').nullish().describe('Memory per task (`"4GiB"` or bytes); default 256MiB.'),
    gpu: text().nullish().describe('GPUs per task (`"H100x8"`, `"2"`); not with tpu.'),
    tpu: text().nullish().describe('TPU variant (`"v5litepod-16"`); not with gpu.'),
    env: z.record(z.string(), text(), { error: expecting('an object of string values') }).nullish().describe('Environment variables; names starting with IRIS_ are reserved.'),
    constraints: z.array(text(), { error: expecting('an array of strings') }).nullish().describe('Worker constraints (`"region=us"`, `"zone in (a,b)"`).'),
    coschedule: text().nullish().describe('Worker attribute a gang is placed by (`"tpu-name"`).'),
    maxRetries: integer(0).nullish().describe('Retries of a failed task (default 0).'),
    maxTaskFailures: integer(0).nullish().describe('Failed tasks the job tolerates (default 0).'),
    maxPreemptions: integer(0).nullish().describe('Preemptions of a task before it fails (default: the cluster\'s max-preemptions).'),
    timeLimit: duration().nullish().describe('Time limit of each attempt (`"2h"`); default: the cluster\'s time-limit.'),
    timeout: duration().nullish().describe('Older name of timeLimit.'),
    schedulingTimeout: duration().nullish().describe('How long the job may stay pending (`"10m"`).'),
    user: text().nullish().describe('User the job runs as (default: the cluster\'s user; a task\'s children: its user).'),
    cwd: text().nullish().describe('Absolute working directory of the tasks.'),
    image: text().nullish().describe('Container image; the tasks run on the local Docker engine instead of as processes.'),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? `the submit request must be a JSON object, got ${describeValue(issue.input)}` : undefined) },
);

/** A submit request body, as sent on the wire. */
export type SubmitRequest = z.infer<typeof SubmitRequestSchema>;

/** The fields a submit request may carry. */
export const SUBMIT_FIELDS = fieldsOf(SubmitRequestSchema);

/** Check a submit body's shape; throws IrisError('invalid_argument') naming the field. */
export function parseSubmitRequest(body: unknown): SubmitRequest {
  return parseWith(SubmitRequestSchema, body, SUBMIT_FIELDS);
}
