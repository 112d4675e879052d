/**
 * Spawning an attempt's wrapper from the controller process itself (execa, or node:child_process
 * spawn): the spools are opened here (O_APPEND|O_CREAT|O_NOFOLLOW, owner-only) and closed once
 * the process runs. The resident spawner (spawner.ts) does the same in a small child process.
 * spawnHere() resolves with the pid once spawned, or rejects with a LaunchError.
 */
import { closeSync, constants, open } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import type { execa as Execa } from 'execa';
import type { TaskLaunch } from '../types.js';
import type { Spawned, SpawnedExit } from './spawner.js';
import { LaunchError, launchError, outputFilesError } from './launch-error.js';
import { WRAPPER_SH, type AttemptFiles } from './wrapper.js';

/** A spool file for the task to append to (O_APPEND: emptying it later is safe, spool.ts). */
const SPOOL_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const openFd = (path: string): Promise<number> =>
  new Promise((resolve, reject) => open(path, SPOOL_FLAGS, 0o600, (e, fd) => (e ? reject(e) : resolve(fd))));

// execa (~4 MB resident with its dependencies) is loaded only by a runtime that spawns through it.
let execaModule: Promise<typeof Execa> | null = null;
const loadExeca = (): Promise<typeof Execa> => (execaModule ??= import('execa').then((m) => m.execa));

export async function spawnHere(
  how: 'execa' | 'node',
  argv: string[],
  launch: TaskLaunch,
  file: string,
  files: AttemptFiles,
): Promise<Spawned> {
  const execa = how === 'execa' ? await loadExeca() : null;
  // Opened off the event loop (creating a file costs ~0.3 ms of kernel time here).
  const opened = await Promise.allSettled([openFd(files.out), openFd(files.err)]);
  const failure = opened.find((r) => r.status === 'rejected');
  if (failure) {
    for (const r of opened) if (r.status === 'fulfilled') closeSync(r.value);
    throw outputFilesError(files.dir, (failure as PromiseRejectedResult).reason as NodeJS.ErrnoException);
  }
  const [out, err] = opened.map((r) => (r as PromiseFulfilledResult<number>).value) as [number, number];
  let child: ChildProcess;
  let earlyFailure: PromiseLike<{ failed: boolean; cause?: unknown; shortMessage?: string }> | null = null;
  try {
    if (execa === null) {
      child = spawn(WRAPPER_SH, argv, {
        env: launch.env,
        cwd: launch.cwd,
        detached: true,
        stdio: ['ignore', out, err],
        windowsHide: true,
      });
    } else {
      const sub = execa(WRAPPER_SH, argv, {
        env: launch.env,
        extendEnv: false,
        cwd: launch.cwd,
        detached: true,
        stdin: 'ignore',
        // execa takes any fd here; its types accept only literal numbers.
        stdout: out as 1,
        stderr: err as 2,
        buffer: false,
        reject: false,
        cleanup: false,
        windowsHide: true,
      });
      child = sub.nodeChildProcess;
      // With reject:false the promise resolves even on failure. It settles before 'spawn' only
      // when execa could not even create the process (then its child is a dummy).
      earlyFailure = sub;
    }
  } catch (e) {
    closeSync(out);
    closeSync(err);
    // Synchronous validation errors (e.g. a NUL byte in an argument).
    throw new LaunchError(`cannot start ${file}: ${(e as Error).message}`, (e as NodeJS.ErrnoException).code);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const onSpawn = (): void => {
        settled = true;
        child.off('error', onError);
        resolve();
      };
      const onError = (e: NodeJS.ErrnoException): void => {
        if (settled) return;
        settled = true;
        child.off('spawn', onSpawn);
        launchError(e, file, launch.cwd).then(reject, reject);
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
      earlyFailure?.then((result) => {
        if (settled || !result.failed) return;
        onError(result.cause instanceof Error ? result.cause : new Error(result.shortMessage ?? 'spawn failed'));
      });
    });
  } finally {
    closeSync(out);
    closeSync(err);
  }
  // Later 'error' events (e.g. a failed kill) must not crash the process.
  child.on('error', () => undefined);
  const exit = new Promise<SpawnedExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { pid: child.pid!, exit };
}
