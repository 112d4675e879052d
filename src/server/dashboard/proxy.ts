/**
 * The dashboard's way to the cluster: a request the gate let through is sent on to the owner's
 * unix socket, and `/events` is the socket's event stream as server-sent events.
 *
 * Guarantees:
 * - only the gate's route (method and path exactly as checked) and the request's query reach the
 *   socket; of the browser's headers only content-type is passed on (never a cookie, never a task
 *   token: the page acts as the owner, and as nothing else), and a body at most MAX_BODY_BYTES;
 * - the answer (status, content type, body) comes back as the socket sent it, streamed as it
 *   arrives (`/v1/logs?follow=1` follows), with the dashboard's security headers and no-store;
 * - when the browser goes away, the request on the socket is ended (a followed log or the event
 *   stream stops there too); when the socket's answer ends or fails, the browser's does;
 * - `/events` turns each NDJSON line of `GET /v1/events?current=1` into one `data: LINE` event,
 *   sends a comment every HEARTBEAT_MS (so a dead browser is noticed), and ends when the
 *   cluster's stream ends (EventSource then reconnects after `retry`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES } from '../../api/types.js';
import { NO_STORE, SECURITY_HEADERS } from './pages.js';

const { request } = process.getBuiltinModule('node:http');

export const HEARTBEAT_MS = 15_000;
/** What EventSource waits before it reconnects. */
const RETRY_MS = 2000;

function unavailable(res: ServerResponse, message: string): void {
  if (res.destroyed || res.writableEnded) return; // the browser went away first
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    error: { code: 'unavailable', message, hint: 'check `iris cluster status`' },
  });
  res.writeHead(503, {
    ...SECURITY_HEADERS,
    ...NO_STORE,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** Send `req` (method and `path` with `search`) on to the socket and stream its answer back. */
export function proxyRequest(
  socketPath: string,
  req: IncomingMessage,
  res: ServerResponse,
  target: { method: string; path: string; search: string },
): void {
  const headers: Record<string, string> = {};
  const type = req.headers['content-type'];
  if (type) headers['content-type'] = type;
  const declared = Number(req.headers['content-length']);
  if (target.method === 'POST' && Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    const body = JSON.stringify({
      error: { code: 'payload_too_large', message: `request body is larger than ${MAX_BODY_BYTES} bytes` },
    });
    res.writeHead(413, { ...SECURITY_HEADERS, ...NO_STORE, 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
    req.resume();
    return;
  }
  const upstream = request({ socketPath, method: target.method, path: target.path + target.search, headers });
  const stop = (): void => {
    upstream.destroy();
  };
  res.on('close', stop);
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, {
      ...SECURITY_HEADERS,
      ...NO_STORE,
      'content-type': answer.headers['content-type'] ?? 'application/json; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
    answer.on('aborted', () => res.destroy());
  });
  upstream.on('error', (error) => unavailable(res, `the cluster did not answer: ${error.message}`));
  if (target.method === 'POST') {
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        upstream.destroy();
        res.destroy();
      }
    });
    req.pipe(upstream);
  } else {
    req.resume();
    upstream.end();
  }
}

/** `GET /events`: the socket's event stream as server-sent events (see the header). */
export function proxyEvents(socketPath: string, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const upstream = request({ socketPath, method: 'GET', path: '/v1/events?current=1' });
  let heartbeat: NodeJS.Timeout | null = null;
  const stop = (): void => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    upstream.destroy();
  };
  res.on('close', stop);
  upstream.on('error', (error) => {
    stop();
    unavailable(res, `the cluster's event stream did not answer: ${error.message}`);
  });
  upstream.on('response', (answer) => {
    if (answer.statusCode !== 200) {
      res.writeHead(answer.statusCode ?? 502, {
        ...SECURITY_HEADERS,
        ...NO_STORE,
        'content-type': answer.headers['content-type'] ?? 'application/json; charset=utf-8',
      });
      answer.pipe(res);
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      ...NO_STORE,
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${RETRY_MS}\n\n`);
    heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    let rest = '';
    answer.setEncoding('utf8');
    answer.on('data', (chunk: string) => {
      rest += chunk;
      let newline = rest.indexOf('\n');
      let room = true;
      while (newline >= 0) {
        const line = rest.slice(0, newline).trim();
        rest = rest.slice(newline + 1);
        if (line !== '') room = res.write(`data: ${line}\n\n`) && room;
        newline = rest.indexOf('\n');
      }
      // A browser that reads slowly holds the cluster's stream back, not this process's memory.
      if (!room) {
        answer.pause();
        res.once('drain', () => answer.resume());
      }
    });
    answer.on('end', () => {
      stop();
      res.end();
    });
    answer.on('error', () => {
      stop();
      res.destroy();
    });
  });
  upstream.end();
}
