/**
 * SocketTransport: HTTP+JSON to the cluster, the part of SocketClient (socket-client.ts) that
 * talks to the wire: over a unix socket, or over TCP to the task door's URL
 * (`IRIS_CONTROLLER_ADDRESS=http://HOST:PORT`, api/address.ts). One connection per request, no
 * http.Agent.
 *
 * Guarantees:
 * - an error response comes back as the IrisError the server threw (code, message, hint; an
 *   unknown code is 'internal'); a body that is not an error body names the HTTP status;
 * - a missing or dead socket is IrisError('unavailable') with a hint to start a cluster, a socket
 *   of another user IrisError('forbidden');
 * - the task token given to the constructor (IRIS_TASK_TOKEN) is sent on every request;
 * - a request body over maxBodyBytes (1 MiB; a pipeline's 16 MiB) is refused before anything is sent
 *   ('payload_too_large');
 * - `call` rejects with the signal's reason once its AbortSignal aborts, and with 'unavailable'
 *   past its timeout; `stream` yields NDJSON items and ends quietly when its signal aborts, and
 *   throws 'unavailable' when the cluster closes the stream early;
 * - `ask` and `stream` check every answer against its shape (api/responses.ts) before handing it
 *   on: an answer that is not JSON or not of the route's shape (`{}` to a submit: what answers
 *   there is not an iris cluster of this version) is IrisError('unavailable', exit 6) naming the
 *   address, the route and the first field at fault.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { IrisError, type ErrorCode } from '../model/errors.js';
import { formatDuration } from '../model/duration.js';
import type { ApiErrorBody } from '../api/types.js';
import { describeAddress, parseControllerAddress, type ControllerAddress } from '../api/address.js';
import { maxBodyBytes, TASK_TOKEN_HEADER } from '../api/types.js';
import { describeMismatch, type Shape } from '../api/shape.js';

// node:http through process.getBuiltinModule, not an ESM import: importing a builtin as ESM
// reads every export, and node:http's lazy `WebSocket`/`fetch` exports then load undici (~45 ms
// at every CLI start, docs/benchmarks.md "CLI start").
const { request } = process.getBuiltinModule('node:http');
const { createConnection } = process.getBuiltinModule('node:net');

const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'invalid_argument',
  'not_found',
  'conflict',
  'unsatisfiable',
  'quota_exceeded',
  'forbidden',
  'unavailable',
  'payload_too_large',
  'insufficient_storage',
  'internal',
]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Turn an error response body back into the IrisError the server threw. */
export function errorFromResponse(status: number, text: string): IrisError {
  try {
    const parsed = JSON.parse(text) as Partial<ApiErrorBody>;
    const error = parsed.error;
    if (error && typeof error.message === 'string') {
      const code =
        typeof error.code === 'string' && ERROR_CODES.has(error.code) ? (error.code as ErrorCode) : 'internal';
      const hint = typeof error.hint === 'string' ? error.hint : undefined;
      return new IrisError(code, error.message, hint, typeof error.field === 'string' ? error.field : undefined);
    }
  } catch {
    // not JSON: fall through
  }
  return new IrisError(
    'internal',
    `unexpected response from the iris cluster (HTTP ${status})${text ? `: ${text.slice(0, 200)}` : ''}`,
  );
}

export class SocketTransport {
  readonly address: ControllerAddress;
  /** Where the cluster is, as messages name it: the socket path, or the task door's URL. */
  readonly socketPath: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number | undefined;

  /**
   * `address`: a ControllerAddress, or a string read like IRIS_CONTROLLER_ADDRESS (a socket path,
   * or `http://HOST:PORT`); `token`: the task token to send (none outside a task); `timeoutMs`:
   * the default of `call`.
   */
  constructor(address: string | ControllerAddress, token: string | undefined, timeoutMs: number | undefined) {
    this.address = typeof address === 'string' ? parseControllerAddress(address) : address;
    this.socketPath = describeAddress(this.address);
    this.token = token;
    this.timeoutMs = timeoutMs;
  }

  /** GET /metrics: the Prometheus text (docs/api.md). */
  metrics(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = request(
        {
          ...this.connection(),
          path: '/metrics',
          method: 'GET',
          headers: { ...this.headers(undefined), accept: 'text/plain' },
        },
        (res) => {
          readAll(res).then(
            (text) => {
              const status = res.statusCode ?? 0;
              if (status < 200 || status >= 300) reject(errorFromResponse(status, text));
              else resolve(text);
            },
            (error: NodeJS.ErrnoException) => reject(this.connectionError(error)),
          );
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => reject(this.connectionError(error)));
      req.end();
    });
  }

  private headers(body: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (this.token) headers[TASK_TOKEN_HEADER] = this.token;
    return headers;
  }

  private connectionError(error: NodeJS.ErrnoException): IrisError {
    if (
      this.address.kind === 'tcp' &&
      (error.code === 'ECONNREFUSED' ||
        error.code === 'ENOTFOUND' ||
        error.code === 'EAI_AGAIN' ||
        error.code === 'EHOSTUNREACH' ||
        error.code === 'ETIMEDOUT')
    ) {
      return new IrisError(
        'unavailable',
        `no iris cluster answers at ${this.socketPath} (${error.code})`,
        'check that the controller runs and that its task door (task-door in its config) is reachable from here',
      );
    }
    if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT' || error.code === 'ENOTSOCK') {
      return new IrisError(
        'unavailable',
        `no iris cluster is running at ${this.socketPath}`,
        'start one with `iris cluster start`',
      );
    }
    if (error.code === 'EACCES') {
      return new IrisError(
        'forbidden',
        `no permission to connect to ${this.socketPath}`,
        'the cluster socket belongs to another user',
      );
    }
    return new IrisError(
      'unavailable',
      `lost the connection to the iris cluster at ${this.socketPath}: ${error.message}`,
      'check `iris cluster status`',
    );
  }

  /** One connection per request, closed after the answer; no http.Agent (~5 ms off a CLI's first request). */
  private connection(): { createConnection: () => ReturnType<typeof createConnection> } {
    const address = this.address;
    if (address.kind === 'tcp')
      return { createConnection: () => createConnection({ host: address.host, port: address.port }) };
    return { createConnection: () => createConnection(address.path) };
  }

  /** One JSON request/response exchange; `timeoutMs` null: none; an aborted `signal` rejects with its reason. */
  call<T>(
    method: 'GET' | 'POST',
    path: string,
    payload?: unknown,
    timeoutMs: number | null | undefined = this.timeoutMs,
    signal?: AbortSignal,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    const limit = maxBodyBytes(path.split('?')[0]!);
    if (body !== undefined && Buffer.byteLength(body) > limit) {
      return Promise.reject(
        new IrisError(
          'payload_too_large',
          `request body is larger than ${limit} bytes`,
          'send fewer or smaller values (for example a shorter env)',
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const req = request({ ...this.connection(), path, method, headers: this.headers(body) }, (res) => {
        readAll(res).then(
          (text) => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) return reject(errorFromResponse(status, text));
            if (text === '') return resolve(undefined as T);
            try {
              resolve(JSON.parse(text) as T);
            } catch {
              reject(this.nonsense(method, path, 'an answer that is not JSON'));
            }
          },
          (error: NodeJS.ErrnoException) => reject(this.connectionError(error)),
        );
      });
      req.on('error', (error: NodeJS.ErrnoException) =>
        reject(signal?.aborted ? abortReason(signal) : this.connectionError(error)),
      );
      if (signal) {
        const onAbort = () => {
          req.destroy();
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        req.once('close', () => signal.removeEventListener('abort', onAbort));
      }
      if (timeoutMs !== undefined && timeoutMs !== null) {
        req.setTimeout(timeoutMs, () => {
          req.destroy();
          reject(
            new IrisError(
              'unavailable',
              `the iris cluster at ${this.socketPath} did not answer within ` +
                `${formatDuration(timeoutMs, { style: 'short' })}`,
              'check `iris cluster status`',
            ),
          );
        });
      }
      req.end(body);
    });
  }

  /** `call`, then the answer checked against `shape` (api/responses.ts). */
  async ask<T>(
    shape: Shape<T>,
    method: 'GET' | 'POST',
    path: string,
    payload?: unknown,
    signal?: AbortSignal,
    timeoutMs?: number | null,
  ): Promise<T> {
    const answer = await this.call<unknown>(
      method,
      path,
      payload,
      timeoutMs === undefined ? this.timeoutMs : timeoutMs,
      signal,
    );
    return this.fit(shape, answer, method, path);
  }

  /** `value` when it fits `shape`, else IrisError('unavailable') naming the address, the route and the field. */
  private fit<T>(shape: Shape<T>, value: unknown, method: string, path: string): T {
    const mismatch = shape(value);
    if (mismatch === null) return value as T;
    throw this.nonsense(method, path, `an answer iris cannot use: ${describeMismatch(mismatch)}`);
  }

  private nonsense(method: string, path: string, what: string): IrisError {
    const route = path.split('?')[0];
    return new IrisError(
      'unavailable',
      `the cluster at ${this.socketPath} sent ${what} (${method} ${route})`,
      'what answers there is not an iris cluster of this version: check IRIS_HOME or IRIS_CONTROLLER_ADDRESS, and ' +
        '`iris cluster status`',
    );
  }

  /**
   * POST `path` asking to upgrade the connection to `protocol` (`iris exec`): the connection and
   * the bytes already read after the answer's head; a refusal is the server's IrisError.
   */
  upgrade(path: string, protocol: string): Promise<{ socket: Duplex; head: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = request({
        ...this.connection(),
        path,
        method: 'POST',
        headers: { ...this.headers(undefined), connection: 'Upgrade', upgrade: protocol },
      });
      req.once('upgrade', (_res, socket, head) => resolve({ socket, head }));
      req.once('response', (res) => {
        readAll(res).then(
          (text) => reject(errorFromResponse(res.statusCode ?? 0, text)),
          (error: NodeJS.ErrnoException) => reject(this.connectionError(error)),
        );
      });
      req.once('error', (error: NodeJS.ErrnoException) => reject(this.connectionError(error)));
      req.end();
    });
  }

  /** GET an NDJSON stream, each item checked against `shape`; ends quietly on abort, throws mapped errors otherwise. */
  protected async *stream<T>(path: string, shape: Shape<T>, signal?: AbortSignal): AsyncGenerator<T> {
    if (signal?.aborted) return;
    const req = request({ ...this.connection(), path, method: 'GET', headers: this.headers(undefined) });
    const onAbort = () => req.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        req.once('response', resolve);
        req.once('error', reject);
        req.end();
      }).catch((error: NodeJS.ErrnoException) => {
        if (signal?.aborted) return null;
        throw this.connectionError(error);
      });
      if (!res) return;
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) throw errorFromResponse(status, await readAll(res));
      // Items are cut at newlines on the bytes, so a big item costs one decode, not one per chunk.
      let held: Buffer[] = [];
      try {
        for await (const chunk of res as AsyncIterable<Buffer>) {
          let start = 0;
          for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
            const piece = chunk.subarray(start, nl);
            const line = (held.length === 0 ? piece : Buffer.concat([...held, piece])).toString('utf8').trim();
            held = [];
            start = nl + 1;
            if (line !== '') yield this.parseLine(line, path, shape);
          }
          if (start < chunk.length) held.push(chunk.subarray(start));
        }
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof IrisError) throw error;
        throw this.connectionError(error as NodeJS.ErrnoException);
      }
      if (signal?.aborted) return;
      if (!res.complete)
        throw new IrisError(
          'unavailable',
          `the iris cluster at ${this.socketPath} closed the stream`,
          'check `iris cluster status`',
        );
      const rest = Buffer.concat(held).toString('utf8').trim();
      if (rest !== '') yield this.parseLine(rest, path, shape);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
    }
  }

  private parseLine<T>(line: string, path: string, shape: Shape<T>): T {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw this.nonsense('GET', path, `a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
    }
    if (typeof value === 'object' && value !== null && 'error' in value && !('time' in value)) {
      const error = (value as ApiErrorBody).error;
      throw errorFromResponse(500, JSON.stringify({ error }));
    }
    return this.fit(shape, value, 'GET', path);
  }
}
