/**
 * Which element of a command's argv a shell parses as code: the script of `sh -c SCRIPT` (the
 * form a pipeline stage's one-string `command` takes, docs/pipelines.md). Pure.
 *
 * The shell is the first element whose name (its last path component) is one of SHELLS, so a
 * shell behind a wrapper is found too (`env A=1 bash -c …`, `timeout 60 sh -c …`, `nice sh -c
 * …`, `busybox sh -c …`). After it come its options: letter clusters (`-e`, `-eu`, `+x`; `-o`
 * and `-O` take the next element as their argument) and, for bash and zsh, long options
 * (`--norc`; `--rcfile`/`--init-file` take one argument). When a cluster starting with `-` holds
 * `c`, the first element after the options is the script; the ones after it are `$0 $1 …`, plain
 * arguments that the shell never parses.
 */

/** Shells whose `-c` takes a script in the POSIX way. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'zsh', 'yash', 'posh']);

const LONG_WITH_ARGUMENT = new Set(['--rcfile', '--init-file']);

const nameOf = (arg: string) => arg.slice(arg.lastIndexOf('/') + 1);

/** The index in `argv` of the script a shell runs as code (`sh -c SCRIPT`), or null when there is none. */
export function shellScriptIndex(argv: readonly string[]): number | null {
  const shell = argv.findIndex((arg) => SHELLS.has(nameOf(arg)));
  if (shell < 0) return null;
  let script = false;
  let i = shell + 1;
  while (i < argv.length) {
    const arg = argv[i]!;
    if (arg === '--' || arg === '-') {
      i += 1;
      break;
    }
    if (arg.startsWith('--')) {
      i += LONG_WITH_ARGUMENT.has(arg) ? 2 : 1;
      continue;
    }
    if (arg.length < 2 || (arg[0] !== '-' && arg[0] !== '+')) break;
    const letters = arg.slice(1);
    if (arg[0] === '-' && letters.includes('c')) script = true;
    i += letters.includes('o') || letters.includes('O') ? 2 : 1;
  }
  return script && i < argv.length ? i : null;
}
