/**
 * Where iris looks for its config file, and which files it agrees to read (docs/configuration.md,
 * "Where iris looks"; docs/security.md, "Configuration only from files the owner controls"). A
 * config file decides what the cluster runs (a JS/TS config is code, run when the cluster starts;
 * a YAML one names commands, images and where task tokens go), so iris reads only files that no
 * other local user could have written. Guarantees:
 *
 * - the upward search starts at the working directory and goes up one parent at a time; it does
 *   not look in a directory writable by others (sticky or not, like `/tmp`) nor above one; it
 *   stops after the home directory (`stopDir`) and at `/`. Then the global config directory,
 *   unless it is writable by others. Each file found is judged before it is read: one of another
 *   user, or in a directory another user controls, is refused, not passed over;
 * - a file is read (or, for JS/TS, imported) only after `assertTrusted` passed: the file and every
 *   directory above it up to `/`, along the path as written and along its real path (symlinks
 *   resolved), pass the rule of src/model/path-trust.ts. Otherwise IrisError('invalid_argument')
 *   (exit 2) naming the file, the entry at fault and why, with the fix. The same for an explicit
 *   `--config` / `IRIS_CONFIG` file.
 *
 * Nothing else is read: cosmiconfig's own search (and its meta config, `.config/config.*` and
 * `package.json#cosmiconfig` in the process's working directory, which it reads and even imports
 * when an explorer is made) is not used.
 */
import { constants, type Stats } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { type IrisError, invalid } from '../model/errors.js';
import {
  chainProblem,
  describeProblem,
  searchStep,
  type EntryKind,
  type PathEntry,
  type TrustProblem,
} from '../model/path-trust.js';
import { GLOBAL_SEARCH_PLACES, MODULE_NAME, SEARCH_PLACES } from './defaults.js';

/** A directory the search looks in, and the file names it tries there in order. */
export interface SearchDir {
  path: string;
  places: readonly string[];
}

/** The effective uid whose files are trusted (besides root's); null where there are no POSIX owners. */
export function callerUid(): number | null {
  return process.geteuid?.() ?? null;
}

/**
 * `$XDG_CONFIG_HOME/iris` (an absolute XDG_CONFIG_HOME only), else `~/.config/iris`; macOS:
 * `~/Library/Preferences/iris`.
 */
export function globalConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Preferences', MODULE_NAME);
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), MODULE_NAME);
}

function kindOf(st: Stats): EntryKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  return st.isFile() ? 'file' : 'other';
}

/**
 * `at` as path-trust judges it. Write bits for the group or others are looked at twice: on a
 * read-only mount (access(W_OK) answers EROFS) nobody can use them.
 */
async function entryOf(at: string, st: Stats): Promise<PathEntry> {
  const entry: PathEntry = { path: at, kind: kindOf(st), uid: st.uid, mode: st.mode };
  if (entry.kind !== 'symlink' && (st.mode & 0o022) !== 0) {
    try {
      await access(at, constants.W_OK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EROFS') entry.readOnly = true;
    }
  }
  return entry;
}

/** `file` and each directory above it up to `/`, each looked at without following it. */
async function chainOf(file: string, shown: string): Promise<PathEntry[]> {
  const chain: PathEntry[] = [];
  for (let at = file; ; at = path.dirname(at)) {
    try {
      chain.push(await entryOf(at, await lstat(at)));
    } catch (error) {
      throw invalid(`refusing the config file ${shown}: cannot inspect ${at}: ${(error as Error).message}`);
    }
    if (at === path.dirname(at)) return chain;
  }
}

function refusal(shown: string, file: string, real: string, problem: TrustProblem, uid: number): IrisError {
  const what = describeProblem(problem, uid);
  const at = problem.path;
  const itself = at === file || at === real;
  const reason = itself
    ? `it is ${what}`
    : problem.kind === 'symlink'
      ? `the symbolic link ${at} on its path is ${what}`
      : `${at}, a directory above it, is ${what}`;
  let hint: string;
  if (problem.problem === 'owner' && itself) {
    hint =
      'iris reads only config files that you or root own, under directories only you or root can change (another ' +
      'user ' +
      `could have written it to run code as you): if you trust it, \`chown ${uid} ${at}\`; otherwise remove it, ` +
      'or name a file of your own with --config or IRIS_CONFIG';
  } else if (problem.problem === 'owner') {
    hint =
      `uid ${problem.uid} could replace what lies under ${at}: if you trust the file, copy it to a directory of ` +
      `your own ` +
      'and name it with --config or IRIS_CONFIG, or run iris elsewhere';
  } else if (problem.problem === 'not-a-file') {
    hint = 'name a regular file';
  } else {
    hint =
      `\`chmod go-w ${at}\` if only you should change it; otherwise move the config to a directory only you ` +
      `can change`;
  }
  return invalid(`refusing the config file ${shown}: ${reason}`, hint);
}

/**
 * Throws IrisError('invalid_argument') unless `file` (absolute, existing) and every directory
 * above it, as written and after resolving symlinks, pass src/model/path-trust.ts for `uid`.
 * `origin` is appended to the file's name in the message (` (from IRIS_CONFIG)`).
 */
export async function assertTrusted(file: string, uid: number | null, origin = ''): Promise<void> {
  if (uid === null) return;
  const shown = `${file}${origin}`;
  const problem = chainProblem(await chainOf(file, shown), uid);
  if (problem) throw refusal(shown, file, file, problem, uid);
  let real: string;
  try {
    real = await realpath(file);
  } catch (error) {
    throw invalid(`refusing the config file ${shown}: cannot resolve it: ${(error as Error).message}`);
  }
  if (real === file) return;
  const realProblem = chainProblem(await chainOf(real, shown), uid);
  if (realProblem) throw refusal(`${file} (${real})${origin}`, file, real, realProblem, uid);
}

async function statOrNull(at: string): Promise<Stats | null> {
  try {
    return await stat(at);
  } catch {
    return null;
  }
}

/**
 * The directories the search looks in, nearest first: from `cwd` up (see the header for where it
 * stops), then the global config directory `globalDir`.
 */
export async function* searchDirs(
  cwd: string,
  stopDir: string,
  globalDir: string,
  uid: number | null,
): AsyncGenerator<SearchDir> {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const st = await statOrNull(dir);
    if (!st?.isDirectory()) break;
    if (uid !== null && searchStep(await entryOf(dir, st)) === 'stop') break;
    yield { path: dir, places: SEARCH_PLACES };
    if (dir === stopDir || dir === path.dirname(dir)) break;
  }
  const st = await statOrNull(globalDir);
  if (st?.isDirectory() && (uid === null || searchStep(await entryOf(globalDir, st)) === 'look')) {
    yield { path: globalDir, places: GLOBAL_SEARCH_PLACES };
  }
}
