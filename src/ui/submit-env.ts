/**
 * The submitter's environment in a job (docs/cli.md, "Environment of the tasks"): `--export`,
 * then each `--env-file` in order, then each `-e` in order, a later one winning.
 *
 * - `--export NONE` (the default) copies nothing of the submitter's environment; `--export ALL`
 *   copies every variable except the host's own (HOST_ONLY: PATH, HOME, USER, SHELL, locale,
 *   XDG_*, SSH_*, … and iris's IRIS_*), so a container never gets the host's PATH or HOME by
 *   default or by ALL; `--export A,B` copies exactly those (set, else refused), PATH included if
 *   named.
 * - `-e KEY=VALUE` sets a value; `-e KEY` copies the submitter's value (refused when unset).
 * - `--env-file FILE`, the format of `docker run --env-file`: one `KEY=VALUE` per line, the value
 *   taken literally up to the end of the line (quotes included), `KEY` alone copying the
 *   submitter's value (left out when unset, as docker does), blank lines and lines starting with
 *   `#` skipped, leading blanks ignored. An error names the file and the line; a file larger than
 *   MAX_ENV_FILE_BYTES or not UTF-8 is refused.
 * The names follow the request's rule (model/names.ts ENV_KEY, not IRIS_*), checked here so the
 * message can say where a name came from.
 */
import { readFileSync, statSync } from 'node:fs';
import { IrisError, describeValue, invalid } from '../model/errors.js';
import { ENV_KEY, ENV_KEY_RULE } from '../model/names.js';

/** The largest --env-file read. */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** The host's own variables, never copied by `--export ALL`. */
const HOST_ONLY = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'PWD',
  'OLDPWD',
  'SHLVL',
  'HOSTNAME',
  'MAIL',
  'TERM',
  'COLORTERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  '_',
  'LANG',
  'LANGUAGE',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
  'DOCKER_HOST',
  'KUBECONFIG',
  'NODE_OPTIONS',
  'MOTD_SHOWN',
  'INVOCATION_ID',
  'JOURNAL_STREAM',
]);
const HOST_ONLY_PREFIXES = ['IRIS_', 'XDG_', 'SSH_', 'LC_', 'LD_', 'TERM_', 'npm_', 'GPG_', 'SUDO_'];

/** Would `--export ALL` copy the variable `name`? */
export function exportable(name: string): boolean {
  return ENV_KEY.test(name) && !HOST_ONLY.has(name) && !HOST_ONLY_PREFIXES.some((prefix) => name.startsWith(prefix));
}

function nameProblem(name: string): string | null {
  if (!ENV_KEY.test(name)) return `invalid variable name ${describeValue(name)}: it ${ENV_KEY_RULE}`;
  if (name.toUpperCase().startsWith('IRIS_'))
    return `${name}: IRIS_ variables are reserved (iris sets them for every task)`;
  return null;
}

/** What `--export MODE` copies from `host`. */
export function exportedEnv(mode: string | undefined, host: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  const value = mode?.trim() ?? 'NONE';
  if (value.toUpperCase() === 'NONE') return out;
  if (value.toUpperCase() === 'ALL') {
    for (const [name, v] of Object.entries(host)) if (v !== undefined && exportable(name)) out[name] = v;
    return out;
  }
  for (const name of value.split(',').map((part) => part.trim())) {
    const problem = name === '' ? 'an empty name' : nameProblem(name);
    if (problem) {
      throw invalid(
        `--export ${describeValue(value)}: ${problem}`,
        'give ALL, NONE or a list of names such as --export HF_TOKEN,WANDB_API_KEY',
      );
    }
    const v = host[name];
    if (v === undefined)
      throw invalid(
        `--export ${name}: it is not set in your environment`,
        `set it first (export ${name}=…), or leave it out of --export`,
      );
    out[name] = v;
  }
  return out;
}

/** `-e KEY=VALUE` and `-e KEY` (the submitter's value) -> object. The value may contain `=` and may be empty. */
export function parseEnvPairs(pairs: readonly string[], host: NodeJS.ProcessEnv = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const cut = pair.indexOf('=');
    const key = cut < 0 ? pair : pair.slice(0, cut);
    if (!ENV_KEY.test(key)) {
      throw invalid(
        `invalid --env ${describeValue(pair)}: the variable name ${describeValue(key)} ${ENV_KEY_RULE}`,
        'for example: -e LR=0.01 -e DATA_DIR=/data, or -e HF_TOKEN to copy your own value',
      );
    }
    if (cut >= 0) {
      env[key] = pair.slice(cut + 1);
      continue;
    }
    const value = host[key];
    if (value === undefined) {
      throw invalid(
        `--env ${key}: it is not set in your environment, so there is no value to copy`,
        `set it first (export ${key}=…), or give -e ${key}=VALUE`,
      );
    }
    env[key] = value;
  }
  return env;
}

/** The variables of an env file's text (docker's format); `file` names it in errors. */
export function parseEnvFile(text: string, file: string, host: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '').replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) return;
    const cut = line.indexOf('=');
    const name = cut < 0 ? line : line.slice(0, cut);
    const problem = /\s/.test(name) ? `variable ${describeValue(name)} contains blanks` : nameProblem(name);
    if (problem) {
      throw new IrisError(
        'invalid_argument',
        `--env-file ${file}:${i + 1}: ${problem}`,
        'each line is KEY=VALUE, KEY (copied from your environment) or a # comment',
      );
    }
    if (cut >= 0) env[name] = line.slice(cut + 1);
    else if (host[name] !== undefined) env[name] = host[name]!;
  });
  return env;
}

/** Reads an env file (at most MAX_ENV_FILE_BYTES, UTF-8); errors name the file. */
export function readEnvFile(file: string, host: NodeJS.ProcessEnv): Record<string, string> {
  let data: Buffer;
  try {
    const st = statSync(file);
    if (!st.isFile())
      throw new IrisError(
        'invalid_argument',
        `--env-file ${file}: not a regular file`,
        'give a file of KEY=VALUE lines',
      );
    if (st.size > MAX_ENV_FILE_BYTES) {
      throw new IrisError(
        'invalid_argument',
        `--env-file ${file}: ${st.size} bytes, more than the ${MAX_ENV_FILE_BYTES} an env file may have`,
        'keep only the variables the job needs',
      );
    }
    data = readFileSync(file);
  } catch (error) {
    if (error instanceof IrisError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new IrisError(
      'invalid_argument',
      `--env-file ${file}: cannot read it (${code ?? (error as Error).message})`,
      code === 'ENOENT' ? 'check the path (relative to the current directory)' : 'check its permissions',
    );
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(data);
  const bad = text.indexOf('\uFFFD');
  if (bad >= 0 && !data.includes(Buffer.from('\uFFFD'))) {
    const line = text.slice(0, bad).split('\n').length;
    throw new IrisError('invalid_argument', `--env-file ${file}:${line}: not UTF-8 text`, 'save the file as UTF-8');
  }
  return parseEnvFile(text, file, host);
}

/** The request's env: `--export`, then the env files, then `-e`; undefined when empty. */
export function submitEnv(
  flags: { env?: readonly string[]; 'env-file'?: readonly string[]; export?: string },
  host: NodeJS.ProcessEnv,
  readFile: (file: string, host: NodeJS.ProcessEnv) => Record<string, string> = readEnvFile,
): Record<string, string> | undefined {
  const env: Record<string, string> = { ...exportedEnv(flags.export, host) };
  for (const file of flags['env-file'] ?? []) Object.assign(env, readFile(file, host));
  Object.assign(env, parseEnvPairs(flags.env ?? [], host));
  return Object.keys(env).length > 0 ? env : undefined;
}
