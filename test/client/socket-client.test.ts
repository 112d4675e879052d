/**
 * IrisClient.wait and stopCluster({ wait }) over a real unix socket: the real API server with a fake service, or a
 * stand-in cluster process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../src/server/server.js';
import { SocketClient } from '../../src/client/socket-client.js';
import { IrisError } from '../../src/model/errors.js';
import { FakeService } from '../server/fake-service.js';
import { rejection } from '../helpers/refusal.js';

let dir: string;
let socketPath: string;
let service: FakeService;
let server: ApiServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-client-'));
  socketPath = join(dir, 'iris.sock');
  service = new FakeService();
  server = createApiServer(service, {
    socketPath,
    version: '9.9.9',
    defaultUser: 'tester',
    defaultCwd: '/work',
    log: () => undefined,
  });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const errorOf = (promise: Promise<unknown>): Promise<unknown> => rejection(promise, Error);

describe('wait', () => {
  it('returns a job that has already ended, in one request to the wait route', async () => {
    const client = new SocketClient(socketPath, {});
    await client.submit({ command: ['true'], name: 'done' });
    service.jobStates.set('/done', 'SUCCEEDED');
    expect(await client.wait('/done')).toMatchObject({ name: '/done', state: 'SUCCEEDED' });
    expect(service.waitCalls.map((c) => c.query)).toEqual([{ jobs: ['/done'], any: false, timeoutMs: 10 * 60_000 }]);
    expect(service.waitsOpen).toBe(0);
  });

  it('wakes when the job ends, not on other jobs', async () => {
    const client = new SocketClient(socketPath, {});
    await client.submit({ command: ['true'], name: 'a' });
    await client.submit({ command: ['true'], name: 'b' });
    const waiting = client.wait('/a');
    await until(() => service.waitsOpen === 1);
    service.setJobState('/a', 'RUNNING');
    service.setJobState('/b', 'FAILED');
    expect(service.waitsOpen).toBe(1);
    service.setJobState('/a', 'FAILED');
    expect(await waiting).toMatchObject({ name: '/a', state: 'FAILED' });
    expect(service.waitCalls).toHaveLength(1);
  });

  it('asks again when a long poll times out', async () => {
    const client = new SocketClient({ socketPath, env: {}, longPollMs: 20 });
    await client.submit({ command: ['true'], name: 'a' });
    const waiting = client.wait('/a');
    await until(() => service.waitCalls.length >= 3);
    service.setJobState('/a', 'SUCCEEDED');
    expect(await waiting).toMatchObject({ name: '/a', state: 'SUCCEEDED' });
    expect(service.waitCalls.every((c) => c.query.timeoutMs === 20)).toBe(true);
  });

  it('waits for several jobs: all of them, or any one; a timeout answers done: false', async () => {
    const client = new SocketClient(socketPath, {});
    await client.submit({ command: ['true'], name: 'a' });
    await client.submit({ command: ['true'], name: 'b' });
    service.setJobState('/a', 'SUCCEEDED');
    const any = await client.waitJobs({ jobs: ['a', '/b'], any: true });
    expect(any.done).toBe(true);
    expect(any.jobs.map((j) => [j.name, j.state])).toEqual([
      ['/a', 'SUCCEEDED'],
      ['/b', 'PENDING'],
    ]);
    const timedOut = await client.waitJobs({ jobs: ['/a', '/b'], timeout: '50ms' });
    expect(timedOut.done).toBe(false);
    expect(service.waitCalls.at(-1)!.query).toEqual({ jobs: ['/a', '/b'], any: false, timeoutMs: 50 });
  });

  it(
    "rejects with the abort reason and ends the wait on the server; the server's error for an unknown " + 'job',
    async () => {
      const client = new SocketClient(socketPath, {});
      await client.submit({ command: ['true'], name: 'a' });
      const ac = new AbortController();
      const waiting = errorOf(client.wait('/a', ac.signal));
      await until(() => service.waitsOpen === 1);
      ac.abort(new Error('stop waiting'));
      expect(((await waiting) as Error).message).toBe('stop waiting');
      await until(() => service.waitsClosed === 1);
      const unknown = await errorOf(client.wait('/nope'));
      expect(unknown).toBeInstanceOf(IrisError);
      expect((unknown as IrisError).code).toBe('not_found');
    },
  );

  it('says the cluster is unavailable when it stops during the wait', async () => {
    const client = new SocketClient(socketPath, {});
    await client.submit({ command: ['true'], name: 'a' });
    const waiting = errorOf(client.wait('/a'));
    await until(() => service.waitsOpen === 1);
    await server.close();
    const error = (await waiting) as IrisError;
    expect(error).toBeInstanceOf(IrisError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('stopping');
  });
});

/** A stand-in cluster process: answers health with its pid; on stop it answers, closes its socket and exits. */
function standIn(path: string): Promise<ChildProcess> {
  const script = `
    const http = require('node:http');
    const server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/health') return res.end(JSON.stringify({ ok: true, version: 'x', pid: process.pid }));
      if (req.url === '/v1/cluster/stop') {
        res.end('{}');
        return setTimeout(() => server.close(() => setTimeout(() => process.exit(0), 100)), 50);
      }
      res.statusCode = 404;
      res.end('{"error":{"code":"not_found","message":"no"}}');
    });
    server.listen(process.argv[1], () => process.stdout.write('ready\\n'));`;
  const child = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}`)));
  });
}

describe('stopCluster', () => {
  it('stops and gives the pid; with wait, returns once the socket is gone and the process has exited', async () => {
    service.onStop = () => server.close();
    expect(await new SocketClient(socketPath, {}).stopCluster()).toEqual({ pid: process.pid });
    expect(service.stopped).toBe(1);

    const path = join(dir, 'standin.sock');
    const child = await standIn(path);
    let exited = false;
    child.once('exit', () => (exited = true));
    const result = await new SocketClient(path, {}).stopCluster({ wait: true, timeoutMs: 10_000 });
    expect(result).toEqual({ pid: child.pid });
    expect(await new SocketClient(path, {}).ping()).toBe(false);
    await until(() => exited);
  });

  it('with wait, gives up after the timeout while the process lives on', async () => {
    // The fake cluster's pid is this test process: it never exits.
    service.onStop = () => server.close();
    const error = (await errorOf(
      new SocketClient(socketPath, {}).stopCluster({ wait: true, timeoutMs: 200 }),
    )) as IrisError;
    expect(error).toBeInstanceOf(IrisError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`the cluster (pid ${process.pid}) did not stop within 200ms`);
    expect(error.hint).toBe(`check it with \`iris cluster status\`, or kill it with \`kill ${process.pid}\``);
  });
});
