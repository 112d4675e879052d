/**
 * The task door on TCP (config `task-door`): the real API server on 127.0.0.1 and the real
 * SocketClient given `http://HOST:PORT`, with a fake ClusterService. Same token rule as the
 * socket task door: nothing is answered without a live task token, owner-only routes refuse a
 * task, and a task's submission becomes its child.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { createApiServer, type ApiServer } from '../../src/server/server.js';
import { SocketClient } from '../../src/client/socket-client.js';
import { FakeService } from './fake-service.js';
import { freePort } from '../helpers/free-port.js';
import { rejection } from '../helpers/refusal.js';

const TRAIN = { task: '/train/task-0', job: '/train', attempt: 0, user: 'alice', env: {}, rootSubmittedAt: 1 };

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { error?: { code: string; message: string; hint?: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

let service: FakeService;
let door: ApiServer;
let port: number;
let url: string;

beforeEach(async () => {
  service = new FakeService();
  service.tokens.set('tok-train', TRAIN);
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  door = createApiServer(service, {
    tcp: { host: '127.0.0.1', port },
    door: 'task',
    version: '9.9.9',
    defaultUser: 'tester',
    log: () => undefined,
  });
  await door.listen();
});

afterEach(async () => {
  await door.close();
});

describe('the task door on TCP', () => {
  it('refuses every request without a token, naming the address, with a hint', async () => {
    for (const path of ['/v1/health', '/v1/jobs', '/v1/cluster', '/metrics']) {
      const res = await get(port, path);
      expect(res.status, path).toBe(403);
      expect(res.body.error?.message).toBe(
        `this address (${url}) is the task door: every request needs the task token`,
      );
      expect(res.body.error?.hint).toContain('x-iris-task-token');
    }
    const client = new SocketClient({ socketPath: url, env: {} });
    expect(await client.ping()).toBe(false);
    expect((await rejection(client.jobs())).code).toBe('forbidden');
  });

  it('refuses a wrong token on every route', async () => {
    const client = new SocketClient({ socketPath: url, env: { IRIS_TASK_TOKEN: 'forged' } });
    for (const attempt of [() => client.health(), () => client.jobs(), () => client.submit({ command: ['true'] })]) {
      const error = await rejection(attempt());
      expect([error.code, error.message]).toEqual(['forbidden', 'unknown or expired task token']);
    }
    expect(service.specs).toEqual([]);
  });

  it('with the task token a task submits children under its own job and reads its subtree', async () => {
    const task = new SocketClient({ socketPath: url, env: { IRIS_TASK_TOKEN: 'tok-train' } });
    expect(await task.ping()).toBe(true);
    const child = await task.submit({ name: 'kid', command: ['true'] });
    expect(child.name).toBe('/train/kid');
    expect((await task.jobs()).map((j) => j.name)).toEqual(['/train/kid']);
  });

  it('the owner-only routes refuse a task over TCP', async () => {
    const task = new SocketClient({ socketPath: url, env: { IRIS_TASK_TOKEN: 'tok-train' } });
    const ownerOnly = [
      () => task.drain('w0'),
      () => task.resume('w0'),
      () => task.disable('w0'),
      () => task.enable('w0'),
      () => task.queue(),
      () => task.stopCluster(),
      () => task.prune({}),
      () => task.metrics(),
    ];
    for (const attempt of ownerOnly) {
      const error = await rejection(attempt());
      expect(error.code).toBe('forbidden');
      expect(error.message).toMatch(/for the cluster's owner only/);
    }
    expect(service.stopped).toBe(0);
  });

  it('an address in use is refused at listen, with a hint', async () => {
    const second = createApiServer(new FakeService(), {
      tcp: { host: '127.0.0.1', port },
      door: 'task',
      version: 'x',
      log: () => undefined,
    });
    const error = await rejection(second.listen());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`the task door's address 127.0.0.1:${port} is already in use`);
    expect(error.hint).toContain('task-door.listen');
  });

  it('a TCP address is never an owner door', () => {
    expect(() => createApiServer(service, { tcp: { host: '127.0.0.1', port }, version: 'x' })).toThrow(
      /only be the task door/,
    );
  });

  it('after close nothing answers, and the client says where it looked', async () => {
    await door.close();
    const error = await rejection(new SocketClient({ socketPath: url, env: { IRIS_TASK_TOKEN: 'tok-train' } }).jobs());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`no iris cluster answers at ${url} (ECONNREFUSED)`);
  });
});
