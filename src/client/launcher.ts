/**
 * Starts a local cluster in the background: server/cluster-process.js (the daemon without the CLI
 * framework, with the arguments `cluster start --foreground …`) as a detached child on this Node, its output appended
 * to `<home>/cluster.log`, and waits
 * (bounded) until its socket answers. When another client started a cluster at the same time,
 * the one that answers is used: a cluster process that finds the state directory locked by
 * another controller exits with EXIT.conflict, and this waits for that one to answer instead, or
 * reports (conflict, naming its pid) that it holds the state without answering. A cluster that
 * exits with a usage error (a bad config file) is reported as a usage error (exit 2), one that
 * found no space to open its database as such (exit 7). Before it
 * writes anything, the state directory must pass api/state-dir.ts (refused: exit 2, never chmodded);
 * `cluster.log` is owner-only and never opened through a symlink.
 *
 * cluster.log keeps the output of every start (it is appended to, never rotated: a cluster that is
 * starting at the same moment from another client writes to the same file, and a rename would
 * carry its output away). Each start writes a marker line and remembers the file's size after it:
 * a failed start shows only the lines written since, never an earlier start's errors.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, IrisError } from '../model/errors.js';
import { formatDuration } from '../model/duration.js';
import { pidFileFor, socketPathFor } from '../api/address.js';
import { stateHolderPid } from '../api/lock-holder.js';
import { ensurePrivateFile, prepareStateDir } from '../api/state-dir.js';
import { SocketClient } from './socket-client.js';

/**
 * V8 flags of the detached cluster process, a product choice (docs/benchmarks.md, "Memory"):
 *   - a young generation capped at 8 MiB per semi-space: a controller streaming logs to several
 *     clients otherwise lets V8 grow it to 128 MiB of RSS (docs/architecture.md, "Log files");
 *   - the old generation may grow to 1.5 times what the last full collection left before the next
 *     one, instead of up to 4 times (V8's default when the heap limit is 2 GB or more): a cluster
 *     running short tasks makes garbage at hundreds of MB/s, and with the default its heap sat at
 *     4 times its live size (~180 instead of ~120 MB after 2,000 tasks). No limit on the heap;
 *   - `--expose-gc`: lets the cluster run one memory-reducing collection when it goes quiet after
 *     a burst (server/idle-compaction.ts); V8 otherwise keeps the burst's garbage while idle.
 */
export const CLUSTER_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=50',
  '--expose-gc',
];

/** The detached cluster's entry, beside this file's directory (dist/server/cluster-process.js). */
const CLUSTER_ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', 'server', 'cluster-process.js');

export interface StartOptions {
  configPath?: string;
  /** How long to wait for the socket to answer (default 20 s). */
  timeoutMs?: number;
  /** Environment of the cluster process (default process.env); IRIS_HOME is set to `home`. */
  env?: NodeJS.ProcessEnv;
  /** `--metrics-port` for the cluster process. */
  metricsPort?: number;
  /** `--fresh` for the cluster process: move the saved state aside and start an empty cluster. */
  fresh?: boolean;
}

/** A started (or already starting) cluster: its pid, its socket and its metrics URL (null: no metrics port). */
export interface StartedCluster {
  pid: number;
  socket: string;
  metricsUrl: string | null;
}

export async function startDetached(home: string, opts: StartOptions = {}): Promise<StartedCluster> {
  // Refuses a state directory another user controls (api/state-dir.ts) before writing anything there.
  prepareStateDir(home);
  const logPath = join(home, 'cluster.log');
  const socket = socketPathFor(home);
  // Not through bin/run.js: the CLI framework would stay loaded for the cluster's life
  // (server/cluster-process.ts). This process already runs on a Node that iris accepts.
  const args = [...CLUSTER_NODE_FLAGS, CLUSTER_ENTRY, 'cluster', 'start', '--foreground'];
  if (opts.configPath) args.push('--config', opts.configPath);
  if (opts.metricsPort !== undefined) args.push('--metrics-port', String(opts.metricsPort));
  if (opts.fresh) args.push('--fresh');
  ensurePrivateFile(logPath);
  const fd = openSync(logPath, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  // This start's output begins after its marker: a failure shows only what this start wrote.
  try {
    writeSync(fd, `--- iris cluster start at ${new Date().toISOString()} ---\n`);
  } catch {
    // A full disk: the child's own words may not get there either (startFailed says so).
  }
  const log: StartLog = { path: logPath, since: fstatSync(fd).size };
  const status: { exited: { code: number | null; signal: NodeJS.Signals | null } | null; error: Error | null } = {
    exited: null,
    error: null,
  };
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
      // The pid comes from the cluster that answers: with two starts at once it may be the other one.
      if (await client.ping()) return answering(client, child.pid, socket);
      if (status.error)
        throw new IrisError('unavailable', `could not start the local cluster: ${status.error.message}`);
      const exited = status.exited;
      if (exited) {
        // Another client may have won the race to start the cluster.
        if (await client.ping()) return answering(client, child.pid, socket);
        if (exited.code !== EXIT.conflict) throw startFailed(exited, log);
        // Another controller holds the state directory. Its pid file is written once it answers on
        // its socket: with a live pid there, it is up but unreachable (its socket file is gone);
        // without one it is still starting, so wait for it to answer.
        // The pid file is written after the socket answers, so ping once more after reading it:
        // only a holder that answered before and does not now has lost its socket.
        if (answeringHolder(home) !== null) {
          if (await client.ping()) return answering(client, child.pid, socket);
          throw heldByAnother(home, socket, log);
        }
      }
      if (Date.now() > deadline) {
        if (exited) throw heldByAnother(home, socket, log);
        child.kill('SIGTERM');
        throw new IrisError(
          'unavailable',
          `the local cluster did not answer on ${socket} within ` +
            `${formatDuration(opts.timeoutMs ?? 20_000, { style: 'short' })}. Last lines of ${logPath}:\n` +
            `${tail(log, 15)}`,
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

/**
 * The cluster process exited before it answered. Its exit code is passed on: a usage error (a bad
 * config file, exit 2) stays a usage error; anything else means no cluster is available (6).
 */
function startFailed(exited: { code: number | null; signal: NodeJS.Signals | null }, log: StartLog): IrisError {
  const logPath = log.path;
  if (exited.code === EXIT.noSpace) {
    // Its own words may not have reached cluster.log, which lies on the same full disk.
    const home = dirname(logPath);
    return new IrisError(
      'insufficient_storage',
      `the local cluster could not start: the disk holding ${home} is full. Last lines of ${logPath}:\n` +
        `${tail(log, 15)}`,
      `free space on that filesystem (old task logs live under ${join(home, 'logs')}), then start the cluster again`,
    );
  }
  const how = exited.signal ? `signal ${exited.signal}` : `exit code ${exited.code}`;
  const code = exited.code === EXIT.usage ? 'invalid_argument' : 'unavailable';
  return new IrisError(
    code,
    `the local cluster stopped during start-up (${how}). Last lines of ${logPath}:\n${tail(log, 15)}`,
    `fix the problem above and retry, or start it in the foreground with \`iris cluster start\``,
  );
}

/** Another controller holds the state directory but its socket does not answer (deleted, or stuck). */
function heldByAnother(home: string, socket: string, log: StartLog): IrisError {
  const logPath = log.path;
  const pid = stateHolderPid(home) ?? livePid(home);
  const who = pid !== null ? `another iris controller (pid ${pid})` : 'another iris controller';
  return new IrisError(
    'conflict',
    `${who} holds the state directory ${home}, but nothing answers on ${socket}; no second controller was started. ` +
      `Last lines of ${logPath}:\n${tail(log, 5)}`,
    pid !== null
      ? `if its socket file was removed, stop it with \`kill ${pid}\` (its tasks are stopped gracefully) and retry`
      : 'stop the other controller and retry, or set IRIS_HOME to another directory',
  );
}

function readPid(home: string): number | null {
  try {
    const pid = Number(readFileSync(pidFileFor(home), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The pid of the controller that holds the state lock and has written its pid file (so it got as
 * far as answering on its socket), or null while the holder is still starting. The pid file
 * alone is not enough: a controller killed with -9 leaves it behind, and its pid may live on as
 * a zombie or be reused. Where the kernel's lock table cannot be read, a live pid file counts.
 */
function answeringHolder(home: string): number | null {
  if (!existsSync('/proc/locks')) return livePid(home);
  const holder = stateHolderPid(home);
  return holder !== null && holder === readPid(home) ? holder : null;
}

/** The pid in `<home>/cluster.pid` while that process lives (EPERM: alive, another user's). */
function livePid(home: string): number | null {
  const pid = readPid(home);
  if (pid === null) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/**
 * The cluster that answers: its pid (with two starts at once it may be the other one's) and its
 * metrics URL.
 */
async function answering(client: SocketClient, childPid: number | undefined, socket: string): Promise<StartedCluster> {
  try {
    const info = await client.cluster();
    return { pid: info.pid, socket, metricsUrl: info.metrics.url };
  } catch {
    return { pid: childPid ?? 0, socket, metricsUrl: null };
  }
}

/** cluster.log, and where this start's output begins in it. */
interface StartLog {
  path: string;
  since: number;
}

/** The bytes of a log read from its end: enough for the last lines, never the whole file. */
const TAIL_BYTES = 64 * 1024;

/** The last `lines` lines this start wrote to cluster.log (from `log.since` on), indented. */
function tail(log: StartLog, lines: number): string {
  let text: string;
  try {
    const fd = openSync(log.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const size = fstatSync(fd).size;
      const from = Math.max(log.since, size - TAIL_BYTES);
      const buffer = Buffer.alloc(Math.max(0, size - from));
      const read = readSync(fd, buffer, 0, buffer.length, from);
      text = buffer.subarray(0, read).toString('utf8').trimEnd();
    } finally {
      closeSync(fd);
    }
  } catch {
    return '  (no log)';
  }
  return (
    text
      .split('\n')
      .slice(-lines)
      .map((line) => '  ' + line)
      .join('\n') || '  (empty)'
  );
}
