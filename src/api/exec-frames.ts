/**
 * The wire of `iris exec` (docs/api.md, "POST /v1/exec"). The request is an HTTP upgrade
 * (`Connection: Upgrade`, `Upgrade: iris-exec`) whose query names the task and the command; a
 * refusal is an ordinary JSON error answer; on `101 Switching Protocols` the connection carries
 * frames both ways: a type byte, the payload's length (uint32, big-endian), the payload.
 *
 *   client -> cluster: STDIN data, STDIN_END (no payload), RESIZE `{"rows":R,"cols":C}`
 *   cluster -> client: STDOUT data, STDERR data, EXIT `{"exitCode":N,"event":ExecEvent}` (the
 *   last frame), ERROR `{"error":{code,message,hint}}` (the command could not be run or its end
 *   not be known; the last frame)
 *
 * A frame larger than MAX_FRAME_BYTES is a protocol error: the connection is closed.
 */
import { IrisError, describeValue, invalid } from '../model/errors.js';
import { NUL_REFUSAL } from '../model/nul.js';
import type { ExecRequest } from './types.js';

export const EXEC_UPGRADE = 'iris-exec';
export const EXEC_PATH = '/v1/exec';

export const FRAME = { STDIN: 0, STDIN_END: 1, RESIZE: 2, STDOUT: 11, STDERR: 12, EXIT: 13, ERROR: 14 } as const;
/** The largest payload of one frame (output is cut into frames of at most this). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** The most arguments, and bytes of them, an exec's command may have (it travels in the query). */
export const MAX_COMMAND_ARGS = 256;
export const MAX_COMMAND_BYTES = 8 * 1024;

/** One frame, ready to write (a payload over MAX_FRAME_BYTES is split by the writer). */
export function frame(type: number, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** `data` as frames of `type` of at most MAX_FRAME_BYTES each. */
export function frames(type: number, data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += MAX_FRAME_BYTES)
    out.push(frame(type, data.subarray(at, at + MAX_FRAME_BYTES)));
  return out;
}

/** Collects bytes into whole frames; throws on a frame over MAX_FRAME_BYTES. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Array<{ type: number; payload: Buffer }> {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: Array<{ type: number; payload: Buffer }> = [];
    let at = 0;
    while (this.buffer.length - at >= 5) {
      const size = this.buffer.readUInt32BE(at + 1);
      if (size > MAX_FRAME_BYTES) throw invalid(`an exec frame of ${size} bytes is larger than ${MAX_FRAME_BYTES}`);
      if (this.buffer.length - at < 5 + size) break;
      out.push({ type: this.buffer[at]!, payload: Buffer.from(this.buffer.subarray(at + 5, at + 5 + size)) });
      at += 5 + size;
    }
    this.buffer = at === this.buffer.length ? Buffer.alloc(0) : Buffer.from(this.buffer.subarray(at));
    return out;
  }
}

/** The query of an exec request: `task`, `attempt`, `tty`, `stdin`, `rows`, `cols`, one `cmd` per argument. */
export function execQuery(request: ExecRequest): string {
  const query = new URLSearchParams({ task: request.task });
  if (request.attempt !== undefined) query.set('attempt', String(request.attempt));
  if (request.tty) query.set('tty', '1');
  if (request.stdin) query.set('stdin', '1');
  if (request.size) {
    query.set('rows', String(request.size.rows));
    query.set('cols', String(request.size.cols));
  }
  for (const arg of request.command) query.append('cmd', arg);
  return query.toString();
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw invalid(`query parameter "${name}" must be 1 or 0, got ${describeValue(value)}`);
}

function count(query: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid(
      `query parameter "${name}" must be a whole number from ${min} to ${max}, got ${describeValue(value)}`,
    );
  }
  return Number(value);
}

/** The exec request of an upgrade's query; IrisError('invalid_argument') naming the parameter. */
export function parseExecQuery(query: URLSearchParams): ExecRequest {
  const task = query.get('task')?.trim();
  if (!task) throw invalid('query parameter "task" is required: the task to run the command in (JOB/task-N)');
  const command = query.getAll('cmd');
  if (command.length === 0 || command[0] === '')
    throw invalid(
      'no command given (query parameter "cmd", one per argument)',
      'iris exec JOB/task-N -- COMMAND [ARGS…]',
    );
  if (
    command.length > MAX_COMMAND_ARGS ||
    command.reduce((n, arg) => n + Buffer.byteLength(arg), 0) > MAX_COMMAND_BYTES
  ) {
    throw new IrisError(
      'payload_too_large',
      `the command is too long for an exec (at most ${MAX_COMMAND_ARGS} arguments and ${MAX_COMMAND_BYTES} bytes)`,
      'put a long command in a script inside the task and run that',
    );
  }
  const nul = command.findIndex((arg) => arg.includes('\0'));
  if (nul >= 0) throw invalid(`cmd[${nul}] ${NUL_REFUSAL}`);
  const attempt = count(query, 'attempt', 0, 1_000_000);
  const rows = count(query, 'rows', 1, 10_000);
  const cols = count(query, 'cols', 1, 10_000);
  if ((rows === undefined) !== (cols === undefined))
    throw invalid('give both query parameters "rows" and "cols", or neither');
  return {
    task,
    command,
    ...(attempt === undefined ? {} : { attempt }),
    tty: flag(query, 'tty'),
    stdin: flag(query, 'stdin'),
    ...(rows !== undefined && cols !== undefined ? { size: { rows, cols } } : {}),
  };
}
