/** The real API server and the real SocketClient over a real unix socket, with a fake ClusterService. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, type ApiServer } from '../../src/server/server.js';
import { MAX_BODY_BYTES, TASK_TOKEN_HEADER, type LogBatch, type LogLine } from '../../src/api/types.js';
import { SocketClient } from '../../src/client/socket-client.js';
import { FakeService } from './fake-service.js';
import { rejection } from '../helpers/refusal.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(
  socketPath: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Send raw bytes and collect whatever the server answers until it closes. */
function rawBytes(socketPath: string, data: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(data);
  });
}

/** Bind a unix socket in a child process that exits without unlinking it (a crashed cluster). */
function leaveDeadSocket(path: string): number | null {
  return spawnSync(process.execPath, [
    '-e',
    `require('net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`,
  ]).status;
}

let dir: string;
let socketPath: string;
let service: FakeService;
let server: ApiServer;
let logged: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-api-'));
  socketPath = join(dir, 'iris.sock');
  service = new FakeService();
  logged = [];
  server = createApiServer(service, {
    socketPath,
    version: '9.9.9',
    defaultUser: 'tester',
    defaultCwd: '/work',
    log: (m) => logged.push(m),
  });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('socket lifecycle', () => {
  it('creates the socket with mode 0600', async () => {
    const info = await stat(socketPath);
    expect(info.isSocket()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
  });

  it('refuses to start when a cluster answers on the socket', async () => {
    const second = createApiServer(new FakeService(), { socketPath, version: 'x' });
    const error = await rejection(second.listen());
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('already running');
    expect(await new SocketClient(socketPath, {}).ping()).toBe(true);
  });

  it('replaces a stale socket file that nothing answers on', async () => {
    await server.close();
    // Simulate a crashed cluster: a process binds the socket and exits without unlinking it.
    expect(leaveDeadSocket(socketPath)).toBe(0);
    expect((await stat(socketPath)).isSocket()).toBe(true);
    expect(await new SocketClient(socketPath, {}).ping()).toBe(false);
    server = createApiServer(service, { socketPath, version: '9.9.9' });
    await server.listen();
    expect(await new SocketClient(socketPath, {}).ping()).toBe(true);
  });

  it('refuses to replace a file that is not a socket', async () => {
    await server.close();
    await writeFile(socketPath, 'not a socket');
    server = createApiServer(service, { socketPath, version: 'x' });
    const error = await rejection(server.listen());
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('not a socket');
  });

  it('removes the socket on close and the client then reports unavailable', async () => {
    await server.close();
    await expect(stat(socketPath)).rejects.toThrow();
    const error = await rejection(new SocketClient(socketPath, {}).jobs());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`no iris cluster is running at ${socketPath}`);
    expect(error.hint).toBe('start one with `iris cluster start`');
  });

  it('close removes only its own socket, never one another server put at the same path', async () => {
    // The socket file is deleted, and another server listens at the same path.
    await rm(socketPath);
    const other = createApiServer(new FakeService(), { socketPath, version: 'other' });
    await other.listen();
    try {
      await server.close();
      expect((await stat(socketPath)).isSocket()).toBe(true);
      expect(await new SocketClient(socketPath, {}).ping()).toBe(true);
    } finally {
      await other.close();
    }
    await expect(stat(socketPath)).rejects.toThrow();
  });

  it('reports unavailable when the socket file is dead (ECONNREFUSED)', async () => {
    await server.close();
    expect(leaveDeadSocket(socketPath)).toBe(0);
    const error = await rejection(new SocketClient(socketPath, {}).cluster());
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('no iris cluster is running');
  });
});

describe('protocol errors', () => {
  it('answers 404 for an unknown route', async () => {
    const res = await raw(socketPath, 'GET', '/v1/nope');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'not_found',
        message: 'no such API route: /v1/nope',
        hint: 'see docs/api.md for the routes under /v1',
      },
    });
  });

  it('answers 405 for a wrong method, with Allow', async () => {
    const res = await raw(socketPath, 'DELETE', '/v1/jobs');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(JSON.parse(res.body).error.message).toContain('method DELETE is not allowed on /v1/jobs');
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await raw(socketPath, 'POST', '/v1/jobs', '{"command": [', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      error: { code: 'invalid_argument', message: 'request body is not valid JSON' },
    });
  });

  it('answers 413 for an oversized body without reading it all', async () => {
    // Declare 10 MiB but send only 64 KiB: the server must answer from the header alone.
    const head =
      `POST /v1/jobs HTTP/1.1\r\nHost: iris\r\nContent-Type: application/json\r\nContent-Length: ` +
      `${10 * 1024 * 1024}\r\n\r\n`;
    const answer = await rawBytes(socketPath, head + 'x'.repeat(64 * 1024));
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it('answers 413 for an oversized chunked body', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(
        { socketPath, method: 'POST', path: '/v1/jobs', agent: false, headers: { 'transfer-encoding': 'chunked' } },
        (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < MAX_BODY_BYTES * 2) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(res).toBe(413);
  });

  it('the client refuses oversized requests itself', async () => {
    const error = await rejection(
      new SocketClient(socketPath, {}).submit({ command: ['x'], env: { BIG: 'x'.repeat(MAX_BODY_BYTES) } }),
    );
    expect(error.code).toBe('payload_too_large');
  });

  it('answers 500 for a non-IrisError and logs the stack', async () => {
    service.boom = new TypeError('kaboom');
    const res = await raw(socketPath, 'GET', '/v1/workers');
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'internal', message: 'internal error: kaboom' } });
    expect(logged.join('')).toMatch(/GET \/v1\/workers: TypeError: kaboom\n\s+at /);
  });

  it('answers a malformed HTTP request with 400', async () => {
    const answer = await rawBytes(socketPath, 'THIS IS NOT HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });

  it('keeps serving after every kind of bad request', async () => {
    await raw(socketPath, 'POST', '/v1/jobs', '{{{');
    await raw(socketPath, 'GET', '/v1/unknown');
    await raw(socketPath, 'PUT', '/v1/cluster');
    await rawBytes(socketPath, `POST /v1/jobs HTTP/1.1\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\nabc`);
    await rawBytes(socketPath, 'garbage\r\n\r\n');
    service.boom = new Error('bug');
    await raw(socketPath, 'GET', '/v1/cluster');
    const socket = connect({ path: socketPath });
    socket.on('error', () => undefined);
    socket.destroy();
    const health = await raw(socketPath, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ ok: true, version: '9.9.9', pid: process.pid });
  });
});

describe('routes through the client', () => {
  it('submits with defaults and returns 201', async () => {
    const res = await raw(
      socketPath,
      'POST',
      '/v1/jobs',
      JSON.stringify({ name: 'train', command: ['python', 'train.py'], replicas: 2 }),
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ name: '/train', run: 1, tasks: 2, parent: null, generated: false });
    expect(service.specs[0]!.spec).toMatchObject({ user: 'tester', cwd: '/work', replicas: 2 });
    expect(service.specs[0]!.caller).toBeNull();
  });

  it('generates names and avoids taken ones', async () => {
    const client = new SocketClient(socketPath, {});
    const a = await client.submit({ command: ['true'] });
    expect(a.generated).toBe(true);
    expect(a.name).toMatch(/^\/[a-z]+-[a-z]+-\d{4}$/);
  });

  it('maps validation errors back to IrisError with code, message and hint', async () => {
    const client = new SocketClient(socketPath, {});
    const error = await rejection(client.submit({ command: ['x'], tpu: 'v9-1' }));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toContain('unknown TPU variant "v9-1"');
    expect(error.hint).toMatch(/known variants/);
    const reserved = await rejection(client.submit({ command: ['x'], env: { IRIS_TASK_ID: '1' } }));
    expect(reserved.message).toContain('IRIS_ variables are reserved');
    await client.submit({ name: 'dup', command: ['x'] });
    const dup = await rejection(client.submit({ name: 'dup', command: ['x'] }));
    expect([dup.code, dup.message, dup.hint]).toEqual(['conflict', 'job /dup already exists', 'pick another --name']);
  });

  it('a task token makes submissions children of the task job', async () => {
    service.tokens.set('tok-1', {
      task: '/train/task-0',
      job: '/train',
      attempt: 0,
      user: 'alice',
      env: { DATA: '/d' },
      rootSubmittedAt: 7,
    });
    const client = new SocketClient(socketPath, { IRIS_TASK_TOKEN: 'tok-1' });
    expect(await client.submit({ name: 'eval', command: ['python', 'eval.py'] })).toEqual({
      name: '/train/eval',
      run: 1,
      tasks: 1,
      parent: '/train',
      generated: false,
    });
    const { spec, caller } = service.specs[0]!;
    expect(spec).toMatchObject({ user: 'alice', env: { DATA: '/d' } });
    expect(caller?.task).toBe('/train/task-0');
    const outside = await rejection(client.submit({ name: '/other', command: ['x'] }));
    expect(outside.code).toBe('forbidden');
    expect(outside.message).toContain('a task may only create children under its own job /train');
  });

  it('passes history filters through and narrows a task caller to its own subtree', async () => {
    const owner = new SocketClient(socketPath);
    await owner.history({ prefix: 'h', user: 'bob', state: ['FAILED', 'KILLED'], since: 10, until: 20, limit: 5 });
    expect(service.historyQueries.at(-1)).toEqual({
      prefix: '/h',
      user: 'bob',
      state: ['FAILED', 'KILLED'],
      since: 10,
      until: 20,
      limit: 5,
    });
    const bad = await raw(socketPath, 'GET', '/v1/history?since=2h');
    expect(bad.status).toBe(400);
    expect((JSON.parse(bad.body) as { error: { message: string } }).error.message).toContain(
      'query parameter "since" must be a time in epoch milliseconds',
    );

    service.tokens.set('tok-h', {
      task: '/train/task-0',
      job: '/train',
      attempt: 0,
      user: 'alice',
      env: {},
      rootSubmittedAt: 7,
    });
    const task = new SocketClient(socketPath, { IRIS_TASK_TOKEN: 'tok-h' });
    await task.history();
    expect(service.historyQueries.at(-1)).toEqual({ prefix: '/train' });
    await task.history({ prefix: '/train/eval' });
    expect(service.historyQueries.at(-1)).toEqual({ prefix: '/train/eval' });
    const asked = service.historyQueries.length;
    expect(await task.history({ prefix: '/other' })).toEqual([]);
    expect(service.historyQueries).toHaveLength(asked);
  });

  it('an unknown task token is 403', async () => {
    const res = await raw(socketPath, 'POST', '/v1/jobs', JSON.stringify({ command: ['x'] }), {
      [TASK_TOKEN_HEADER]: 'bogus',
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error.code).toBe('forbidden');
    const error = await rejection(
      new SocketClient(socketPath, { IRIS_TASK_TOKEN: 'bogus' }).submit({ command: ['x'] }),
    );
    expect(error.code).toBe('forbidden');
  });

  it('lists, shows and cancels jobs', async () => {
    const client = new SocketClient(socketPath, {});
    await client.submit({ name: 'a', command: ['x'] });
    await client.submit({ name: 'b', command: ['x'] });
    expect((await client.jobs()).map((j) => j.name)).toEqual(['/a', '/b']);
    expect(
      (await client.jobs({ prefix: '/b', state: ['PENDING', 'RUNNING'], user: 'tester' })).map((j) => j.name),
    ).toEqual(['/b']);
    expect(service.lastFilter).toEqual({ prefix: '/b', state: ['PENDING', 'RUNNING'], user: 'tester' });
    expect((await client.job('a')).command).toEqual(['x']);
    const missing = await rejection(client.job('/nope'));
    expect([missing.code, missing.message, missing.hint]).toEqual([
      'not_found',
      'no job named /nope',
      'list jobs with `iris jobs`',
    ]);
    expect(await client.cancel(['/a', 'zzz'])).toEqual({ cancelled: ['/a'], alreadyEnded: [] });
  });

  it('validates query and body parameters', async () => {
    const badState = await raw(socketPath, 'GET', '/v1/jobs?state=PENDING,NOPE');
    expect(badState.status).toBe(400);
    expect(JSON.parse(badState.body).error.message).toContain('unknown job state "NOPE"');
    expect((await raw(socketPath, 'GET', '/v1/job')).status).toBe(400);
    expect(JSON.parse((await raw(socketPath, 'POST', '/v1/jobs/cancel', '{"names":[]}')).body).error.message).toContain(
      'names',
    );
    expect(JSON.parse((await raw(socketPath, 'POST', '/v1/workers/drain', '{}')).body).error.message).toContain(
      'name is required',
    );
    expect(JSON.parse((await raw(socketPath, 'GET', '/v1/logs')).body).error.message).toContain('"target" is required');
    expect(JSON.parse((await raw(socketPath, 'GET', '/v1/logs?target=/a&tail=-1')).body).error.message).toContain(
      '"tail"',
    );
  });

  it('cluster, workers, drain, resume', async () => {
    const client = new SocketClient(socketPath, {});
    expect((await client.cluster()).clusterId).toBe('c1');
    expect((await client.workers()).map((w) => w.id)).toEqual(['w0']);
    expect((await client.drain('w0')).state).toBe('DRAINING');
    expect((await rejection(client.drain('w9'))).code).toBe('not_found');
    expect((await client.resume('w0')).state).toBe('READY');
    expect((await rejection(client.resume('w9'))).code).toBe('not_found');
    expect(JSON.parse((await raw(socketPath, 'POST', '/v1/workers/resume', '{}')).body).error.message).toContain(
      'name is required',
    );
  });

  it('disable (with a reason) and enable', async () => {
    const client = new SocketClient(socketPath, {});
    expect(await client.disable('w0', 'disk check')).toMatchObject({
      state: 'DISABLED',
      disabled: { by: 'user', reason: 'disk check' },
    });
    expect((await rejection(client.disable('w9'))).code).toBe('not_found');
    expect((await client.enable('w0')).state).toBe('READY');
    expect((await rejection(client.enable('w9'))).code).toBe('not_found');
    expect(
      JSON.parse((await raw(socketPath, 'POST', '/v1/workers/disable', '{"name":"w0","reason":7}')).body).error.message,
    ).toContain('reason');
    expect(JSON.parse((await raw(socketPath, 'POST', '/v1/workers/enable', '{}')).body).error.message).toContain(
      'name is required',
    );
  });

  it('endpoints require a task token', async () => {
    const anonymous = await rejection(new SocketClient(socketPath, {}).registerEndpoint('db', 'localhost:5432'));
    expect(anonymous.code).toBe('forbidden');
    expect(anonymous.message).toContain('requires a task token');
    service.tokens.set('t', { task: '/svc/task-0', job: '/svc', attempt: 1, user: 'u', env: {}, rootSubmittedAt: 1 });
    const task = new SocketClient(socketPath, { IRIS_TASK_TOKEN: 't' });
    expect(await task.registerEndpoint('db', 'localhost:5432')).toMatchObject({
      name: 'db',
      task: '/svc/task-0',
      attempt: 1,
    });
    expect((await new SocketClient(socketPath, {}).endpoints('d')).map((e) => e.address)).toEqual(['localhost:5432']);
    expect(await new SocketClient(socketPath, {}).endpoints('x')).toEqual([]);
  });

  it('health and ping', async () => {
    const client = new SocketClient(socketPath, {});
    expect(await client.health()).toEqual({ ok: true, version: '9.9.9', pid: process.pid });
    expect(await client.ping()).toBe(true);
    expect(await new SocketClient(join(dir, 'none.sock'), {}).ping()).toBe(false);
  });

  it('stop responds after the service stopped, even when stop closes the server', async () => {
    service.onStop = () => server.close();
    await new SocketClient(socketPath, {}).stopCluster();
    expect(service.stopped).toBe(1);
    await expect(stat(socketPath)).rejects.toThrow();
  });
});

describe('NDJSON streams', () => {
  const line = (text: string, time = 1): LogBatch => ({
    task: '/a/task-0',
    attempt: 0,
    stream: 'stdout',
    times: [time, 1],
    text,
  });

  it('expands batches into lines, and reads the one-line items of an earlier controller', async () => {
    const client = new SocketClient(socketPath, {});
    service.logChannel.push({ task: '/a/task-0', attempt: 0, stream: 'stderr', times: [5, 2, 7, 1], text: 'a\n\nc' });
    const old: LogLine = { time: 9, task: '/a/task-1', attempt: 1, stream: 'stdout', text: 'old' };
    service.logChannel.push(old as unknown as LogBatch);
    service.logChannel.end();
    const got: LogLine[] = [];
    for await (const l of client.logs({ target: '/a' })) got.push(l);
    expect(got).toEqual([
      { time: 5, task: '/a/task-0', attempt: 0, stream: 'stderr', text: 'a' },
      { time: 5, task: '/a/task-0', attempt: 0, stream: 'stderr', text: '' },
      { time: 7, task: '/a/task-0', attempt: 0, stream: 'stderr', text: 'c' },
      old,
    ]);
  });

  it('streams logs until the service ends the stream, passing the query', async () => {
    const client = new SocketClient(socketPath, {});
    service.logChannel.push(line('one'));
    service.logChannel.push(line('two'));
    service.logChannel.end();
    const got: string[] = [];
    for await (const l of client.logs({ target: '/a', follow: true, tail: 10, since: 1700000000000, attempt: 2 }))
      got.push(l.text);
    expect(got).toEqual(['one', 'two']);
    expect(service.logQueries[0]).toEqual({ target: '/a', follow: true, tail: 10, since: 1700000000000, attempt: 2 });
  });

  it("counts a duration in since back from the server's own clock; takes epoch ms as they are", async () => {
    await server.close();
    server = createApiServer(service, { socketPath, version: '9.9.9', now: () => 1_800_000_000_000 });
    await server.listen();
    service.logChannel.end();
    for (const since of ['10m', '1700000000000']) {
      const res = await raw(socketPath, 'GET', `/v1/logs?target=/a&since=${since}`);
      expect(res.status).toBe(200);
    }
    expect(service.logQueries.map((q) => q.since)).toEqual([1_800_000_000_000 - 600_000, 1_700_000_000_000]);
    const bad = await raw(socketPath, 'GET', '/v1/logs?target=/a&since=soon');
    expect(bad.status).toBe(400);
    const { error } = JSON.parse(bad.body) as { error: { message: string } };
    expect(error.message).toBe('invalid query parameter "since" "soon"');
  });

  it('delivers items as they come and the abort ends the server-side iterator', async () => {
    const client = new SocketClient(socketPath, {});
    const controller = new AbortController();
    const got: string[] = [];
    const done = (async () => {
      for await (const l of client.logs({ target: '/a', follow: true }, controller.signal)) {
        got.push(l.text);
        if (got.length === 1) service.logChannel.push(line('second'));
        if (got.length === 2) controller.abort();
      }
    })();
    service.logChannel.push(line('first'));
    await done;
    expect(got).toEqual(['first', 'second']);
    await expect.poll(() => service.logChannel.closedCount).toBe(1);
  });

  it('breaking out of the loop disconnects and ends the server-side iterator', async () => {
    const client = new SocketClient(socketPath, {});
    service.eventChannel.push({ type: 'job', name: '/a', state: 'RUNNING', time: 1 });
    for await (const event of client.events()) {
      expect(event).toEqual({ type: 'job', name: '/a', state: 'RUNNING', time: 1 });
      break;
    }
    await expect.poll(() => service.eventChannel.closedCount).toBe(1);
  });

  it('a raw NDJSON response has one JSON object per line', async () => {
    service.logChannel.push(line('x'));
    service.logChannel.push(line('y'));
    service.logChannel.end();
    const res = await raw(socketPath, 'GET', '/v1/logs?target=a');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    expect(res.body.split('\n')).toEqual([JSON.stringify(line('x')), JSON.stringify(line('y')), '']);
    expect(service.logQueries[0]!.target).toBe('/a');
  });

  it('an immediate stream failure is a normal error response', async () => {
    const error = await rejection(
      (async () => {
        for await (const _ of new SocketClient(socketPath, {}).logs({ target: '/missing' })) void _;
      })(),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('no job or task named /missing');
  });

  it('closing the server ends open streams', async () => {
    const client = new SocketClient(socketPath, {});
    const done = (async () => {
      const got: unknown[] = [];
      for await (const e of client.events()) got.push(e);
      return got;
    })();
    await expect.poll(() => service.eventChannel.openCount).toBe(1);
    await server.close();
    expect(await done).toEqual([]);
    expect(service.eventChannel.closedCount).toBe(1);
  });

  it('an already-aborted signal yields nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const got: unknown[] = [];
    for await (const e of new SocketClient(socketPath, {}).events(controller.signal)) got.push(e);
    expect(got).toEqual([]);
  });
});

describe('doors', () => {
  const TRAIN = { task: '/train/task-0', job: '/train', attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 1 };
  let taskDoor: ApiServer;
  let taskSocket: string;
  beforeEach(async () => {
    taskSocket = join(dir, 'task.sock');
    taskDoor = createApiServer(service, {
      socketPath: taskSocket,
      door: 'task',
      version: '9.9.9',
      defaultUser: 'tester',
      log: (m) => logged.push(m),
    });
    await taskDoor.listen();
    service.tokens.set('tok-train', TRAIN);
    const owner = new SocketClient(socketPath, {});
    for (const name of ['train', 'train/kid', 'other']) await owner.submit({ name, command: ['x'] });
  });
  afterEach(async () => {
    await taskDoor.close();
  });

  it('the task door refuses every request without a token, with a hint; the owner door does not', async () => {
    for (const [method, path] of [
      ['GET', '/v1/health'],
      ['GET', '/v1/jobs'],
      ['POST', '/v1/jobs/cancel'],
      ['POST', '/v1/workers/drain'],
    ] as const) {
      const res = await raw(taskSocket, method, path, method === 'POST' ? '{}' : undefined);
      expect(res.status, `${method} ${path}`).toBe(403);
      const { error } = JSON.parse(res.body) as { error: { code: string; message: string; hint: string } };
      expect(error.message).toContain('is the task door: every request needs the task token');
      expect(error.hint).toContain('x-iris-task-token');
    }
    expect((await raw(socketPath, 'GET', '/v1/health')).status).toBe(200);
  });

  it("a token scopes listings, status, cancel, wait and logs to the task's subtree, on either door", async () => {
    for (const path of [taskSocket, socketPath]) {
      const task = new SocketClient(path, { IRIS_TASK_TOKEN: 'tok-train' });
      expect((await task.jobs()).map((j) => j.name)).toEqual(['/train', '/train/kid']);
      expect((await task.job('/train/kid')).name).toBe('/train/kid');
      for (const attempt of [
        task.job('/other'),
        task.task('/other/task-0'),
        task.cancel(['/train/task-0', '/other/task-1']),
        task.cancel(['/train/kid', '/other']),
        task.waitJobs({ jobs: ['/other'], timeout: '1s' }),
        task.logBatches({ target: '/other' })[Symbol.asyncIterator]().next(),
      ]) {
        const error = await rejection(attempt);
        expect(error.code).toBe('forbidden');
        expect(error.message).toMatch(
          /a task may only \w+( \w+)* jobs within its own job \/train; \/other(\/task-\d)? is outside it/,
        );
      }
    }
  });

  it("a task's event stream and worker view show only its subtree", async () => {
    const task = new SocketClient(taskSocket, { IRIS_TASK_TOKEN: 'tok-train' });
    for (const event of [
      { type: 'job', name: '/other', state: 'RUNNING', time: 1 },
      { type: 'worker', name: 'w0', state: 'DRAINED', time: 2 },
      { type: 'task', name: '/train/kid/task-0', state: 'RUNNING', time: 3 },
      { type: 'job', name: '/trainer', state: 'RUNNING', time: 4 },
    ] as const)
      service.eventChannel.push(event);
    service.eventChannel.end();
    const got: unknown[] = [];
    for await (const event of task.events()) got.push(event);
    expect(got).toEqual([{ type: 'task', name: '/train/kid/task-0', state: 'RUNNING', time: 3 }]);
    const [worker] = service.workers();
    service.workers = () => [{ ...worker!, runningTasks: ['/other/task-0', '/train/task-0'] }];
    expect((await task.workers()).map((w) => w.runningTasks)).toEqual([['/train/task-0']]);
    expect((await new SocketClient(socketPath, {}).workers()).map((w) => w.runningTasks)).toEqual([
      ['/other/task-0', '/train/task-0'],
    ]);
  });

  it("stop, drain, resume, disable, enable and the queue view are the owner's only", async () => {
    const task = new SocketClient(taskSocket, { IRIS_TASK_TOKEN: 'tok-train' });
    for (const attempt of [
      task.drain('w0'),
      task.resume('w0'),
      task.disable('w0'),
      task.enable('w0'),
      task.queue(),
      task.stopCluster(),
    ]) {
      const error = await rejection(attempt);
      expect([error.code, error.hint]).toEqual([
        'forbidden',
        'run the command from a shell outside the cluster\'s tasks (docs/api.md, "Doors")',
      ]);
    }
    expect(service.stopped).toBe(0);
  });
});
