/**
 * The bounds of one door (an HTTP server on a socket or a TCP address): how many connections it
 * keeps open, how many one peer address may hold, and what happens at a bound.
 *
 * Guarantees:
 * - the door never holds more than `cap` connections (one more for an instant, while the new
 *   one's room is made), and one peer address never more than `perPeer` (TCP only: a unix socket
 *   has no peer address Node can read);
 * - at a bound, room is made by closing the connection that has been idle longest: one whose
 *   request has not arrived yet (nothing or part of its headers) or that finished its last one.
 *   A connection with a request in progress (a stream, a long poll, a handler at work) is never
 *   closed for room; when every connection has one, the new connection is refused (closed at
 *   once). So a flood of idle connections cannot keep a working client out, and cannot make the
 *   door hold more descriptors than its cap;
 * - the server has an 'error' listener for its whole life: a failed accept (EMFILE, ENFILE) is
 *   logged, never thrown, and the server goes on accepting;
 * - each kind of event (a refusal, a closing for room, a failed accept) is logged at most once a
 *   minute, with how many happened since the last line, so a flood cannot fill the cluster log.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The bounds of one door (docs/configuration.md, "connections"). */
export interface DoorLimits {
  /** Connections the door keeps open. */
  maxConnections: number;
  /** Connections of one remote address (TCP door), and requests in progress of one task token. */
  perPeer: number;
  /** How long a connection may take to send a request's headers. */
  headerTimeoutMs: number;
  /** How long a request may take to arrive whole (headers and body). */
  requestTimeoutMs: number;
}

/** How often node:http looks for requests past a timeout of `ms`: every quarter of it, within 100 ms..5 s. */
const checkEvery = (ms: number): number => Math.min(5000, Math.max(100, Math.floor(ms / 4)));

/** How long an idle connection stays open after its last answer. */
export const KEEP_ALIVE_TIMEOUT_MS = 5000;

/**
 * node:http's server options for the timeouts: the headers within `headerTimeoutMs`, the whole
 * request within `requestTimeoutMs` (node:http then answers 408 through 'clientError'), checked
 * every quarter of the shorter one (100 ms..5 s). Neither applies once a request has arrived.
 */
export function serverTimeouts(limits: Pick<DoorLimits, 'headerTimeoutMs' | 'requestTimeoutMs'>) {
  return {
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: checkEvery(Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs)),
  };
}

/**
 * The end of a connection node:http gave up on, for a 'clientError' listener (node:http leaves the
 * socket to it): a last answer when none is under way, then the connection is closed for good,
 * also when the peer never closes its side or never reads.
 */
export function closeWith(socket: Duplex, status: string, contentType: string, body: string): void {
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const head =
    `HTTP/1.1 ${status}\r\ncontent-type: ${contentType}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  socket.end(head + body, () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** Is this 'clientError' a request that did not arrive within the header or request timeout? */
export const isLate = (error: NodeJS.ErrnoException): boolean => error.code === 'ERR_HTTP_REQUEST_TIMEOUT';

export interface GuardOptions {
  /** The door as log lines name it: `the task door (/home/u/.iris/tasks/iris.sock)`. */
  name: string;
  cap: number;
  /** Connections of one remote address; absent: no per-address bound (unix sockets). */
  perPeer?: number;
  /** The config key that moves `cap` (`connections.task-door`), named in the log lines. */
  capKey: string;
  log: (message: string) => void;
  /** Clock for the log's rate limit (default Date.now). */
  now?: () => number;
}

export interface ConnectionGuard {
  /** Open connections now, and those of each peer address. */
  counts(): { open: number; peers: Map<string, number> };
  /**
   * Close every connection but `keep`: at shutdown, after the grace for requests in progress. (A
   * connection that never sent a byte is not idle to node:http's closeIdleConnections, and would
   * hold server.close() until its header timeout.)
   */
  closeAll(keep: ReadonlySet<Socket>): void;
  /**
   * Count a connection node:http gave up (an upgrade: `iris exec`) as one with a request in
   * progress until it closes: it is never closed for room.
   */
  hold(socket: Socket): void;
}

/** How often each kind of log line may be written. */
export const GUARD_LOG_INTERVAL_MS = 60_000;

interface Entry {
  peer: string | null;
  /** Requests of this connection in progress (more than one only with pipelining). */
  busy: number;
}

/** `log(line)` at most once per interval; the next line says how many were left out. */
export function rateLimited(
  log: (message: string) => void,
  intervalMs: number,
  now: () => number,
): (line: string) => void {
  let last = -Infinity;
  let skipped = 0;
  return (line) => {
    const at = now();
    if (at - last < intervalMs) {
      skipped += 1;
      return;
    }
    last = at;
    const more = skipped > 0 ? ` (${skipped} more since the last such line)` : '';
    skipped = 0;
    log(`${line}${more}; logged at most once a minute`);
  };
}

export function guardConnections(server: Server, opts: GuardOptions): ConnectionGuard {
  const now = opts.now ?? Date.now;
  const entries = new Map<Socket, Entry>();
  /** Connections without a request in progress, the longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const idleByPeer = new Map<string, Set<Socket>>();
  const perPeer = new Map<string, number>();
  const refusedLog = rateLimited(opts.log, GUARD_LOG_INTERVAL_MS, now);
  const evictedLog = rateLimited(opts.log, GUARD_LOG_INTERVAL_MS, now);
  const acceptLog = rateLimited(opts.log, GUARD_LOG_INTERVAL_MS, now);

  const markIdle = (socket: Socket, entry: Entry): void => {
    idle.delete(socket);
    idle.add(socket);
    if (entry.peer === null) return;
    let set = idleByPeer.get(entry.peer);
    if (!set) idleByPeer.set(entry.peer, (set = new Set()));
    set.delete(socket);
    set.add(socket);
  };
  const markBusy = (socket: Socket, entry: Entry): void => {
    idle.delete(socket);
    if (entry.peer === null) return;
    const set = idleByPeer.get(entry.peer);
    set?.delete(socket);
    if (set?.size === 0) idleByPeer.delete(entry.peer);
  };
  /** Stop counting a connection (on its close, or at once when it is closed for room). */
  const forget = (socket: Socket): void => {
    const entry = entries.get(socket);
    if (!entry) return;
    entries.delete(socket);
    markBusy(socket, entry);
    if (entry.peer !== null) {
      const left = (perPeer.get(entry.peer) ?? 1) - 1;
      if (left > 0) perPeer.set(entry.peer, left);
      else perPeer.delete(entry.peer);
    }
  };
  const evict = (socket: Socket): void => {
    forget(socket);
    socket.destroy();
  };
  /** The longest idle connection of `set`, closed; false when there is none. */
  const evictOldest = (set: Set<Socket> | undefined): boolean => {
    const oldest = set?.values().next().value;
    if (oldest === undefined) return false;
    evict(oldest);
    return true;
  };

  server.on('connection', (socket: Socket) => {
    // A unix socket has no remote address; a TCP socket already reset may have lost its own.
    const peer = opts.perPeer === undefined ? null : (socket.remoteAddress ?? 'an unknown address');
    if (peer !== null && (perPeer.get(peer) ?? 0) >= opts.perPeer!) {
      if (!evictOldest(idleByPeer.get(peer))) {
        socket.destroy();
        refusedLog(
          `${opts.name}: refused a connection from ${peer}, ` +
            `which already has ${opts.perPeer} with a request in progress (connections.per-peer)`,
        );
        return;
      }
      evictedLog(
        `${opts.name}: ${peer} is at its bound of ${opts.perPeer} connections (connections.per-peer): ` +
          'closed its longest idle one',
      );
    }
    if (entries.size >= opts.cap) {
      if (!evictOldest(idle)) {
        socket.destroy();
        refusedLog(
          `${opts.name}: refused a connection: all ${opts.cap} connections have a request in progress ` +
            `(${opts.capKey})`,
        );
        return;
      }
      evictedLog(
        `${opts.name}: at its cap of ${opts.cap} connections (${opts.capKey}): ` +
          'closed the longest idle one to make room',
      );
    }
    const entry: Entry = { peer, busy: 0 };
    entries.set(socket, entry);
    if (peer !== null) perPeer.set(peer, (perPeer.get(peer) ?? 0) + 1);
    markIdle(socket, entry);
    socket.once('close', () => forget(socket));
  });

  server.on('request', (req, res) => {
    const socket = req.socket;
    const entry = entries.get(socket);
    if (!entry) return;
    entry.busy += 1;
    markBusy(socket, entry);
    res.once('close', () => {
      entry.busy -= 1;
      if (entry.busy === 0 && entries.get(socket) === entry && !socket.destroyed) markIdle(socket, entry);
    });
  });

  // For the server's whole life: an accept that fails (EMFILE: the process is out of descriptors)
  // must not become an uncaught 'error'. Errors before listening belong to listen() itself.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (!server.listening) return;
    acceptLog(
      `${opts.name}: could not accept a connection: ${error.code ?? error.message}; ` +
        'it was refused and the door goes on',
    );
  });

  return {
    counts: () => ({ open: entries.size, peers: new Map(perPeer) }),
    closeAll: (keep) => {
      for (const socket of [...entries.keys()]) if (!keep.has(socket)) evict(socket);
    },
    hold: (socket) => {
      const entry = entries.get(socket);
      if (!entry) return;
      entry.busy += 1;
      markBusy(socket, entry);
    },
  };
}
