/**
 * The metrics port is bounded like the doors (every local user can reach it): at most its cap of
 * connections, the longest idle one closed for room, and headers that never finish cut after the
 * header timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { listenMetrics, type MetricsPort } from '../../../src/server/metrics/http-port.js';
import type { ClusterMetrics } from '../../../src/server/metrics/cluster-metrics.js';

const METRICS = {
  exposition: async () => ({ contentType: 'text/plain', text: 'iris_up 1\n' }),
} as unknown as ClusterMetrics;

let port: MetricsPort | null = null;
afterEach(async () => {
  await port?.close();
  port = null;
});

function idle(at: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: at });
    socket.on('error', () => undefined);
    // Reading (and dropping) what comes, so a last answer before the close does not hold the close back.
    socket.resume();
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('the metrics port', () => {
  it('keeps its cap by closing the longest idle connection, and cuts headers that never finish', async () => {
    const logged: string[] = [];
    port = await listenMetrics(METRICS, 0, {
      limits: { maxConnections: 2, headerTimeoutMs: 300, requestTimeoutMs: 300 },
      log: (l) => logged.push(l),
    });
    const first = await idle(port.port);
    const second = await idle(port.port);
    const third = await idle(port.port);
    await closed(first);
    expect(logged.join('\n')).toContain(
      'the metrics port (127.0.0.1:0): at its cap of 2 connections (connections.metrics)',
    );
    // The two left: one is cut by the header timeout, the other is still answered before it.
    second.write('GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n');
    const answer = await new Promise<string>((resolve) =>
      second.once('data', (c: Buffer) => resolve(c.toString('utf8'))),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*iris_up 1/);
    // The third sends nothing at all.
    await closed(third);
    second.destroy();
  });
});
