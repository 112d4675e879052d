/**
 * The shape of a submit (and dry-run estimate) request body: which fields exist, their JSON
 * types and ranges. Only the shape: what the values mean (names, resources, devices, durations,
 * defaults, a task caller's children) is decided by admission (src/cluster/admission/), so the
 * CLI, tasks using curl and tests get the same answers. No string may hold a NUL character
 * (request-schema.ts `text`). docs/api.md renders this schema.
 */
import { BANDS } from '../model/band.js';
import { z } from 'zod';
import { parseOrThrow } from '../model/schema-errors.js';
import { JOB_CATEGORIES } from '../model/workload.js';
import { ENV_KEY_CHARS, NAME_COMPONENT_CHARS } from '../model/names.js';
import { expecting, integer, requestBody, text } from './request-schema.js';

export const MAX_REPLICAS = 10_000;

const quantity = (what: string) => z.union([z.number(), text()], { error: expecting(what) });
const duration = () => quantity('a duration string such as "10m"');

export const SubmitRequestSchema = requestBody('submit request', {
  name: text()
    .nullish()
    .describe(
      `Job name (\`a\`, \`/a/b\`): components \`${NAME_COMPONENT_CHARS}\`, not \`task-<n>\`, at most 63 characters, ` +
        "depth at most 16. A task caller's relative name is created under its job. Left out: generated " +
        '(`brisk-otter-4821`); an empty or blank name is refused.',
    ),
  command: z
    .array(text(), {
      error: expecting(
        'a non-empty array of strings',
        'is required: a non-empty array of strings such as ["python", "train.py"]',
      ),
    })
    .min(1, { error: expecting('a non-empty array of strings') })
    .refine((command) => !(typeof command[0] === 'string' && command[0].trim() === ''), {
      error: '(the program) may not be empty',
      path: [0],
    })
    .describe('Program and arguments: non-empty, all strings, the program not empty.'),
  replicas: integer(1, MAX_REPLICAS)
    .nullish()
    .describe('Number of tasks; default 1 (a multi-host TPU variant: its number of hosts, and only that).'),
  cpu: quantity('a number of cores such as 0.5 or "2"')
    .nullish()
    .describe(
      'CPU cores per task, > 0 and at most 1000000 (`0.5`, `"2"`; as text plain decimal digits, no `0x`, exponent ' +
        'or sign); default 1.',
    ),
  memory: quantity('a size such as "4GiB" or a number of bytes')
    .nullish()
    .describe('Memory per task: bytes or a size (`512M`, `4GiB`; K/M/G are powers of 1024); default 256MiB.'),
  gpu: text().nullish().describe('GPUs per task: `8`, `H100`, `H100x8`. Not with `tpu`.'),
  gpuMemory: quantity('a size such as "40GiB" or a number of bytes')
    .nullish()
    .describe(
      'The least memory each GPU must have (`40GiB`, `80G`; K/M/G are powers of 1024); only with `gpu`. Workers ' +
        'whose GPU memory is smaller or unknown are not used; none: any GPU.',
    ),
  tpu: text()
    .nullish()
    .describe('A known TPU variant (`v4-8`, `v5litepod-16`, `v6e-8`); chips per host come from it. Not with `gpu`.'),
  env: z
    .record(text(), text(), { error: expecting('an object of string values') })
    .nullish()
    .describe(
      `Environment: keys \`${ENV_KEY_CHARS}\`, string values; \`IRIS_*\` keys are refused (reserved). ` +
        "A task caller's children inherit its job's env under their own.",
    ),
  constraints: z
    .array(text(), { error: expecting('an array of strings') })
    .nullish()
    .describe(
      'Worker constraints: `key=value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key`, `!key`, `key>N`.',
    ),
  coschedule: text().nullish().describe('Worker attribute all tasks must share (a gang), e.g. `tpu-name`.'),
  maxRetries: integer(0).nullish().describe('Retries of a failed task; default 0.'),
  retryBackoff: duration()
    .nullish()
    .describe(
      'Wait before the retry of a failed task, doubled after each failure of that task (backoff * 2^(failures-1)), ' +
        "> 0; default: the cluster's `retry-backoff` (none: retry at once).",
    ),
  retryBackoffMax: duration()
    .nullish()
    .describe(
      'Longest such wait, > 0 and not below `retryBackoff`; default: 10 times `retryBackoff`. Only with a backoff.',
    ),
  maxTaskFailures: integer(0).nullish().describe('Failed tasks the job tolerates; default 0.'),
  maxPreemptions: integer(0)
    .nullish()
    .describe("Preemptions of a task before it fails; default: the cluster's `max-preemptions` (100)."),
  timeLimit: duration()
    .nullish()
    .describe(
      'Time limit of each attempt, > 0, any length: `90s`, `10m`, `1h30m`, `30d`, `500ms` or bare seconds; default: ' +
        "the cluster's `time-limit` (24h). A given limit is also what the queue planner plans each task with; " +
        'without one it plans with a runtime predicted from earlier runs of the name (docs/cli.md, "Runtime ' +
        'estimates"), else the default limit.',
    ),
  timeout: duration().nullish().describe('Older name of `timeLimit` (not both).'),
  schedulingTimeout: duration().nullish().describe('How long the job may stay pending; a duration as `timeLimit`.'),
  user: text()
    .nullish()
    .describe(
      'Who the job runs for and is counted against (quotas): 1-64 letters, digits, `_ . - @`, starting with a ' +
        'letter, digit or `_`. Default: the user running the cluster. Another user only without a task token (the ' +
        "owner): recorded as `submitter` for `user`. A task's children always run as the task's user.",
    ),
  cwd: text()
    .nullish()
    .describe(
      'Working directory of the tasks, an absolute path; default: `workspace` (a process), the mounted `workspace` ' +
        "(a container), else the cluster's working directory (a process) or the image's own (a container).",
    ),
  workspace: text()
    .nullish()
    .describe(
      "The directory the job was submitted from (the CLI sends its own), absolute. A process job's default working " +
        "directory; an owner's container job gets it mounted read-write at the same path, as its working directory, " +
        "unless `mountWorkspace` is false or the config's `workspace` is false. A directory that is or holds `/`, " +
        "`/proc`, `/sys`, `/dev`, the state directory or the engine's socket is refused with `forbidden`, one " +
        "the container's user cannot read with `forbidden`. A task's children never get it mounted anew (they " +
        "inherit their parent's mounts).",
    ),
  mountWorkspace: z
    .boolean({ error: expecting('true or false') })
    .nullish()
    .describe("false: do not mount `workspace` into the containers; default: the config's `workspace` (true)."),
  mounts: z
    .array(text(), { error: expecting('an array of strings') })
    .nullish()
    .describe(
      'Host paths in the containers: `SRC:DST` or `SRC:DST:ro`, absolute paths without `:`; SRC is resolved to its ' +
        'real path. Refused: a relative SRC or DST (`invalid_argument`), a missing SRC (`invalid_argument`), a SRC ' +
        "that is or holds `/`, `/proc`, `/sys`, `/dev`, the state directory or the engine's socket (`forbidden`), " +
        'a process job (`invalid_argument`), the kubernetes backend (`unsatisfiable`); from a task, a SRC not ' +
        "within its own container's mounts, or read-write where its mount is read-only (`forbidden`).",
    ),
  image: text()
    .nullish()
    .describe(
      'Run the tasks as containers of this image (refused with `unavailable` when no Docker engine answers); ' +
        "default: the cluster's `image` with `runtime: docker`.",
    ),
  runtime: z
    .enum(['process', 'docker'], { error: expecting('"process" or "docker"') })
    .nullish()
    .describe(
      "How the tasks run: `process` (host processes) or `docker` (containers of `image`, else the cluster's " +
        '`image`, else, for a task in a container, its own image). Default: a container with `image`; else the ' +
        "cluster's `runtime`, except that a task in a container gives its children its own image. `process` from " +
        'a task in a container is refused with `forbidden` unless the config sets `container-process-children: ' +
        'true`.',
    ),
  userInContainer: text()
    .nullish()
    .describe(
      "User the job's containers run as: `UID[:GID]` or `NAME[:GROUP]` of the image; default: the cluster's " +
        '`container-user` (65534:65534, nobody). Ignored for process tasks.',
    ),
  after: z
    .array(text(), { error: expecting('an array of strings') })
    .nullish()
    .describe(
      'Jobs this one runs after: `JOB` or `JOB:ok` (it succeeded), `JOB:any` (it ended), `JOB:failed` (it ended ' +
        'without success). Until then the job is PENDING, `waiting for /prep (RUNNING)`, and in no queue; a ' +
        'dependency that can no longer be met fails it (`dependency /prep failed`), and its own dependents after ' +
        "it. A task caller's relative name is a child of its job. An unknown job is refused with `not_found`, " +
        'the job itself or a cycle with `invalid_argument`, a dependency that has already failed with ' +
        '`conflict`.',
    ),
  category: z
    .enum(JOB_CATEGORIES, { error: expecting(`one of ${JOB_CATEGORIES.join(', ')}`) })
    .nullish()
    .describe('What the job does, for placement: `training`, `inference` or `other` (the default).'),
  uses: z
    .array(text(), { error: expecting('an array of strings') })
    .nullish()
    .describe(
      'Models or data sets the tasks load (`llama-3-8b`), at most 32, no spaces: placement prefers workers that ' +
        'recently ran a task using them.',
    ),
  mergeKey: text()
    .nullish()
    .describe(
      'Merge key (`--merge-key`): under adaptive placement, ready tasks of jobs with the same key, user, image, ' +
        'command and resources may run as one attempt on one worker (`placement.merge`, docs/cli.md).',
    ),
  priority: z
    .enum(BANDS, { error: expecting(`one of ${BANDS.join(', ')}`) })
    .nullish()
    .describe(
      'Priority band: `production`, `interactive` (the default) or `batch`. The queue orders band first; a ' +
        "higher band may preempt lower-band work. A task's child inherits its parent's band and may ask only for " +
        "a lower one (`forbidden`); `production` is the owner's unless the config grants it (`production-users`).",
    ),
  queue: text()
    .nullish()
    .describe(
      'The named queue to join (config `queues:`): its policy orders the job and it runs only on the ' +
        "queue's workers. Default: the parent's queue, else the config's `default-queue`. An unknown name is " +
        '`invalid_argument` (with the known names); a job no worker of its queue could ever run is `unsatisfiable`.',
    ),
  network: text()
    .nullish()
    .describe(
      "Network of the job's containers: `bridge` or `host`; default: the cluster's `network`, else `bridge` (TPU " +
        'jobs: `host`). Ignored for process tasks.',
    ),
});

/** A submit request body, as sent on the wire. */
export type SubmitRequest = z.infer<typeof SubmitRequestSchema>;

/** Check a submit body's shape; throws IrisError('invalid_argument') naming the field. */
export function parseSubmitRequest(body: unknown): SubmitRequest {
  return parseOrThrow(SubmitRequestSchema, body, { style: 'body' });
}
