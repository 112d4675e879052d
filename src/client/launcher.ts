/**
 * Starts a local cluster in the background: `iris cluster start --foreground` as a detached
 * child of this package's bin/run.js, its output appended to `<home>/cluster.log`, and waits
 * (bounded) until its socket answers. When another client started a cluster at the same time,
 * the one that answers is used.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IrisError } from '../model/errors.js';
import { socketPathFor } from '../api/address.js';
import { SocketClient } from './socket-client.js';

/** This package's bin/run.js (the same relative place from src/client and dist/client). */
export const BIN_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js');

export interface StartOptions {
  configPath?: string;
  /** How long to wait for the socket to answer (default 20 s). */
  timeoutMs?: number;
  /** Environment of the cluster process (default process.env); IRIS_HOME is set to `home`. */
  env?: NodeJS.ProcessEnv;
}

export async function startDetached(home: string, opts: StartOptions = {}): Promise<{ pid: number; socket: string }> {
  ensurePrivateDir(home);
  const logPath = join(home, 'cluster.log');
  const socket = socketPathFor(home);
  const args = [BIN_PATH, 'cluster', 'start', '--foreground'];
  if (opts.configPath) args.push('--config', opts.configPath);
  const fd = openSync(logPath, 'a', 0o600);
  const status: { exited: { code: number | null; signal: NodeJS.Signals | null } | null; error: Error | null } = { exited: null, error: null };
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...(opts.env ?? process.env), IRIS_HOME: home },
  });
  closeSync(fd);
  child.on('exit', (code, signal) => (status.exited = { code, signal }));
  child.on('error', (error) => (status.error = error));
  const client = new SocketClient(socket, opts.env ?? process.env);
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  try {
    for (;;) {
      if (await client.ping()) return { pid: child.pid ?? 0, socket };
      if (status.error) throw new IrisError('unavailable', `could not start the local cluster: ${status.error.message}`);
      const exited = status.exited;
      if (exited) {
        // Another client may have won the race to start the cluster.
        if (await client.ping()) return { pid: await otherPid(client), socket };
        const how = exited.signal ? `signal ${exited.signal}` : `exit code ${exited.code}`;
        throw new IrisError(
          'unavailable',
          `the local cluster stopped during start-up (${how}). Last lines of ${logPath}:\n${tail(logPath, 15)}`,
          `fix the problem above and retry, or start it in the foreground with \`iris cluster start\``,
        );
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new IrisError(
          'unavailable',
          `the local cluster did not answer on ${socket} within ${Math.round((opts.timeoutMs ?? 20_000) / 1000)}s. Last lines of ${logPath}:\n${tail(logPath, 15)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    child.removeAllListeners('exit');
    child.removeAllListeners('error');
    child.unref();
  }
}

async function otherPid(client: SocketClient): Promise<number> {
  try {
    return (await client.cluster()).pid;
  } catch {
    return 0;
  }
}

/** Create the state directory private to this user (0700), tightening it if it already exists. */
export function ensurePrivateDir(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
}

function tail(path: string, lines: number): string {
  try {
    const text = readFileSync(path, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).map((line) => '  ' + line).join('\n') || '  (empty)';
  } catch {
    return '  (no log)';
  }
}
