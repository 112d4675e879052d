/**
 * The built `iris` run in a real pseudo-terminal: util-linux's `script` (`script -qec CMD
 * /dev/null`) gives the command a pty of the size asked for (`stty rows R cols C` inside it),
 * copies what the test writes to the pty's input and what the command prints to its output, and
 * exits with the command's exit code. Without `script` the tests that need it are skipped, except
 * under CI=true, where a missing `script` fails them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { BIN, cleanEnv, type RunResult } from './harness.js';

export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** One shell word: `'…'` with each `'` written as `'\''`. */
const word = (arg: string): string => `'${arg.replace(/'/g, "'\\''")}'`;

export interface PtyOptions {
  cwd: string;
  env: Record<string, string>;
  /** Typed once `ready` shows in the output (or at once without `ready`). */
  input: string;
  ready?: RegExp;
  rows?: number;
  cols?: number;
  timeoutMs?: number;
}

/**
 * Runs `iris ARGS…` in a pty, types `input` once the output matches `ready`, and resolves with
 * the command's exit code and everything the terminal showed (in `stdout`; `stderr` is script's).
 */
export function irisInPty(args: readonly string[], opts: PtyOptions): Promise<RunResult> {
  const argv = [process.execPath, BIN, ...args].map(word).join(' ');
  const command = `stty rows ${opts.rows ?? 24} cols ${opts.cols ?? 80}; exec ${argv}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: opts.cwd,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let typed = false;
    const type = (): void => {
      if (typed) return;
      typed = true;
      child.stdin.write(opts.input);
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (opts.ready?.test(stdout)) type();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {});
    if (!opts.ready) type();
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const seen = `terminal: ${stdout}\nstderr: ${stderr}`;
      reject(new Error(`iris ${args.join(' ')} in a pty did not finish within ${timeoutMs} ms\n${seen}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
