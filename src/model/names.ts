/**
 * Job and task names. A job name is an absolute path of components (`/train/eval`); its depth
 * is the number of components. A task name is its job's name plus `task-<i>`. The component
 * form `task-<n>` is reserved for tasks, so a job component may never take it.
 *
 * Runs: every submission of a name is a run with its own id (Job.run). `NAME@RUN` selects one
 * run of a name (`/train@3`, also `/train@3/task-0` for one of its tasks); `@` can never be part
 * of a job name, so the split is unambiguous. parseJobRef is the one parser of that form.
 *
 * The one home of each kind of name, with the words every refusal of it uses (a caller adds what
 * the name is for: `invalid worker name "a b": it may only contain …`):
 * - a name component (NAME_COMPONENT, NAME_COMPONENT_RULE): a job name's components, the
 *   config's worker, slice and variant names (also a GPU variant, src/model/resources.ts), a
 *   workload file's job, worker and model names, the characters of a result key
 *   (src/model/results.ts, stage-refs.ts); a stage name is one without `.` (STAGE_NAME_CHARS);
 * - an attribute key (ATTRIBUTE_KEY, ATTRIBUTE_KEY_RULE): worker attributes, constraint keys,
 *   `coschedule`;
 * - an environment variable name (ENV_KEY, ENV_KEY_RULE): `env` of a request, `--env`;
 * - a host name (isHostName, RFC 1123): the config's `hostname(s)`, the host of an address
 *   (src/model/net-address.ts, which adds IP addresses and the words of its refusal);
 * - a user name (USER_NAME, USER_NAME_HINT) below.
 */
import { IrisError, describeValue, invalid, relabel } from './errors.js';

/** One component of a name: letters, digits, `_`, `-` and `.`, starting with a letter or digit. */
export const NAME_COMPONENT_CHARS = '[A-Za-z0-9][A-Za-z0-9_.-]*';
export const NAME_COMPONENT = new RegExp(`^${NAME_COMPONENT_CHARS}$`);
export const NAME_COMPONENT_RULE =
  'may only contain letters, digits, "_", "-" and "." and must start with a letter or digit';
const TASK_COMPONENT = /^task-(\d+)$/;
export const MAX_COMPONENT_LENGTH = 63;
export const MAX_DEPTH = 16;

/** Whether `text` is a name of one component (NAME_COMPONENT) of at most `max` characters. */
export function isComponentName(text: string, max = MAX_COMPONENT_LENGTH): boolean {
  return text.length <= max && NAME_COMPONENT.test(text);
}

/** The rule of isComponentName as a refusal states it: `a name may only contain … (at most 63 characters)`. */
export function componentNameRule(max = MAX_COMPONENT_LENGTH): string {
  return `a name ${NAME_COMPONENT_RULE} and is at most ${max} characters long`;
}

/** A pipeline's stage name: a name component without `.` (src/model/pipeline.ts, stage-refs.ts). */
export const STAGE_NAME_CHARS = '[A-Za-z0-9][A-Za-z0-9_-]*';

/** The characters of an attribute key, for patterns that contain one (constraints). */
export const ATTRIBUTE_KEY_CHARS = '[A-Za-z0-9][A-Za-z0-9_./-]*';
/** A worker attribute's key: a name component that may also contain `/` (`example.com/zone`). */
export const ATTRIBUTE_KEY = new RegExp(`^${ATTRIBUTE_KEY_CHARS}$`);
export const ATTRIBUTE_KEY_RULE =
  'may only contain letters, digits, "_", "-", "." and "/" and must start with a letter or digit';

/** An environment variable's name, as POSIX shells take one. */
export const ENV_KEY_CHARS = '[A-Za-z_][A-Za-z0-9_]*';
export const ENV_KEY = new RegExp(`^${ENV_KEY_CHARS}$`);
export const ENV_KEY_RULE = 'may only contain letters, digits and "_" and must not start with a digit';

/** One label of a host name (RFC 1123): 1-63 letters, digits and `-`, not starting or ending with `-`. */
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})*\\.?$`);

/**
 * Whether `text` is a host name (RFC 1123): labels joined by `.`, a final `.` allowed, at most 253
 * characters without it. An IPv4 address is one; `_` is not allowed (a DNS name, not a host name).
 */
export function isHostName(text: string): boolean {
  return HOST_NAME.test(text) && text.replace(/\.$/, '').length <= 253;
}

/** Why a single path component is not a valid job component, or null when it is valid. */
export function componentProblem(part: string): string | null {
  if (part.length === 0) return 'a name component may not be empty (check for "//" or a trailing "/")';
  if (part === '.' || part === '..') return `${describeValue(part)} is not allowed as a name component`;
  if (part.length > MAX_COMPONENT_LENGTH)
    return `name component ${describeValue(part)} is longer than ${MAX_COMPONENT_LENGTH} characters`;
  if (TASK_COMPONENT.test(part)) return `${describeValue(part)} is reserved for task names (task-<n>)`;
  if (part.includes('@'))
    return (
      `"@" is not allowed in a job name: it separates a run id (NAME@RUN), which only \`iris status\`, \`iris ` +
      `logs\` and \`iris history\` read`
    );
  if (!NAME_COMPONENT.test(part)) return `name component ${describeValue(part)} ${NAME_COMPONENT_RULE}`;
  return null;
}

/** Parse a user-given job name (leading slash optional) into its canonical `/a/b` form. */
export function parseJobName(input: string): string {
  const raw = input.trim();
  if (raw === '' || raw === '/') throw invalid('job name is empty');
  const parts = (raw.startsWith('/') ? raw.slice(1) : raw).split('/');
  if (parts.length > MAX_DEPTH) throw invalid(`job name ${describeValue(raw)} is deeper than ${MAX_DEPTH} levels`);
  for (const part of parts) {
    const problem = componentProblem(part);
    if (problem) throw invalid(`invalid job name ${describeValue(raw)}: ${problem}`);
  }
  return '/' + parts.join('/');
}

/** Number of components of a canonical job name: `/a` is 1, `/a/b` is 2. */
export function jobDepth(name: string): number {
  let depth = 0;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) === 47) depth++;
  return depth;
}

/** Parent job of a canonical job name, or null for a root job. */
export function parentJob(name: string): string | null {
  const cut = name.lastIndexOf('/');
  return cut <= 0 ? null : name.slice(0, cut);
}

/**
 * A name as a task means it: relative names (`eval`) are children of the task's own job
 * (`/train/eval`); absolute names and names given outside a task are left as they are. Not yet
 * canonical: parse the result with parseJobName.
 */
export function nameFromTask(name: string, callerJob: string | null): string {
  const trimmed = name.trim();
  return callerJob !== null && !trimmed.startsWith('/') ? `${callerJob}/${trimmed}` : trimmed;
}

/** True when `name` equals `ancestor` or lies below it. */
export function isWithin(name: string, ancestor: string): boolean {
  return name === ancestor || name.startsWith(ancestor + '/');
}

const ENDPOINT_COMPONENT = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/**
 * The full name of an endpoint a task of `job` registers: endpoints live under their job's
 * path, so `coordinator` from a task of `/train` is `/train/coordinator`. An absolute name is
 * accepted only below the task's own job (`/train/coordinator` again); one under any other
 * prefix (`/victim/ps`, or `/train/x` from a task of `/train/eval`) is refused as forbidden, and
 * a component that is empty, `.` or `..` (`../victim`) as invalid.
 */
export function endpointName(name: string, job: string): string {
  const raw = name.trim();
  const hint = `endpoints of a task of ${job} live under ${job}/: register a relative name such as "coordinator"`;
  let relative = raw;
  if (raw.startsWith('/')) {
    if (!raw.startsWith(job + '/')) {
      throw new IrisError(
        'forbidden',
        `endpoint name ${describeValue(raw)} is outside the registering job ${job}`,
        hint,
      );
    }
    relative = raw.slice(job.length + 1);
  }
  for (const part of relative.split('/')) {
    if (!ENDPOINT_COMPONENT.test(part)) {
      throw invalid(
        `invalid endpoint name ${describeValue(raw)}: each "/"-separated part must start with a letter or digit and ` +
          `contain only letters, digits and _ . : - (no empty, "." or ".." parts)`,
        hint,
      );
    }
  }
  return `${job}/${relative}`;
}

/**
 * A user name (`--user`, a request's `user`, the keys of the config's `quotas`): the POSIX
 * portable user names — letters, digits, `_`, `.` and `-`, not starting with `-` or `.` — plus
 * `@` for a directory's `user@realm`, at most 64 characters. No `/`, space or control character.
 */
export const USER_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}$/;
export const USER_NAME_HINT =
  'a user name is 1-64 letters, digits, "_", ".", "-" and "@", starting with a letter, a digit or "_"';

/** `input` unchanged when it is a user name (USER_NAME); else invalid_argument. */
export function parseUserName(input: string): string {
  if (!USER_NAME.test(input)) throw invalid(`invalid user name ${describeValue(input)}`, USER_NAME_HINT);
  return input;
}

/** A job or task as a user names it, with the run it selects (null: the name's latest run). */
export interface JobRef {
  /** Canonical job name. */
  job: string;
  run: number | null;
  /** Task index when a task (`/train@3/task-0`) was named, else null. */
  task: number | null;
}

const RUN_SUFFIX = /^(\d+)(?:\/(task-\d+))?$/;

/**
 * Parse `NAME`, `NAME/task-N`, `NAME@RUN` or `NAME@RUN/task-N` (leading slash optional). RUN is
 * a run id (a positive decimal integer, as `iris history` lists them).
 */
export function parseJobRef(input: string): JobRef {
  const raw = input.trim();
  const at = raw.indexOf('@');
  if (at < 0) {
    const task = parseTaskName(raw);
    return task ? { job: task.job, run: null, task: task.index } : { job: parseJobName(raw), run: null, task: null };
  }
  const match = RUN_SUFFIX.exec(raw.slice(at + 1));
  const run = match ? Number(match[1]) : NaN;
  if (!match || !Number.isSafeInteger(run) || run < 1) {
    throw invalid(
      `invalid run reference ${describeValue(raw)}: expected NAME@RUN or NAME@RUN/task-N with RUN a positive integer`,
      'list the runs of a name with `iris history NAME`; e.g. `iris status train@3`',
    );
  }
  const job = parseJobName(raw.slice(0, at));
  return { job, run, task: match[2] === undefined ? null : Number(match[2].slice('task-'.length)) };
}

/**
 * A job or task reference with an optional run: `train@3`, `train@3/task-0` (parseJobRef), or the
 * run given on its own (`--run`, a `run` parameter). Both at once must agree. `field` names the
 * value in errors.
 */
export function resolveJobRef(
  field: string,
  value: string,
  run: number | null | undefined,
): { name: string; run: number | null; target: string } {
  const ref = relabel(field, () => parseJobRef(value));
  if (ref.run !== null && run !== undefined && run !== null && ref.run !== run) {
    throw invalid(`${field} names run ${ref.run} but "run" is ${run}`, 'give the run once: NAME@RUN or --run RUN');
  }
  return {
    name: ref.job,
    run: ref.run ?? run ?? null,
    target: ref.task === null ? ref.job : taskName(ref.job, ref.task),
  };
}

/** `/train@3`: the one way to write a run of a name. */
export function runRef(job: string, run: number): string {
  return `${job}@${run}`;
}

export function taskName(job: string, index: number): string {
  return `${job}/task-${index}`;
}

/** Split `/train/task-3` into its job and index; null when the last component is not a task. */
export function parseTaskName(input: string): { job: string; index: number } | null {
  const raw = input.trim();
  const name = raw.startsWith('/') ? raw : '/' + raw;
  const cut = name.lastIndexOf('/');
  const match = TASK_COMPONENT.exec(name.slice(cut + 1));
  if (!match || cut <= 0) return null;
  return { job: parseJobName(name.slice(0, cut)), index: Number(match[1]) };
}

const ADJECTIVES = [
  'amber',
  'brisk',
  'calm',
  'deft',
  'eager',
  'fleet',
  'gentle',
  'hardy',
  'keen',
  'lucid',
  'mellow',
  'nimble',
  'quiet',
  'rapid',
  'steady',
  'tidy',
  'vivid',
  'witty',
];
const NOUNS = [
  'falcon',
  'otter',
  'heron',
  'lynx',
  'marten',
  'osprey',
  'panda',
  'quokka',
  'raven',
  'stoat',
  'tapir',
  'walrus',
  'yak',
  'zebra',
  'badger',
  'condor',
  'ibis',
  'koala',
];

/** A readable unique-looking name such as `brisk-otter-4821`; uniqueness is checked by the store. */
export function generateName(random: () => number = Math.random): string {
  const pick = (list: string[]) => list[Math.floor(random() * list.length)]!;
  return `${pick(ADJECTIVES)}-${pick(NOUNS)}-${Math.floor(random() * 9000 + 1000)}`;
}
