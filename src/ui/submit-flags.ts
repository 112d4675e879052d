/**
 * The flags shared by `iris submit` and `iris run` (with their `-f PIPELINE.yaml` flag and usage
 * lines), and the pure step from parsed flags to a SubmitRequest or, with -f, a pipeline request.
 * Resource, duration and constraint strings are sent as typed (the server parses and validates
 * them with the model's parsers, `--gpu-memory` without `--gpu` included); only `--env` is split
 * here.
 */
import { Flags } from '../oclif.js';
import type { SubmitRequest } from '../api/types.js';
import type { PipelineRequest } from '../api/pipeline-request.js';
import { IrisError, describeValue, invalid } from '../model/errors.js';
import { submitEnv } from './submit-env.js';
import { exampleHint, FLAG_VALUES, typedValue } from './flag-values.js';

export { parseEnvPairs } from './submit-env.js';

export const submitFlags = {
  name: Flags.string({ char: 'n', summary: 'Job name, a path such as train or train/eval (generated when omitted).' }),
  replicas: Flags.integer({ char: 'r', summary: 'Number of tasks (replicas) of the job.', min: 1 }),
  cpu: Flags.string({ summary: 'CPU cores per task; fractions allowed (0.5).' }),
  memory: Flags.string({ char: 'm', summary: 'Memory per task, e.g. 512M or 4GiB.' }),
  gpu: Flags.string({
    summary: 'GPUs per task: COUNT, VARIANT or VARIANTxCOUNT (8, H100, H100x8).',
    exclusive: ['tpu'],
  }),
  'gpu-memory': Flags.string({
    summary:
      'Least memory of each GPU, e.g. 40GiB (only with --gpu): workers whose GPUs have less, or an unknown amount, ' +
      'are not used.',
  }),
  category: Flags.string({
    summary: 'What the job does, for placement: training, inference or other (default other).',
    options: ['training', 'inference', 'other'],
  }),
  priority: Flags.string({
    summary:
      "Priority band: production, interactive (default) or batch. A task's child inherits its parent's band; " +
      'a higher band may preempt lower-band work (docs/priorities.md).',
    options: ['production', 'interactive', 'batch'],
  }),
  queue: Flags.string({
    summary:
      "The named queue to join (config queues:): its policy orders the job, which runs only on the queue's " +
      "workers. Default: the parent's queue, else the config's default-queue.",
  }),
  uses: Flags.string({
    summary:
      'A model or data set the tasks load, e.g. llama-3-8b (repeatable): placement prefers workers that recently ' +
      'ran a task using it.',
    multiple: true,
    multipleNonGreedy: true,
  }),
  'merge-key': Flags.string({
    summary:
      'Merge key: under adaptive placement, ready tasks of jobs with the same key, user, image, command and ' +
      'resources may run as one attempt (the command once, IRIS_MERGED_TASKS and IRIS_MERGED_FILE name them).',
  }),
  tpu: Flags.string({
    summary:
      'TPU slice variant, e.g. v5litepod-16 or v6e-8. A multi-host variant runs one task per host of one slice: ' +
      'replicas default to its hosts, co-scheduled by tpu-name, task i on tpu-worker-id i.',
    exclusive: ['gpu'],
  }),
  env: Flags.string({
    char: 'e',
    summary:
      'Environment variable KEY=VALUE for every task, or KEY to copy your own value (repeatable; wins over ' +
      '--env-file and --export).',
    multiple: true,
    multipleNonGreedy: true,
  }),
  'env-file': Flags.string({
    summary: 'Read environment variables from a file of KEY=VALUE lines, as docker run --env-file (repeatable).',
    multiple: true,
    multipleNonGreedy: true,
  }),
  export: Flags.string({
    summary:
      "Which of your environment variables the tasks get besides --env: NONE (default), ALL (all but the host's " +
      'own: PATH, HOME, USER, locale, …) or NAME,NAME,…',
  }),
  constraint: Flags.string({
    char: 'c',
    summary:
      'Worker attribute constraint (repeatable): k=v, k!=v, "k in (a,b)", "k notin (a,b)", k, !k, k>N, k>=N, k<N, ' +
      'k<=N.',
    multiple: true,
    multipleNonGreedy: true,
  }),
  coschedule: Flags.string({
    summary: 'Place all tasks at once on workers sharing one value of this attribute (e.g. tpu-name).',
  }),
  'max-retries': Flags.integer({
    summary:
      'Retries per task after a failed attempt — a non-zero exit, a time limit, a launch failure, a log that could ' +
      'not be written (default 0).',
    min: 0,
  }),
  'retry-backoff': Flags.string({
    summary:
      'Wait before retrying a failed task, e.g. 10s; doubled after each failure of that task, up to ' +
      "--retry-backoff-max (default: the cluster's retry-backoff, else none).",
  }),
  'retry-backoff-max': Flags.string({ summary: 'Longest retry wait (default: 10 times --retry-backoff).' }),
  'max-task-failures': Flags.integer({
    summary: 'Tasks that may fail for good before the job fails (default 0).',
    min: 0,
  }),
  'max-preemptions': Flags.integer({ summary: 'Preemptions per task before it gives up (default 100).', min: 0 }),
  'time-limit': Flags.string({
    summary:
      "Time limit of each attempt, e.g. 30s, 10m, 2h (default: the cluster's time-limit). A longer attempt is " +
      'stopped and its task ends TIMEOUT (a failure, retried under --max-retries); the planner uses it as the ' +
      "job's duration.",
    aliases: ['timeout'],
  }),
  'scheduling-timeout': Flags.string({
    summary: 'Mark the job UNSCHEDULABLE if it cannot be placed within this duration.',
  }),
  user: Flags.string({ summary: 'User the job is accounted to (default: the OS user).' }),
  cwd: Flags.string({
    summary:
      'Working directory of the tasks (default: the current directory; in a container, the mounted current ' +
      "directory, else the image's own).",
  }),
  image: Flags.string({
    summary:
      'Run each task in a container of this image on the local Docker engine; the current directory is mounted at ' +
      'the same path as its working directory.',
  }),
  workspace: Flags.boolean({
    summary:
      'Mount the current directory into the containers at the same path (default: on, unless the config says ' +
      'workspace: false); --no-workspace: do not.',
    allowNo: true,
  }),
  mount: Flags.string({
    summary: 'Mount a host path into the containers: SRC:DST or SRC:DST:ro, absolute paths (repeatable).',
    multiple: true,
    multipleNonGreedy: true,
  }),
  runtime: Flags.string({
    summary:
      "How the tasks run: process or docker (default: a container with --image, else the config's runtime; inside a " +
      "container task, that task's image).",
    options: ['process', 'docker'],
  }),
  'user-in-container': Flags.string({
    summary:
      "User the containers run as, UID[:GID] or NAME[:GROUP] (default: the config's container-user, 65534:65534).",
  }),
  after: Flags.string({
    summary:
      'Run after this job (repeatable): JOB or JOB:ok when it succeeded, JOB:any when it ended, JOB:failed when it ' +
      'ended without success.',
    multiple: true,
    multipleNonGreedy: true,
  }),
  network: Flags.string({
    summary: "Network of the containers (default: the config's network, else bridge; TPU jobs: host).",
    options: ['bridge', 'host'],
  }),
};

/** `-f FILE` of `iris submit` and `iris run`: a pipeline file (docs/pipelines.md) instead of a command. */
export function pipelineFileFlag(summary: string) {
  return Flags.string({ char: 'f', summary });
}

/** The usage lines of `iris submit` and `iris run`: a command after `--`, or `-f` and the flags it allows. */
export function submitUsage(fileFlags: string): string[] {
  return ['<%= command.id %> [FLAGS] -- COMMAND [ARGS…]', `<%= command.id %> -f PIPELINE.yaml ${fileFlags}`];
}

export interface SubmitFlagValues {
  name?: string;
  replicas?: number;
  cpu?: string;
  memory?: string;
  gpu?: string;
  'gpu-memory'?: string;
  category?: string;
  priority?: string;
  queue?: string;
  uses?: string[];
  'merge-key'?: string;
  tpu?: string;
  env?: string[];
  'env-file'?: string[];
  export?: string;
  workspace?: boolean;
  mount?: string[];
  constraint?: string[];
  coschedule?: string;
  'max-retries'?: number;
  'retry-backoff'?: string;
  'retry-backoff-max'?: string;
  'max-task-failures'?: number;
  'max-preemptions'?: number;
  'time-limit'?: string;
  'scheduling-timeout'?: string;
  user?: string;
  cwd?: string;
  image?: string;
  runtime?: string;
  'user-in-container'?: string;
  network?: string;
  after?: string[];
}

/**
 * The command to run: everything after the first `--` in the raw argv, or the parsed leftover
 * arguments when no `--` was given. An unknown flag before the command is a usage error.
 */
export function commandFromArgv(rawArgv: readonly string[], parsedArgv: readonly string[]): string[] {
  const dashdash = rawArgv.indexOf('--');
  const command = dashdash >= 0 ? rawArgv.slice(dashdash + 1) : [...parsedArgv];
  if (dashdash >= 0) {
    // Parsed leftovers that are not part of the command came before "--": stray words or unknown flags.
    const rest = [...parsedArgv];
    for (const arg of command) {
      const at = rest.indexOf(arg);
      if (at >= 0) rest.splice(at, 1);
    }
    const stray = rest.find((arg) => arg !== '--');
    if (stray !== undefined) {
      const what = stray.startsWith('-')
        ? `unknown flag ${describeValue(stray)}`
        : `unexpected argument ${describeValue(stray)} before "--"`;
      throw invalid(what, 'put flags before "--" and the command after it: iris submit --cpu 1 -- python train.py');
    }
  } else if (command.length > 0 && command[0]!.startsWith('-')) {
    throw invalid(`unknown flag ${describeValue(command[0])}`, 'see the flags with --help; put the command after "--"');
  }
  if (command.length === 0) {
    throw invalid('no command given', 'put the command after "--": iris submit --cpu 1 -- python train.py');
  }
  return command;
}

/**
 * The flags copied into the request as typed, each with its request field: the one table behind
 * buildSubmitRequest (flag -> field) and withFlagNames (field -> flag).
 */
const COPIED = {
  image: 'image',
  runtime: 'runtime',
  name: 'name',
  replicas: 'replicas',
  cpu: 'cpu',
  memory: 'memory',
  gpu: 'gpu',
  'gpu-memory': 'gpuMemory',
  category: 'category',
  priority: 'priority',
  'merge-key': 'mergeKey',
  queue: 'queue',
  tpu: 'tpu',
  coschedule: 'coschedule',
  'max-retries': 'maxRetries',
  'retry-backoff': 'retryBackoff',
  'retry-backoff-max': 'retryBackoffMax',
  'max-task-failures': 'maxTaskFailures',
  'max-preemptions': 'maxPreemptions',
  'time-limit': 'timeLimit',
  'scheduling-timeout': 'schedulingTimeout',
  user: 'user',
  'user-in-container': 'userInContainer',
  network: 'network',
} as const satisfies Partial<Record<keyof SubmitFlagValues, keyof SubmitRequest>>;

/**
 * The request of `iris submit`/`run`. `defaults.cwd`: the current directory (sent as `workspace`);
 * `defaults.env`: the submitter's environment (for `-e KEY`, `--env-file` and `--export`).
 */
export function buildSubmitRequest(
  flags: SubmitFlagValues,
  command: string[],
  defaults: { cwd: string; env?: NodeJS.ProcessEnv },
): SubmitRequest {
  const request: SubmitRequest = { command, workspace: defaults.cwd };
  if (flags.cwd !== undefined) request.cwd = flags.cwd;
  if (flags.workspace !== undefined) request.mountWorkspace = flags.workspace;
  if (flags.mount && flags.mount.length > 0) request.mounts = [...flags.mount];
  const fields = request as unknown as Record<string, unknown>;
  for (const [flag, field] of Object.entries(COPIED)) {
    const value = flags[flag as keyof typeof COPIED];
    if (value !== undefined) fields[field] = value;
  }
  const env = submitEnv(flags, defaults.env ?? {});
  if (env) request.env = env;
  if (flags.constraint && flags.constraint.length > 0) request.constraints = [...flags.constraint];
  if (flags.after && flags.after.length > 0) request.after = [...flags.after];
  if (flags.uses && flags.uses.length > 0) request.uses = [...flags.uses];
  return request;
}

/** The flag behind each field of a submit request, so an error about a field names what the user typed. */
const FLAG_OF_FIELD: Record<string, string> = {
  ...Object.fromEntries(Object.entries(COPIED).map(([flag, field]) => [field, `--${flag}`])),
  timeout: '--time-limit',
  env: '--env',
  constraints: '--constraint',
  after: '--after',
  uses: '--uses',
  cwd: '--cwd',
  mounts: '--mount',
  mountWorkspace: '--workspace',
};

/**
 * How the CLI names a request field (a key path, IrisError.field): `cpu` is `--cpu`,
 * `constraints[1]` `--constraint`, `env.LR` `--env LR`, `command[2]` `the command's element 2`
 * (0 is the program). Null for a path that is no flag's (a pipeline stage's `stages.train.cpu`).
 */
export function flagOfField(field: string): string | null {
  const path = /^([A-Za-z]+)(.*)$/.exec(field);
  if (!path) return null;
  const [, root, rest] = path as unknown as [string, string, string];
  if (root === 'command') {
    const element = /^\[(\d+)\]$/.exec(rest);
    return element ? `the command's element ${element[1]}` : 'the command';
  }
  const flag = Object.hasOwn(FLAG_OF_FIELD, root) ? FLAG_OF_FIELD[root]! : null;
  if (flag === null) return null;
  if (root === 'env') {
    const key = /^\.(\w+)$/.exec(rest);
    return key ? `${flag} ${key[1]}` : flag;
  }
  return rest === '' || /^\[\d+\]$/.test(rest) ? flag : null;
}

/** The request of a `submit`/`run` command line: its flags and the command after `--` (commandFromArgv). */
export function requestFromCommandLine(
  flags: object,
  rawArgv: readonly string[],
  argv: readonly unknown[],
  defaults: { cwd: string; env?: NodeJS.ProcessEnv },
): SubmitRequest {
  return buildSubmitRequest(flags as SubmitFlagValues, commandFromArgv(rawArgv, argv as readonly string[]), defaults);
}

/**
 * The pipeline of `-f FILE` (ui/pipeline-file.ts: `--name` and words after `--` apply, every other
 * submit flag is refused). Loaded only with -f: the YAML reader and the pipeline schema cost every other start.
 */
export async function pipelineFromCommandLine(
  file: string,
  flags: Record<string, unknown>,
  argv: readonly unknown[],
  cwd: string,
): Promise<PipelineRequest> {
  const { pipelineFromFlags } = await import('./pipeline-file.js');
  return pipelineFromFlags(file, flags, Object.keys(submitFlags), argv as readonly string[], cwd);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A refusal of the value of a value flag, worded after what the user typed: `--cpu "abc": not a
 * number of cores` (from `invalid cpu "abc": expected a positive decimal number …`), `--replicas
 * 100000: must be between 1 and 10000` (from `replicas must be between 1 and 10000, got 100000`).
 * Null when the refusal is not about the value as typed (the flag is then put in front as it is).
 */
export function valueRefusal(
  field: string,
  message: string,
  hint: string | undefined,
  value: unknown,
): { message: string; hint: string } | null {
  const flag = FLAG_OF_FIELD[field];
  const help = flag === undefined ? undefined : FLAG_VALUES[flag];
  if (!help || !flag || (typeof value !== 'string' && typeof value !== 'number')) return null;
  const quoted = typeof value === 'number' ? String(value) : describeValue(value);
  const shown = typedValue(value);
  const reason = new RegExp(
    `^(?:${escapeRegExp(field)}(?::\\s*|\\s+))?(?:(invalid|unknown) ([\\w -]+?) ${escapeRegExp(quoted)}(?::\\s*|$))?` +
      `(.*?)(?:, got ${escapeRegExp(describeValue(value, 'body'))})?$`,
    's',
  ).exec(message);
  if (!reason || reason[0] === reason[3]) return null;
  const rest = reason[3]!.trim();
  const problem =
    rest === '' && reason[1] === 'unknown'
      ? `unknown ${reason[2]}`
      : rest === '' || rest.startsWith('expected ')
        ? `not ${help.what}`
        : rest;
  const example = exampleHint(flag, '');
  const own = hint !== undefined && (problem === rest || reason[1] === 'unknown');
  return { message: `${flag} ${shown}: ${problem}`, hint: own ? hint : example };
}

/**
 * Runs a call that sends a request built by buildSubmitRequest. An error the cluster gives about
 * one of its fields (its `field`: `timeLimit: invalid duration "5x"`, `cpu must be …`) comes back
 * naming the flag instead: with `request`, a value flag's refusal names the value as typed
 * (valueRefusal: `--time-limit "5x": not a duration`); otherwise the flag replaces the field
 * (`--cpu must be …`), or goes in front of a message that names the value its own way
 * (`--user: invalid user name "a/b"`). Any other error is passed on as it is.
 */
export async function withFlagNames<T>(call: () => Promise<T>, request?: SubmitRequest): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof IrisError) || error.field === undefined) throw error;
    const flag = flagOfField(error.field);
    if (flag === null) throw error;
    const { field, message } = error;
    const typed =
      request && error.code === 'invalid_argument' ? (request as Record<string, unknown>)[field] : undefined;
    const refusal = typed === undefined ? null : valueRefusal(field, message, error.hint, typed);
    if (refusal) throw new IrisError(error.code, refusal.message, refusal.hint, field);
    const leads = message.startsWith(field) && !/^[\w.[]/.test(message.slice(field.length));
    throw new IrisError(
      error.code,
      leads ? `${flag}${message.slice(field.length)}` : `${flag}: ${message}`,
      error.hint,
      field,
    );
  }
}

/**
 * Runs a call that sends the pipeline of `file` (`-f`). A refusal about the file's content (a
 * stage's field, `stages.train.memory: …`; the pipeline's name) comes back naming the file in
 * front, as the CLI's own checks of it do (`pipeline.yaml: stages.train.memory: …`).
 */
export async function withPipelineFile<T>(file: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof IrisError) || !/^(stages|name)\b/.test(error.field ?? error.message)) throw error;
    throw new IrisError(error.code, `${file}: ${error.message}`, error.hint, error.field);
  }
}
