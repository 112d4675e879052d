/**
 * The attempt wrapper: a `/bin/sh` that leads the attempt's process group and outlives the task,
 * so that what the task leaves behind does not depend on the controller being alive.
 *
 * Guarantees of the wrapper (WRAPPER_SCRIPT):
 * - it joins the attempt's cgroups (the one that stops it and the accounting ones, usage.ts)
 *   before the task starts, so every descendant of the task is born inside them;
 * - it runs the task as its child with exactly the launch's environment (`PWD` is removed
 *   unless the launch sets it) and its own stdout/stderr, which are the attempt's spool files;
 * - SIGTERM/SIGINT/SIGHUP/SIGQUIT do not end the wrapper while the task runs (the task gets them
 *   with default dispositions); once the task has exited, the wrapper writes its `times` to the
 *   usage file when it was given one, then `exit <code>\n`
 *   to the attempt's status file and exits with the same code. A task killed by signal N reads
 *   as exit code 128+N (as in a container), not as a signal.
 * - a status file is valid only when it holds one complete `exit <n>` line: a wrapper killed
 *   while writing it leaves an invalid one, read as "unknown".
 *
 * The wrapper runs the command by its resolved path (resolveCommand), so a name that is also a
 * shell builtin (`echo`, `printf`, `test`) runs the program, exactly as without a wrapper.
 * A found path is remembered for RESOLVE_TTL_MS (CommandCache): a burst of launches of one
 * command searches PATH once; a command removed within that second fails in the wrapper (exit
 * 127) instead of at launch.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { myUid, readTaskFile } from '../task-file.js';

/**
 * The attempt's runtime files. With a spool directory (the cluster's `IRIS_HOME/spool/`, shared by
 * every attempt) they are named there after a hash of the attempt's log path, so an attempt makes
 * no directory of its own; without one (a runtime used on its own) they lie in `<log dir>/.run/`,
 * named after the log file.
 */
export interface AttemptFiles {
  dir: string;
  /** The task's raw stdout and stderr (the controller ingests them into the log). */
  out: string;
  err: string;
  /** Offsets of out/err already in the log (spool.ts). */
  pos: string;
  /** `exit <code>` once the task has ended (written by the wrapper). */
  status: string;
  /** The wrapper's `times` after the task ended, when no cgroup counts its CPU (usage.ts). */
  usage: string;
}

export function attemptFiles(logPath: string, spoolDir: string | null = null): AttemptFiles {
  const dir = spoolDir ?? join(dirname(logPath), '.run');
  const name =
    spoolDir === null
      ? basename(logPath).replace(/\.log$/, '')
      : createHash('sha256').update(logPath).digest('base64url').slice(0, 32);
  const at = (ext: string): string => join(dir, `${name}.${ext}`);
  return { dir, out: at('out'), err: at('err'), pos: at('pos'), status: at('exit'), usage: at('times') };
}

export const WRAPPER_SH = '/bin/sh';
export const WRAPPER_NAME = 'iris-task';

/**
 * Positional parameters: $1 status file, $2 usage file or '-', $3 PWD value or '-', $4 the
 * number N of cgroup.procs files to join, then those N files, then the task's argv.
 */
export const WRAPPER_SCRIPT = [
  'trap : HUP INT QUIT TERM',
  's=$1 u=$2 p=$3 n=$4',
  'shift 4',
  'while [ "$n" -gt 0 ]; do { echo $$ >"$1"; } 2>/dev/null; shift; n=$((n-1)); done',
  'if [ "$p" = - ]; then unset PWD; else PWD=$p; export PWD; fi',
  '"$@"',
  'c=$?',
  '[ "$u" = - ] || { times >"$u"; } 2>/dev/null',
  'echo "exit $c" >"$s"',
  'exit $c',
].join('\n');

/**
 * The argv that runs `command` (already resolved) under the wrapper, joining `procsFiles`;
 * `usageFile` (when not null) receives the wrapper's `times` once the task has exited.
 */
export function wrapperArgs(
  procsFiles: readonly string[],
  files: AttemptFiles,
  env: Record<string, string>,
  command: string,
  args: readonly string[],
  usageFile: string | null = null,
): string[] {
  return [
    '-c',
    WRAPPER_SCRIPT,
    WRAPPER_NAME,
    files.status,
    usageFile ?? '-',
    env.PWD ?? '-',
    String(procsFiles.length),
    ...procsFiles,
    command,
    ...args,
  ];
}

/** The exit code in a status file, or null when there is none or it is incomplete. */
export function readStatus(path: string): number | null {
  // In the attempt's `.run/` directory, which the task's uid can write: read safely (task-file.ts).
  const read = readTaskFile(path, { maxBytes: 64, owner: myUid() });
  if (read.kind !== 'ok') return null;
  const text = read.data.toString('utf8');
  const m = /^exit (\d{1,3})\n$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** Why a command cannot be run: the errno that spawn would have reported. */
export class CommandError extends Error {
  constructor(readonly code: 'ENOENT' | 'EACCES') {
    super(code);
  }
}

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

function executable(path: string): 'ok' | 'EACCES' | 'ENOENT' {
  try {
    accessSync(path, constants.X_OK);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES' ? 'EACCES' : 'ENOENT';
  }
  try {
    return statSync(path).isDirectory() ? 'EACCES' : 'ok';
  } catch {
    return 'ENOENT';
  }
}

/**
 * Finds `file` as execvp would (a name with a slash is taken as a path from `cwd`; otherwise
 * each PATH entry is tried) and returns the path to run. Throws CommandError like spawn would.
 */
export function resolveCommand(file: string, env: Record<string, string>, cwd: string): string {
  if (file.includes('/')) {
    const full = resolve(cwd, file);
    const state = executable(full);
    if (state !== 'ok') throw new CommandError(state);
    return file;
  }
  let denied = false;
  for (const entry of (env.PATH ?? DEFAULT_PATH).split(':')) {
    const candidate = join(entry === '' ? cwd : resolve(cwd, entry), file);
    const state = executable(candidate);
    if (state === 'ok') return candidate;
    if (state === 'EACCES') denied = true;
  }
  throw new CommandError(denied ? 'EACCES' : 'ENOENT');
}

/** How long a resolved command path is reused (CommandCache). */
export const RESOLVE_TTL_MS = 1000;

/** resolveCommand with its found paths remembered for `ttlMs` (failures are never remembered). */
export class CommandCache {
  private readonly found = new Map<string, { path: string; at: number }>();

  constructor(
    private readonly ttlMs = RESOLVE_TTL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  resolve(file: string, env: Record<string, string>, cwd: string): string {
    const key = `${file}\0${cwd}\0${env.PATH ?? ''}`;
    const t = this.now();
    const hit = this.found.get(key);
    if (hit && t - hit.at < this.ttlMs) return hit.path;
    const path = resolveCommand(file, env, cwd);
    // Bounded: entries older than the TTL are dropped whenever the map grows large.
    if (this.found.size >= 1024) for (const [k, v] of this.found) if (t - v.at >= this.ttlMs) this.found.delete(k);
    this.found.set(key, { path, at: t });
    return path;
  }
}
