/**
 * `iris exec` into a running process task (docs/runtime.md, "Exec"): the command runs as the
 * owner (like the task), with exactly the task's environment (its IRIS_* variables and token
 * included) in its working directory, and joins the task's cgroups before it starts, so stopping
 * the task (or its end) stops the command too and its CPU and memory count as the task's.
 *
 * - Without a terminal: `/bin/sh` joins the cgroups and execs the command; stdin, stdout and
 *   stderr are pipes to the caller.
 * - With a terminal (`tty`): util-linux `script` gives the command a pseudo-terminal (Node has no
 *   pty of its own without a native addon); stdout and stderr are then one stream. The command
 *   reaches `script` as one shell word list in which every argument is single-quoted, so nothing
 *   of it is interpreted by a shell. The terminal gets the caller's size at start; a later resize
 *   is applied to the terminal of the command's process (stty on its /proc/PID/fd/0).
 * - Its own process group: kill() sends SIGHUP to it, then SIGKILL after a short grace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { IrisError } from '../../model/errors.js';
import type { ExecSession, ExecSpec } from '../types.js';
import { signalGroup } from '../../host/proc.js';
import { signalExitCode } from '../signal-exit.js';

/** What the runtime knows of a running process attempt for an exec. */
export interface ProcessExecTarget {
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** The cgroup.procs files the attempt's wrapper joined (none without cgroups). */
  procs: readonly string[];
}

/** `$1` = N, then N cgroup.procs files, then the command: join each, then exec it. */
const JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do { echo $$ >"$1"; } 2>/dev/null; shift; n=$((n-1)); done; exec "$@"';
const SCRIPT_PATHS = ['/usr/bin/script', '/bin/script'];
/** How long kill() waits after SIGHUP before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** One POSIX shell word that means exactly `arg`. */
export function shellWord(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command line `script -c` runs for a terminal exec: the size, the task's SHELL back, then the command. */
export function terminalCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  size?: { rows: number; cols: number },
): string {
  const parts: string[] = [];
  if (size) parts.push(`stty rows ${Math.trunc(size.rows)} cols ${Math.trunc(size.cols)} 2>/dev/null`);
  parts.push(env.SHELL === undefined ? 'unset SHELL' : `SHELL=${shellWord(env.SHELL)}; export SHELL`);
  parts.push(`exec ${argv.map(shellWord).join(' ')}`);
  return parts.join('; ');
}

/** The process ids of `pid`'s children (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function execInProcess(target: ProcessExecTarget, spec: ExecSpec): Promise<ExecSession> {
  if (spec.argv.length === 0 || spec.argv[0] === '') throw new IrisError('invalid_argument', 'no command to run');
  let args: string[];
  let env: Record<string, string> = { ...target.env };
  if (spec.tty) {
    const script = SCRIPT_PATHS.find((p) => existsSync(p));
    if (!script) {
      throw new IrisError(
        'unavailable',
        "a terminal into a process task needs util-linux's `script`, which this host lacks",
        'install util-linux (bsdutils), or leave out -t',
      );
    }
    // `script` runs its command with $SHELL -c: /bin/sh here, the task's SHELL restored inside.
    env = { ...env, SHELL: '/bin/sh' };
    args = [
      '-c',
      JOIN,
      'iris-exec',
      String(target.procs.length),
      ...target.procs,
      script,
      '-qefc',
      terminalCommand(spec.argv, target.env, spec.size),
      '/dev/null',
    ];
  } else {
    args = ['-c', JOIN, 'iris-exec', String(target.procs.length), ...target.procs, ...spec.argv];
  }
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', args, {
        env,
        cwd: target.cwd,
        detached: true,
        windowsHide: true,
        stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      reject(new IrisError('unavailable', `cannot start the command: ${(error as Error).message}`));
      return;
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new IrisError(
          'unavailable',
          `cannot start the command in the task: ${error.code ?? error.message}`,
          error.code === 'ENOENT' ? "the task's working directory may be gone" : undefined,
        ),
      );
    });
    child.once('spawn', () => {
      const pid = child.pid!;
      const exited = new Promise<number>((done) => {
        child.once('close', (code, signal) => done(code ?? signalExitCode(signal)));
      });
      let killTimer: NodeJS.Timeout | null = null;
      void exited.then(() => {
        if (killTimer) clearTimeout(killTimer);
      });
      resolve({
        stdin: child.stdin ?? null,
        stdout: child.stdout!,
        // With a terminal the command's output is all on stdout; stderr has only `script`'s own words.
        stderr: child.stderr!,
        exited,
        resize: (rows, cols) => {
          if (!spec.tty) return;
          // script's child is the command (after the shell's exec); its fd 0 is the terminal.
          for (const inner of childrenOf(pid)) {
            let tty: string;
            try {
              tty = readlinkSync(`/proc/${inner}/fd/0`);
            } catch {
              continue;
            }
            if (!tty.startsWith('/dev/pts/')) continue;
            const stty = spawn(
              'stty',
              ['-F', tty, 'rows', String(Math.trunc(rows)), 'cols', String(Math.trunc(cols))],
              { stdio: 'ignore' },
            );
            stty.once('error', () => undefined);
          }
        },
        kill: () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          signalGroup(pid, 'SIGHUP');
          killTimer ??= setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
          killTimer.unref();
        },
      });
    });
  });
}
