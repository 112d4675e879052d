/**
 * POST /v1/exec: the one route that upgrades its connection (api/exec-frames.ts). server.ts hands
 * it every 'upgrade' request of its door, with that door's token check and bounds.
 *
 * Guarantees:
 * - Everything is checked before the upgrade and refused with an ordinary JSON error answer: the
 *   path, method and Upgrade header, the task token (a task door needs one), the query, the
 *   caller's scope (a task only within its own job's subtree: 403), and whether the task runs
 *   (exec-service.ts: not_found with its state). So a refusal is the same as on any route.
 * - After `101`, output is sent as it comes, paused while the client does not read (the
 *   command is then held by its own pipe); input frames larger than MAX_FRAME_BYTES, or of an
 *   unknown type, end the connection.
 * - The command ends when the client goes away (SIGHUP, then SIGKILL: ExecSession.kill) and when
 *   the server closes; the connection ends after the EXIT (or ERROR) frame.
 * - The connection counts as one with a request in progress (it is never closed for room) and,
 *   with a token, against that token's bound of requests in progress.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { IrisError } from '../model/errors.js';
import { nameFromTask, parseTaskName } from '../model/names.js';
import { requireInScope, type TaskCaller } from '../model/caller.js';
import { EXEC_PATH, EXEC_UPGRADE, FRAME, FrameReader, frame, frames, parseExecQuery } from '../api/exec-frames.js';
import type { ExecResult } from '../api/types.js';
import type { ClusterService } from './cluster-service.js';
import { errorBody } from './http.js';

export interface ExecDoor {
  service: ClusterService;
  /** The caller of the request (its token checked); throws forbidden. */
  callerFor(req: IncomingMessage): TaskCaller | null;
  /** Counts the request against its token's bound until `release` is called; throws quota_exceeded. */
  holdToken(req: IncomingMessage): () => void;
  /** Marks the connection as one with a request in progress (connection-guard.ts). */
  holdConnection(socket: Socket): void;
  /** Who an exec without a task caller is recorded as. */
  owner: string;
  closing: AbortSignal;
  log: (message: string) => void;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

/** A JSON error answer on a connection that node:http no longer manages, then its end. */
function refuse(socket: Socket, error: unknown, log: (message: string) => void): void {
  const { status, body } = errorBody(error, `POST ${EXEC_PATH}`, log);
  const text = JSON.stringify(body);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** The canonical task of an exec request: `JOB/task-N`, relative to a task caller's own job. */
function taskName(given: string, caller: TaskCaller | null): string {
  const parsed = parseTaskName(nameFromTask(given, caller?.job ?? null));
  if (!parsed)
    throw new IrisError(
      'invalid_argument',
      `${JSON.stringify(given)} is not a task: exec runs in one task, JOB/task-N`,
      'for example iris exec train/task-0 -- sh',
    );
  return `${parsed.job}/task-${parsed.index}`;
}

export async function handleExecUpgrade(
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  door: ExecDoor,
): Promise<void> {
  socket.on('error', () => undefined);
  let release = () => {};
  try {
    const url = new URL(req.url ?? '/', 'http://iris');
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== EXEC_PATH)
      throw new IrisError('not_found', `no upgrade on ${path}`, `only POST ${EXEC_PATH} upgrades its connection`);
    if (req.method !== 'POST')
      throw new IrisError('invalid_argument', `method ${req.method ?? '?'} is not allowed on ${EXEC_PATH}`, 'use POST');
    if ((req.headers.upgrade ?? '').toLowerCase() !== EXEC_UPGRADE) {
      throw new IrisError(
        'invalid_argument',
        `${EXEC_PATH} upgrades to ${EXEC_UPGRADE}, not ${JSON.stringify(req.headers.upgrade ?? '')}`,
      );
    }
    if (door.closing.aborted) throw new IrisError('unavailable', 'the iris cluster is stopping');
    const caller = door.callerFor(req);
    if (caller) release = door.holdToken(req);
    door.holdConnection(socket);
    const request = parseExecQuery(url.searchParams);
    const task = taskName(request.task, caller);
    requireInScope(caller, task, 'exec into');
    const { session, event } = await door.service.exec!({ ...request, task }, caller, door.owner);
    if (socket.destroyed || door.closing.aborted) {
      session.kill();
      release();
      socket.destroy();
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${EXEC_UPGRADE}\r\nconnection: Upgrade\r\n\r\n`);
    pump(socket, head, session, event, door);
    socket.once('close', release);
  } catch (error) {
    release();
    refuse(socket, error, door.log);
  }
}

function pump(
  socket: Socket,
  head: Buffer,
  session: Awaited<ReturnType<NonNullable<ClusterService['exec']>>>['session'],
  event: ExecResult['event'],
  door: ExecDoor,
): void {
  let finished = false;
  const outputs = [session.stdout, session.stderr].filter((s): s is Readable => s !== null);
  const send = (type: number, data: Buffer): void => {
    let ok = true;
    for (const piece of frames(type, data)) ok = socket.write(piece) && ok;
    if (!ok) for (const output of outputs) output.pause();
  };
  socket.on('drain', () => {
    for (const output of outputs) output.resume();
  });
  session.stdout.on('data', (chunk: Buffer) => send(FRAME.STDOUT, chunk));
  session.stderr?.on('data', (chunk: Buffer) => send(FRAME.STDERR, chunk));
  const ended = outputs.map(
    (output) =>
      new Promise<void>((resolve) => {
        output.once('end', resolve);
        output.once('close', resolve);
        output.once('error', () => resolve());
      }),
  );
  void Promise.all(ended)
    .then(() => session.exited)
    .then(
      (exitCode) => {
        finished = true;
        socket.end(frame(FRAME.EXIT, JSON.stringify({ exitCode, event } satisfies ExecResult)));
      },
      (error: unknown) => {
        finished = true;
        socket.end(frame(FRAME.ERROR, JSON.stringify(errorBody(error, `POST ${EXEC_PATH}`, door.log).body)));
      },
    );
  const reader = new FrameReader();
  const input = (chunk: Buffer): void => {
    let got: ReturnType<FrameReader['push']>;
    try {
      got = reader.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const { type, payload } of got) {
      if (type === FRAME.STDIN) session.stdin?.write(payload);
      else if (type === FRAME.STDIN_END) session.stdin?.end();
      else if (type === FRAME.RESIZE) {
        try {
          const { rows, cols } = JSON.parse(payload.toString('utf8')) as { rows: unknown; cols: unknown };
          if (Number.isInteger(rows) && Number.isInteger(cols) && (rows as number) > 0 && (cols as number) > 0)
            session.resize(rows as number, cols as number);
        } catch {
          // a malformed resize is ignored
        }
      } else {
        socket.destroy();
        return;
      }
    }
  };
  session.stdin?.on('error', () => undefined);
  if (head.length > 0) input(head);
  socket.on('data', input);
  const stop = (): void => {
    if (!finished) session.kill();
    socket.destroy();
  };
  socket.once('close', () => {
    if (!finished) session.kill();
    door.closing.removeEventListener('abort', stop);
  });
  door.closing.addEventListener('abort', stop, { once: true });
}
