/**
 * The real API server on a real unix socket in a temporary directory, over the real
 * ControllerService and controller of a test harness (FakeRuntime): what the in-process server
 * tests share. `close()` stops the server and the harness and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllerService } from '../../src/server/controller-service.js';
import { type ApiServer, createApiServer } from '../../src/server/server.js';
import { type Harness, harness, workerSpec } from '../cluster/controller/helpers.js';

export interface InProcessServer {
  h: Harness;
  server: ApiServer;
  socketPath: string;
  close(): Promise<void>;
}

/** A harness with one worker `w1` of one CPU, served on `<tmp>/iris.sock` (prefix names the directory). */
export async function inProcessServer(prefix: string): Promise<InProcessServer> {
  const h = harness([workerSpec('w1', { cpuMillis: 1000 })]);
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const socketPath = join(dir, 'iris.sock');
  const service = new ControllerService(h.store, h.controller, {
    clusterId: 'c-test',
    socketPath,
    home: '/tmp',
    version: 'test',
    startedAt: 0,
    configPath: null,
    quotas: new Map(),
    requestStop: async () => {},
    now: h.clock.now,
    defaults: { timeLimitMs: null, maxPreemptions: 0, image: null },
  });
  const server = createApiServer(service, {
    socketPath,
    version: 'test',
    defaultUser: 'alice',
    defaultCwd: '/tmp',
    log: () => undefined,
  });
  await server.listen();
  const close = async (): Promise<void> => {
    await server.close();
    await h.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { h, server, socketPath, close };
}
