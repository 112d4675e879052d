/**
 * The bounds of the API server's doors (src/server/server.ts with connection-guard.ts), on the
 * real server over a real unix socket with a fake ClusterService: one task token's requests in
 * progress are bounded (429, the others go on), a request whose headers or body never finish is
 * answered 408 and closed, and a stream that has arrived is never cut by those timeouts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, type ApiServer } from '../../src/server/server.js';
import { TASK_TOKEN_HEADER } from '../../src/api/types.js';
import { FakeService } from './fake-service.js';

const TASK_A = { task: '/a/task-0', job: '/a', attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 1 };
const TASK_B = { task: '/b/task-0', job: '/b', attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 2 };

let dir: string;
let socketPath: string;
let service: FakeService;
let server: ApiServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-bounds-'));
  socketPath = join(dir, 'tasks.sock');
  service = new FakeService();
  service.tokens.set('tok-a', TASK_A);
  service.tokens.set('tok-b', TASK_B);
  server = createApiServer(service, {
    socketPath,
    door: 'task',
    version: '9.9.9',
    log: () => undefined,
    limits: { perPeer: 2, headerTimeoutMs: 300, requestTimeoutMs: 600 },
  });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Open GET `path` with `token`; resolves with the request and the response once its headers came. */
function open(path: string, token: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, headers: { [TASK_TOKEN_HEADER]: token }, agent: false }, (res) =>
      resolve({ req, res }),
    );
    req.on('error', reject);
    req.end();
  });
}

async function answer(
  path: string,
  token: string,
): Promise<{ status: number; body: { error?: { code: string; message: string; hint?: string } } }> {
  const { res } = await open(path, token);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') };
}

/** Write `head`, then one byte every 50 ms (a slowloris); resolves with what came back and when the server closed. */
function trickle(head: string, byte: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ path: socketPath });
    const chunks: Buffer[] = [];
    const timer = setInterval(() => socket.write(byte), 50);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started });
    });
    socket.write(head);
  });
}

describe('bounds of a task door', () => {
  it('one token has at most per-peer requests in progress: the next is 429, another token goes on', async () => {
    const streams = [await open('/v1/events', 'tok-a'), await open('/v1/events', 'tok-a')];
    expect(streams.map((s) => s.res.statusCode)).toEqual([200, 200]);
    const refused = await answer('/v1/health', 'tok-a');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: 'quota_exceeded',
      message: `this task already has 2 requests in progress on this socket (${socketPath}), its bound`,
      hint:
        'end some of its `iris logs -f`, `iris wait` or `iris exec` calls first; the owner sets the bound with ' +
        'connections.per-peer',
    });
    expect((await answer('/v1/health', 'tok-b')).status).toBe(200);
    // A stream that ends gives its place back.
    const gone = new Promise((resolve) => streams[0]!.res.once('close', resolve));
    streams[0]!.req.destroy();
    await gone;
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await answer('/v1/health', 'tok-a')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(200);
    streams[1]!.req.destroy();
  });

  it('headers that never finish: 408 and the connection closed after the header timeout', async () => {
    const { text, ms } = await trickle('GET /v1/health HTTP/1.1\r\nx-slow: ', 'a');
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text).toContain(
      '"message":"the request did not arrive in time (its headers within 300ms, all of it within 600ms)"',
    );
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(5000);
  });

  it('a connection that never sends a byte is closed after the header timeout', async () => {
    const started = Date.now();
    const socket = connect({ path: socketPath });
    socket.on('error', () => undefined);
    const text = await new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (c: Buffer) => (got += c.toString('utf8')));
      socket.on('close', () => resolve(got));
    });
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('a body that never ends: 408 and the connection closed after the request timeout', async () => {
    const head =
      `POST /v1/jobs HTTP/1.1\r\nhost: iris\r\n${TASK_TOKEN_HEADER}: tok-a\r\ncontent-type: ` +
      `application/json\r\ncontent-length: 100000\r\n\r\n{`;
    const { text, ms } = await trickle(head, ' ');
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(5000);
    expect(service.specs).toEqual([]);
  });

  it('a stream that has arrived outlives both timeouts', async () => {
    const { req, res } = await open('/v1/events', 'tok-a');
    const received: string[] = [];
    res.setEncoding('utf8').on('data', (chunk: string) => received.push(chunk));
    // While it stays open, a body that never ends is cut: the timeouts were checked and the
    // stream, older than that request, was not cut by them.
    const cut = await trickle(
      `POST /v1/jobs HTTP/1.1\r\nhost: iris\r\n${TASK_TOKEN_HEADER}: tok-b\r\ncontent-length: 100000\r\n\r\n{`,
      ' ',
    );
    expect(cut.text).toMatch(/^HTTP\/1\.1 408/);
    expect(res.destroyed).toBe(false);
    const arrived = new Promise((resolve) => res.once('data', resolve));
    service.eventChannel.push({ type: 'job', name: '/a', state: 'RUNNING' } as never);
    await arrived;
    expect(received.join('')).toContain('"/a"');
    req.destroy();
  });
});
