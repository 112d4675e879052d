/**
 * Turns engine errors met while creating or starting a container into what the controller
 * records: a LaunchError (the attempt failed: bad command, missing image, no GPU runtime) or an
 * EngineLostError (the engine is unreachable or broke: a preemption).
 */
import { LaunchError } from '../process/runtime.js';
import {
  EngineLostError,
  engineMessage,
  isConnectionError,
  shortReason,
  unreachableMessage,
  type EngineAddress,
} from './engine.js';
import type { TaskLaunch } from '../types.js';

export function imageNotFound(image: string): LaunchError {
  return new LaunchError(
    `image not found: ${image} (no registry reachable? build it locally, e.g. with docker import or docker load)`,
  );
}

export function isNoSuchImage(error: unknown): boolean {
  const e = error as { statusCode?: number } | null;
  return e?.statusCode === 404 && /no such image|not found/i.test(engineMessage(error));
}

export function isNoSuchContainer(error: unknown): boolean {
  const e = error as { statusCode?: number } | null;
  return e?.statusCode === 404;
}

/** The engine connection failed while `what` (e.g. "creating the container"). */
export function lostError(address: EngineAddress, error: unknown, what: string): EngineLostError {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES' || code === 'ENOTFOUND') {
    return new EngineLostError(unreachableMessage(address, error));
  }
  return new EngineLostError(`Docker engine error while ${what}: ${shortReason(error)}`);
}

/** Maps a failed create/start of `launch` to the error launch() rejects with. */
export function launchFailure(address: EngineAddress, launch: TaskLaunch, error: unknown, what: string): Error {
  if (isConnectionError(error)) return lostError(address, error, what);
  const message = engineMessage(error);
  const file = launch.argv[0] ?? '';
  if (/could not select device driver "?nvidia"?/i.test(message)) {
    const ids = launch.container?.gpuIds.join(',') ?? '';
    return new LaunchError(
      `the Docker engine has no NVIDIA runtime for the requested GPUs (${ids}): install the NVIDIA Container ` +
        `Toolkit on this host, or run the job without GPUs`,
    );
  }
  if (
    /executable file not found|no such file or directory/i.test(message) &&
    /exec|starting container process/i.test(message)
  ) {
    return new LaunchError(`command not found: ${file}`, 'ENOENT');
  }
  if (/permission denied/i.test(message) && /exec|starting container process/i.test(message)) {
    return new LaunchError(`permission denied: ${file}`, 'EACCES');
  }
  if (/not a directory/i.test(message) && /cwd|working directory|chdir/i.test(message)) {
    return new LaunchError(`not a directory: ${launch.cwd}`, 'ENOTDIR');
  }
  if (isNoSuchImage(error)) return new LaunchError(`image not found: ${launch.container?.image ?? ''}`);
  return new LaunchError(`cannot start container for ${file}: ${message}`);
}

/** The engine could not set the container's memlock limit (its own hard limit is lower). */
export function isMemlockRefused(error: unknown): boolean {
  return /error setting rlimit type 8\b|rlimit.*memlock/i.test(engineMessage(error));
}
