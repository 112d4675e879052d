/**
 * Low-level HTTP helpers for the API server: bounded body reading, JSON and error responses,
 * and NDJSON streaming with backpressure and disconnect-driven cancellation: while the socket
 * sends one item the next is made, and no further one until the socket took the first
 * ('drain'); nothing sent stays reachable, so a stream holds about two items in memory however
 * long it runs.
 * Error body format (docs/api.md): `{"error":{"code","message","hint?"}}` with IrisError.status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IrisError } from '../model/errors.js';
import type { ApiErrorBody } from '../api/types.js';

export type ErrorLogger = (message: string) => void;

/** Read the whole request body, refusing (413) as soon as it exceeds `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | null) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = (error: Error) =>
      finish(new IrisError('invalid_argument', `could not read the request body: ${error.message}`));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function tooLarge(limit: number): IrisError {
  return new IrisError(
    'payload_too_large',
    `request body is larger than ${limit} bytes`,
    'send fewer or smaller values (for example a shorter env)',
  );
}

/** Parse a JSON body; an empty body is `{}`. */
export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new IrisError('invalid_argument', 'request body is not valid JSON');
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** The wire form of any thrown value; non-IrisErrors become `internal` and are logged with their stack. */
export function errorBody(error: unknown, context: string, log: ErrorLogger): { status: number; body: ApiErrorBody } {
  if (error instanceof IrisError) return { status: error.status, body: { error: error.toJSON() } };
  const message = error instanceof Error ? error.message : String(error);
  log(`iris api: internal error in ${context}: ${error instanceof Error && error.stack ? error.stack : message}\n`);
  return { status: 500, body: { error: { code: 'internal', message: `internal error: ${message}` } } };
}

export function sendError(
  res: ServerResponse,
  error: unknown,
  context: string,
  log: ErrorLogger,
  headers: Record<string, string> = {},
): void {
  const { status, body } = errorBody(error, context, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, body, headers);
}

/**
 * Stream an async iterable as NDJSON. Headers go out with the first item, or after a short
 * delay when nothing comes, so an immediate failure (unknown target) still gets a proper
 * status. A failure after headers are sent is written as a final `{"error":...}` line.
 * The iterator ends when the client disconnects (the controller aborts; `return()` is called).
 */
export async function streamNdjson<T>(
  res: ServerResponse,
  open: (signal: AbortSignal) => AsyncIterable<T>,
  context: string,
  log: ErrorLogger,
  external?: AbortSignal,
): Promise<void> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  res.on('close', abort);
  external?.addEventListener('abort', abort, { once: true });
  const startHeaders = () => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
  };
  const headerTimer = setTimeout(startHeaders, 50);
  let iterator: AsyncIterator<T> | undefined;
  try {
    iterator = open(controller.signal)[Symbol.asyncIterator]();
    // Race the abort so a service that ignores its signal cannot pin a closed connection.
    let coming = nextOrAbort(iterator, controller.signal);
    while (!controller.signal.aborted) {
      const next = await coming;
      if (next.done || controller.signal.aborted) break;
      startHeaders();
      const room = res.write(JSON.stringify(next.value) + '\n');
      // The next item is made while the socket sends this one (one item ahead, no more).
      coming = nextOrAbort(iterator, controller.signal);
      coming.catch(() => undefined); // a failure is taken by the await above, later
      if (!room) await drained(res, controller.signal);
    }
    clearTimeout(headerTimer);
    startHeaders();
    if (!res.destroyed) res.end();
  } catch (error) {
    clearTimeout(headerTimer);
    if (controller.signal.aborted || res.destroyed) return;
    if (!res.headersSent) {
      sendError(res, error, context, log);
    } else {
      res.end(JSON.stringify(errorBody(error, context, log).body) + '\n');
    }
  } finally {
    clearTimeout(headerTimer);
    res.off('close', abort);
    external?.removeEventListener('abort', abort);
    controller.abort();
    // Not awaited: a generator's return() waits for a pending next() to settle.
    iterator?.return?.()?.catch(() => undefined);
  }
}

/**
 * The iterator's next item, or done when `signal` aborts first. The abort listener lives for one
 * call only: a Promise.race against one long-lived abort promise would keep every item ever
 * sent reachable (through that promise's reactions) until the stream ends.
 */
function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve({ done: true, value: undefined });
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
