/**
 * `iris exec` into a running container (docs/runtime.md, "Exec"): the engine's exec (`docker
 * exec`), as the container's user, in its working directory, with its environment; no privilege
 * and no capability beyond the container's own.
 *
 * - The hijacked connection carries the command's input; without a terminal its output is the
 *   engine's multiplexed stream (8-byte frame headers: 1 stdout, 2 stderr), split here.
 * - Its exit code is the exec's, asked of the engine once the output has ended.
 * - kill(): the engine has no "stop this exec"; the connection is closed (the command's stdin
 *   ends, a terminal hangs up) and, when this process may signal it (the same uid or root), its
 *   host pid gets SIGHUP and then SIGKILL. It ends with the container at the latest.
 */
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { IrisError } from '../../model/errors.js';
import type { ExecSession, ExecSpec } from '../types.js';
import { engineMessage } from './engine.js';

/** How long kill() waits after SIGHUP before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long the exit code may take to show after the output ended. */
const EXIT_WAIT_MS = 5000;

/** Splits the engine's multiplexed stream into `out` and `err`; ends both when `source` ends. */
export function demuxInto(source: Duplex, out: PassThrough, err: PassThrough): void {
  let buffer: Buffer = Buffer.alloc(0);
  source.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let offset = 0;
    let more = true;
    while (buffer.length - offset >= 8) {
      const size = buffer.readUInt32BE(offset + 4);
      if (buffer.length - offset < 8 + size) break;
      const payload = buffer.subarray(offset + 8, offset + 8 + size);
      more = (buffer[offset] === 2 ? err : out).write(Buffer.from(payload)) && more;
      offset += 8 + size;
    }
    buffer = offset === buffer.length ? Buffer.alloc(0) : Buffer.from(buffer.subarray(offset));
    if (!more) {
      source.pause();
      const resume = () => source.resume();
      (out.writableNeedDrain ? out : err).once('drain', resume);
    }
  });
  const end = () => {
    out.end();
    err.end();
  };
  source.once('end', end);
  source.once('close', end);
  source.once('error', end);
}

async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  for (;;) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    if (Date.now() > deadline)
      throw new IrisError('unavailable', "the Docker engine did not report the command's exit code");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  try {
    process.kill(pid, signal);
  } catch {
    // gone, or not ours to signal
  }
}

/** Runs `spec` in `container` through the engine's exec. */
export async function execInContainer(container: Docker.Container, spec: ExecSpec): Promise<ExecSession> {
  let exec: Docker.Exec;
  let stream: Duplex;
  try {
    exec = await container.exec({
      Cmd: [...spec.argv],
      AttachStdin: spec.stdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: spec.tty,
    });
    stream = await exec.start({ hijack: true, stdin: spec.stdin, Tty: spec.tty });
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404 || status === 409) {
      throw new IrisError(
        'not_found',
        `the task's container is not running (${engineMessage(error)})`,
        'see the task with `iris status`',
      );
    }
    throw new IrisError('unavailable', `the Docker engine could not start the command: ${engineMessage(error)}`);
  }
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (spec.tty) {
    stream.pipe(stdout);
    stream.once('close', () => stdout.end());
  } else {
    demuxInto(stream, stdout, stderr);
  }
  let stdin: PassThrough | null = null;
  if (spec.stdin) {
    stdin = new PassThrough();
    stdin.pipe(stream);
  } else {
    // No input: the command's stdin is closed at once (the engine sees our half of the connection end).
    stream.end();
  }
  stream.on('error', () => undefined);
  const resize = (rows: number, cols: number): void => {
    if (spec.tty) exec.resize({ h: Math.trunc(rows), w: Math.trunc(cols) }).catch(() => undefined);
  };
  // The first size is set before the session is handed back, so no input written to it can run
  // under the engine's default 24×80 (a later resize is fire-and-forget).
  if (spec.tty && spec.size) {
    await exec.resize({ h: Math.trunc(spec.size.rows), w: Math.trunc(spec.size.cols) }).catch(() => undefined);
  }
  const ended = (output: PassThrough) =>
    new Promise<void>((resolve) => {
      output.once('end', resolve);
      output.once('close', resolve);
    });
  const outputDone = Promise.all(spec.tty ? [ended(stdout)] : [ended(stdout), ended(stderr)]);
  const exited = outputDone.then(() => exitCodeOf(exec));
  let killTimer: NodeJS.Timeout | null = null;
  void exited.then(
    () => killTimer && clearTimeout(killTimer),
    () => undefined,
  );
  return {
    stdin,
    stdout,
    stderr: spec.tty ? null : stderr,
    exited,
    resize,
    kill: () => {
      stream.destroy();
      void exec.inspect().then(
        (info) => {
          if (!info.Running) return;
          signalPid(info.Pid, 'SIGHUP');
          killTimer = setTimeout(() => signalPid(info.Pid, 'SIGKILL'), KILL_GRACE_MS);
          killTimer.unref();
        },
        () => undefined,
      );
    },
  };
}
