/**
 * The bounds of one door (src/server/connection-guard.ts) on real node:http servers: a cap that
 * closes the longest idle connection for room and refuses only when every connection is busy, a
 * per-address bound on TCP, a server that survives a failed accept, and a log that a flood cannot fill.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  guardConnections,
  rateLimited,
  serverTimeouts,
  type ConnectionGuard,
} from '../../src/server/connection-guard.js';
import { joined } from '../helpers/regex.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Door {
  server: Server;
  guard: ConnectionGuard;
  logged: string[];
  /** Answer every request held so far (requests for /hold; any other path is answered at once). */
  release(): void;
  heldCount(): number;
  connect(opts?: { localAddress?: string }): Promise<Socket>;
}

/** A server whose requests wait until release(); on a unix socket, or on 127.0.0.1 with `perPeer`. */
async function door(cap: number, perPeer?: number): Promise<Door> {
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/hold') held.push(() => res.end('ok'));
    else res.end('ok');
  });
  const logged: string[] = [];
  const guard = guardConnections(server, {
    name: 'the test door',
    cap,
    capKey: 'connections.test',
    log: (l) => logged.push(l),
    ...(perPeer ? { perPeer } : {}),
  });
  let address: { path: string } | { port: number; host: string };
  if (perPeer) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = { port: (server.address() as { port: number }).port, host: '127.0.0.1' };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'iris-guard-'));
    address = { path: join(dir, 's') };
    await new Promise<void>((resolve) => server.listen(address as { path: string }, resolve));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  }
  const sockets: Socket[] = [];
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    server.closeAllConnections();
    server.close();
  });
  return {
    server,
    guard,
    logged,
    release: () => held.splice(0).forEach((answer) => answer()),
    heldCount: () => held.length,
    connect: (opts = {}) =>
      new Promise((resolve, reject) => {
        const socket = connect({ ...address, ...opts } as unknown as NetConnectOpts);
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      }),
  };
}

const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

/** Send a request for `path` and resolve with the first bytes of the answer. */
function ask(socket: Socket, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
    socket.once('close', () => reject(new Error('closed before an answer')));
    socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);
  });
}

/** Wait until the server has seen `n` connections (a connect resolves before the server's accept runs). */
async function seen(d: Door, n: number): Promise<void> {
  while (d.guard.counts().open < n) await new Promise((resolve) => setImmediate(resolve));
}

describe('guardConnections', () => {
  it('at its cap closes the longest idle connection for each new one, and keeps the cap', async () => {
    const d = await door(5);
    const first: Socket[] = [];
    for (let i = 0; i < 5; i++) first.push(await d.connect());
    await seen(d, 5);
    const later: Socket[] = [];
    for (let i = 0; i < 3; i++) later.push(await d.connect());
    await Promise.all(first.slice(0, 3).map(closed));
    expect(first.map((s) => s.destroyed)).toEqual([true, true, true, false, false]);
    expect(d.guard.counts().open).toBe(5);
    // The survivors are served.
    expect(await ask(first[4]!)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('never closes a connection whose request is in progress; refuses the new one when all are busy', async () => {
    const d = await door(3);
    const busy: Socket[] = [];
    const answers: Promise<string>[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = await d.connect();
      busy.push(socket);
      answers.push(ask(socket, '/hold'));
    }
    // Wait until all three requests arrived (they are then busy).
    while (d.heldCount() < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await d.connect();
    await closed(refused);
    expect(busy.every((s) => !s.destroyed)).toBe(true);
    expect(d.logged.join('\n')).toMatch(
      joined(
        /the test door: refused a connection: all 3 connections have a requ/,
        /est in progress \(connections\.test\); logged at most once a minute/,
      ),
    );
    d.release();
    for (const answer of answers) expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    // Busy no more: idle again, so a new connection makes room by closing the longest idle one.
    await d.connect();
    await closed(busy[0]!);
  });

  it("bounds each remote address on TCP, closing that address's own longest idle connection", async () => {
    const d = await door(100, 2);
    const a: Socket[] = [];
    for (let i = 0; i < 3; i++) a.push(await d.connect({ localAddress: '127.0.0.1' }));
    await closed(a[0]!);
    const b = [await d.connect({ localAddress: '127.0.0.2' }), await d.connect({ localAddress: '127.0.0.2' })];
    await seen(d, 4);
    expect(d.guard.counts().peers).toEqual(
      new Map([
        ['127.0.0.1', 2],
        ['127.0.0.2', 2],
      ]),
    );
    // Another address's connections were not touched: both of them, and a's last two, are served.
    for (const socket of [...b, a[1]!, a[2]!]) expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200/);
    expect(d.logged.join('\n')).toContain(
      '127.0.0.1 is at its bound of 2 connections (connections.per-peer): closed its longest idle one',
    );
  });

  it('a failed accept is logged, not thrown', async () => {
    const d = await door(5);
    const error = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' });
    expect(() => d.server.emit('error', error)).not.toThrow();
    expect(d.logged).toEqual([
      'the test door: could not accept a connection: EMFILE; it was refused and the door goes on; logged at most ' +
        'once a minute',
    ]);
    expect(await ask(await d.connect())).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('rateLimited', () => {
  it('writes the first line, swallows the rest for the interval, then says how many it left out', () => {
    let now = 0;
    const lines: string[] = [];
    const log = rateLimited(
      (l) => lines.push(l),
      60_000,
      () => now,
    );
    log('a');
    log('b');
    log('c');
    now = 59_999;
    log('d');
    now = 60_000;
    log('e');
    expect(lines).toEqual([
      'a; logged at most once a minute',
      'e (3 more since the last such line); logged at most once a minute',
    ]);
  });
});

describe('serverTimeouts', () => {
  it('checks every quarter of the shorter timeout, within 100 ms and 5 s', () => {
    expect(serverTimeouts({ headerTimeoutMs: 10_000, requestTimeoutMs: 30_000 })).toEqual({
      keepAliveTimeout: 5000,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 2500,
    });
    expect(serverTimeouts({ headerTimeoutMs: 100, requestTimeoutMs: 200 }).connectionsCheckingInterval).toBe(100);
    expect(serverTimeouts({ headerTimeoutMs: 60_000, requestTimeoutMs: 60_000 }).connectionsCheckingInterval).toBe(
      5000,
    );
  });
});
