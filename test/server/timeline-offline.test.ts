/**
 * The dashboard's data routes over a stopped cluster's saved state (server/offline.ts, served by an
 * API server without metrics, as the dashboard does): the timeline answers from the saved attempts;
 * the series, which lived in the stopped cluster's memory, is the offline `unavailable` error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../src/cluster/state/store.js';
import { openOffline, type OfflineCluster } from '../../src/server/offline.js';
import { createApiServer, type ApiServer } from '../../src/server/server.js';
import { STATE_FILE } from '../../src/api/lock-holder.js';
import { Clock, spec, start, workerSpec } from '../cluster/state/helpers.js';

function get(socketPath: string, route: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: 'GET', path: route, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
}

let home: string;
let offline: OfflineCluster;
let server: ApiServer;
let socket: string;

beforeEach(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'iris-timeline-offline-'));
  const clock = new Clock();
  const store = ClusterStore.open({ path: path.join(home, STATE_FILE), now: clock.now, reserveBytes: 0 });
  store.syncWorkers([workerSpec('w1'), workerSpec('w2')]);
  store.submit(spec('/done'));
  start(store, '/done/task-0', 'w1');
  clock.tick(100);
  store.finishAttempt('/done/task-0', 0, { kind: 'exited', exitCode: 0 });
  store.submit(spec('/left'));
  start(store, '/left/task-0', 'w2');
  store.close();
  offline = openOffline(home);
  socket = path.join(home, 'offline.sock');
  server = createApiServer(offline.service, { socketPath: socket, version: 'test', now: () => 5000 });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  offline.close();
  rmSync(home, { recursive: true, force: true });
});

describe('with the cluster stopped', () => {
  it('the timeline answers from the saved attempts', async () => {
    const r = await get(socket, '/v1/timeline?since=10s');
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body) as { from: number; to: number; attempts: Array<Record<string, unknown>> };
    expect(body.from).toBe(-5000);
    expect(body.to).toBe(5000);
    expect(body.attempts.map((a) => [a.task, a.worker, a.end])).toEqual([
      ['/left/task-0', 'w2', null],
      ['/done/task-0', 'w1', 1100],
    ]);
  });

  it('the metrics series is the offline unavailable error', async () => {
    const r = await get(socket, '/v1/metrics/series');
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({
      error: { code: 'unavailable', hint: 'start one with `iris cluster start`' },
    });
  });
});
