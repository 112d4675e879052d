/**
 * The resident spawner: a small Node process, started once by the controller (spawner.ts), that
 * forks the attempts' wrappers on request. Forking from this small process costs a fraction of a
 * fork of the controller (whose page tables grow with its heap).
 *
 * Protocol (IPC messages, JSON):
 * - in:  {id, file, args, env, cwd, out, err}: open `out`/`err` for appending (created owner-only,
 *        never through a symlink), spawn `file args` in a new session/process group with exactly
 *        `env`, stdin ignored, stdout/stderr to those files; the files are closed here right after.
 * - out: {id, pid} once spawned; {id, error: {code, message, stage}} when it could not start
 *        (stage 'output': a file could not be opened; 'spawn': the spawn failed);
 *        {id, exit: {code, signal}} when the spawned process exited.
 * Guarantees: every request gets exactly one {pid} or {error}, and every {pid} one later {exit}
 * while the channel is open. When the controller goes away (disconnect), this process exits at
 * once without touching the attempts: their wrappers keep running and record their own exits.
 *
 * It imports nothing of iris (node: modules only), so it starts fast and stays small.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, constants, open } from 'node:fs';
import type { SpawnRequest } from './spawner.js';

/** A launch as spawner.ts sends it: the request and its id. */
interface LaunchRequest extends SpawnRequest {
  id: number;
}

const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

const send = (message: unknown): void => {
  if (process.connected) process.send!(message);
};

const openFd = (path: string): Promise<number> =>
  new Promise((resolve, reject) => open(path, FLAGS, 0o600, (e, fd) => (e ? reject(e) : resolve(fd))));

const errorOf = (e: unknown, stage: string): { code: string | undefined; message: string; stage: string } => ({
  code: (e as NodeJS.ErrnoException).code,
  message: (e as Error).message ?? String(e),
  stage,
});

async function launch(req: LaunchRequest): Promise<void> {
  const opened = await Promise.allSettled([openFd(req.out), openFd(req.err)]);
  const failed = opened.find((r) => r.status === 'rejected');
  if (failed) {
    for (const r of opened) if (r.status === 'fulfilled') closeSync(r.value);
    send({ id: req.id, error: errorOf((failed as PromiseRejectedResult).reason, 'output') });
    return;
  }
  const [out, err] = opened.map((r) => (r as PromiseFulfilledResult<number>).value) as [number, number];
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, {
      env: req.env,
      cwd: req.cwd,
      detached: true,
      stdio: ['ignore', out, err],
      windowsHide: true,
    });
  } catch (e) {
    closeSync(out);
    closeSync(err);
    send({ id: req.id, error: errorOf(e, 'spawn') });
    return;
  }
  let started = false;
  child.once('spawn', () => {
    started = true;
    closeSync(out);
    closeSync(err);
    send({ id: req.id, pid: child.pid });
  });
  child.on('error', (e) => {
    if (started) return;
    started = true;
    closeSync(out);
    closeSync(err);
    send({ id: req.id, error: errorOf(e, 'spawn') });
  });
  child.once('exit', (code, signal) => send({ id: req.id, exit: { code, signal } }));
}

process.on('message', (req: LaunchRequest) => {
  launch(req).catch((e) => send({ id: req.id, error: errorOf(e, 'spawn') }));
});
process.on('disconnect', () => process.exit(0));
