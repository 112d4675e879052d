/**
 * LaunchError: an attempt could not be started at all, with the message a user sees
 * ("command not found: X", "permission denied: X", "working directory not found: D", ...).
 * launchError() is the one place that turns a spawn errno into that message.
 */
import { stat } from 'node:fs';

/** The attempt could not be started at all. `errno` is the spawn error code when there was one. */
export class LaunchError extends Error {
  readonly errno: string | undefined;
  constructor(message: string, errno?: string) {
    super(message);
    this.name = 'LaunchError';
    this.errno = errno;
  }
}

const isDir = (path: string): Promise<boolean> =>
  new Promise((resolve) => stat(path, (err, st) => resolve(!err && st.isDirectory())));

export async function launchError(err: NodeJS.ErrnoException, file: string, cwd: string): Promise<LaunchError> {
  switch (err.code) {
    case 'ENOENT':
      // spawn reports a missing cwd as ENOENT too.
      if (!(await isDir(cwd))) return new LaunchError(`working directory not found: ${cwd}`, err.code);
      return new LaunchError(`command not found: ${file}`, err.code);
    case 'EACCES':
      if (!(await isDir(cwd))) return new LaunchError(`working directory not found: ${cwd}`, 'ENOENT');
      return new LaunchError(`permission denied: ${file}`, err.code);
    case 'ENOTDIR':
      return new LaunchError(`not a directory: ${cwd}`, err.code);
    default:
      return new LaunchError(`cannot start ${file}: ${err.message}`, err.code);
  }
}

/** The message for output (spool) files that could not be created. */
export const outputFilesError = (dir: string, e: NodeJS.ErrnoException): LaunchError =>
  new LaunchError(`cannot create the output files in ${dir}: ${e.code ?? String(e)}`, e.code);
