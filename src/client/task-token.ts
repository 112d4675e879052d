/**
 * The task token the CLI sends inside a task (docs/security.md, "A task's token, and what it sees
 * of other trees"): `IRIS_TASK_TOKEN` where the task has it (a process task), else the content of
 * the file `IRIS_TASK_TOKEN_FILE` names (a container task: a file only the container's own
 * processes can read, so the token is not in /proc/PID/environ for every host process of the
 * container's uid). The file is read once, at most MAX_TOKEN_FILE_BYTES, and must hold one token
 * (base64url characters); anything else is an IrisError naming the file, never sent.
 * requireInTask refuses, before any call, what only a running task may do (model/caller.ts).
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';
import type { Env } from '../api/address.js';
import { TOKEN_ENV, TOKEN_FILE_ENV } from '../api/address.js';
import { taskOnlyRefusal, type TaskOnlyAction } from '../model/caller.js';
import { IrisError } from '../model/errors.js';

/** More than any token iris makes (24 characters). */
export const MAX_TOKEN_FILE_BYTES = 256;
const TOKEN = /^[A-Za-z0-9_-]+$/;

function unreadable(file: string, why: string): IrisError {
  return new IrisError(
    'unavailable',
    `cannot read the task token from ${file} (${TOKEN_FILE_ENV}): ${why}`,
    "run iris as the container's own user, with the groups the container started with (the file is readable by them " +
      'only)',
  );
}

function readTokenFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    throw unreadable(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  try {
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) {
      n = readSync(fd, buffer, length, buffer.length - length, null);
    }
    if (length > MAX_TOKEN_FILE_BYTES) throw unreadable(file, `longer than ${MAX_TOKEN_FILE_BYTES} bytes`);
    const token = buffer.toString('utf8', 0, length).trim();
    if (!TOKEN.test(token)) throw unreadable(file, 'it holds no token');
    return token;
  } catch (error) {
    if (error instanceof IrisError) throw error;
    throw unreadable(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  } finally {
    closeSync(fd);
  }
}

/** The task's token, or undefined outside a task (neither variable set). */
export function taskToken(env: Env): string | undefined {
  const token = env[TOKEN_ENV]?.trim();
  if (token) return token;
  const file = env[TOKEN_FILE_ENV]?.trim();
  return file ? readTokenFile(file) : undefined;
}

/** Whether this environment is a task's (it has a token or a token file). */
export function inTask(env: Env): boolean {
  return Boolean(env[TOKEN_ENV]?.trim() || env[TOKEN_FILE_ENV]?.trim());
}

/** Refuses, before any call, what only a running task may do when this environment is not a task's. */
export function requireInTask(env: Env, action: TaskOnlyAction): void {
  if (!inTask(env)) throw taskOnlyRefusal(action);
}
