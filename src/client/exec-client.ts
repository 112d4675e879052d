/**
 * The client's side of `iris exec` (api/exec-frames.ts): upgrade the connection, then send the
 * command's input and terminal size as frames and hand its output to the caller as it comes.
 * Guarantees: `result` resolves with the EXIT frame's exit code and event, or rejects with the
 * server's IrisError (a refusal before the upgrade, an ERROR frame) or with 'unavailable' when
 * the connection ends before the command did; output is read no faster than the caller's sinks
 * take it (a sink that returns a promise pauses the connection until it settles).
 */
import type { Duplex } from 'node:stream';
import { IrisError } from '../model/errors.js';
import { EXEC_PATH, EXEC_UPGRADE, FRAME, FrameReader, execQuery, frame, frames } from '../api/exec-frames.js';
import type { ApiErrorBody, ExecRequest, ExecResult } from '../api/types.js';
import type { SocketTransport } from './socket-transport.js';
import { errorFromResponse } from './socket-transport.js';

/** Where the command's output goes; a promise returned pauses the connection until it settles. */
export interface ExecOutput {
  stdout(data: Buffer): void | Promise<void>;
  stderr(data: Buffer): void | Promise<void>;
}

/** A running `iris exec`. */
export interface ExecConnection {
  /** Sends input (with `stdin`). */
  write(data: Buffer): void;
  /** Closes the command's input. */
  endInput(): void;
  resize(rows: number, cols: number): void;
  /** Goes away: the cluster ends the command (SIGHUP, then SIGKILL). */
  close(): void;
  result: Promise<ExecResult>;
}

function isResult(value: unknown): value is ExecResult {
  const v = value as Partial<ExecResult> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.exitCode === 'number' &&
    typeof v.event === 'object' &&
    v.event !== null
  );
}

export async function openExec(
  transport: SocketTransport,
  request: ExecRequest,
  output: ExecOutput,
): Promise<ExecConnection> {
  const { socket, head } = await transport.upgrade(`${EXEC_PATH}?${execQuery(request)}`, EXEC_UPGRADE);
  return connection(socket, head, output, transport.socketPath);
}

function connection(socket: Duplex, head: Buffer, output: ExecOutput, where: string): ExecConnection {
  const reader = new FrameReader();
  let settle!: { resolve: (r: ExecResult) => void; reject: (e: unknown) => void };
  let done = false;
  const result = new Promise<ExecResult>((resolve, reject) => (settle = { resolve, reject }));
  const finish = (fn: () => void): void => {
    if (done) return;
    done = true;
    fn();
    socket.end();
  };
  // Output is handed on in order: a frame waits for the sink of the one before it.
  let chain: Promise<void> = Promise.resolve();
  const onData = (chunk: Buffer): void => {
    let got: ReturnType<FrameReader['push']>;
    try {
      got = reader.push(chunk);
    } catch (error) {
      finish(() => settle.reject(error));
      socket.destroy();
      return;
    }
    for (const { type, payload } of got) {
      if (type === FRAME.STDOUT || type === FRAME.STDERR) {
        const sink = type === FRAME.STDOUT ? output.stdout : output.stderr;
        chain = chain.then(() => sink(payload));
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(payload.toString('utf8'));
      } catch {
        body = null;
      }
      if (type === FRAME.EXIT && isResult(body)) {
        const value = body;
        void chain.then(() => finish(() => settle.resolve(value)));
      } else if (type === FRAME.ERROR && body && typeof body === 'object' && 'error' in body) {
        void chain.then(() =>
          finish(() => settle.reject(errorFromResponse(500, JSON.stringify(body as ApiErrorBody)))),
        );
      } else {
        finish(() =>
          settle.reject(
            new IrisError('unavailable', `the cluster at ${where} sent an exec frame iris cannot use (type ${type})`),
          ),
        );
        socket.destroy();
      }
    }
    // Back-pressure: stop reading while a sink is still busy with what came.
    socket.pause();
    void chain.then(
      () => socket.resume(),
      () => socket.resume(),
    );
  };
  socket.on('data', onData);
  socket.on('error', () => undefined);
  socket.once('close', () => {
    void chain.then(() =>
      finish(() =>
        settle.reject(
          new IrisError(
            'unavailable',
            `the connection to the iris cluster at ${where} closed before the command ended`,
            'check `iris cluster status`',
          ),
        ),
      ),
    );
  });
  if (head.length > 0) onData(head);
  const send = (data: Buffer): void => {
    if (!done && socket.writable) socket.write(data);
  };
  return {
    write: (data) => {
      for (const piece of frames(FRAME.STDIN, data)) send(piece);
    },
    endInput: () => send(frame(FRAME.STDIN_END)),
    resize: (rows, cols) => send(frame(FRAME.RESIZE, JSON.stringify({ rows, cols }))),
    close: () => {
      finish(() => settle.reject(new IrisError('unavailable', 'exec closed')));
      socket.destroy();
    },
    result,
  };
}
