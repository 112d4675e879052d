/**
 * The API server: node:http on a unix socket (or, for the task door only, on a TCP address),
 * exposing a ClusterService under /v1 (docs/api.md).
 *
 * Socket lifecycle: listen() refuses to start when something answers on the socket path
 * (another cluster), binds a private name and renames it over the path (replacing a stale socket
 * file that nothing answers on), and leaves the new socket with mode 0600. close() stops
 * accepting, removes the socket file only while the path is still the socket this server created
 * (same device and inode; never one another server has put there since), ends streams and
 * idle connections, waits (bounded) for in-flight requests — but not for a request whose
 * handler is itself waiting on close() (POST /v1/cluster/stop -> service.stop() -> close()) —
 * and then ends every other connection, one that never sent a byte included.
 *
 * Doors (docs/api.md): one server per socket, each with a role. On the `owner` door a request
 * without a token has full rights; on the `task` door every request must carry a live task token
 * (403 with a hint otherwise). On either door a request with a token acts as that task: the
 * token is checked before any handler runs, routes.ts confines the call to the task's subtree and
 * OWNER_ONLY routes refuse it.
 *
 * The TCP door (config `task-door`, docs/api.md "Doors"): the same server, routes and token check
 * on a TCP listen address instead of a socket file; it can only be a `task` door, so a request
 * without a valid task token is never served over the network. listen() refuses an address in
 * use ('unavailable', exit 6 of `cluster start`, like a busy metrics port); close() has no file
 * to remove.
 *
 * Robustness: every failure becomes a JSON error with the IrisError status; a non-IrisError is
 * a 500 with its stack on stderr; no bad request can stop the server.
 *
 * Bounds (docs/security.md, "Connections to the doors are bounded"): each door keeps at most
 * `limits.maxConnections` connections, the TCP door at most `limits.perPeer` per remote address
 * (connection-guard.ts: at a bound the longest idle connection is closed for room, and a new one
 * is refused only when every connection has a request in progress); one task token has at most
 * `limits.perPeer` requests in progress on a door (429 quota_exceeded past it). A request's
 * headers must arrive within `limits.headerTimeoutMs` and the whole request (its body too)
 * within `limits.requestTimeoutMs`, else 408 and the connection is closed. Once a request has
 * arrived nothing times it out: `logs -f`, `wait` and `/v1/events` stream as long as they need.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { chmod, lstat, mkdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { defaultUserName } from './os-user.js';
import { IrisError } from '../model/errors.js';
import { errorBody, parseJsonBody, readBody, sendError, sendJson, streamNdjson } from './http.js';
import { OWNER_ONLY, ROUTES, type Call, type MetricsEndpoints, type Method, type RouteContext } from './routes.js';
import type { ClusterService } from './cluster-service.js';
import { handleExecUpgrade } from './exec-route.js';
import { requireOwner, type Door, type TaskCaller } from '../model/caller.js';
import { maxBodyBytes, TASK_TOKEN_HEADER } from '../api/types.js';
import { formatControllerUrl, formatHostPort, type TcpAddress } from '../model/net-address.js';
import { formatDuration } from '../model/duration.js';
import { closeWith, guardConnections, isLate, serverTimeouts, type DoorLimits } from './connection-guard.js';
import {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_OWNER_CONNECTIONS,
  DEFAULT_PER_PEER,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TASK_DOOR_CONNECTIONS,
} from '../config/schema/connections.js';

// node:http and node:net through process.getBuiltinModule, not ESM imports: importing a builtin
// as ESM reads every export, and node:http's lazy `WebSocket`/`fetch` exports then load undici
// for the cluster's whole life (docs/benchmarks.md, "Memory"; client/socket-transport.ts does the same).
const { createServer } = process.getBuiltinModule('node:http');
const { connect } = process.getBuiltinModule('node:net');

export interface ApiServerOptions {
  /** The unix socket to serve on; exactly one of `socketPath` and `tcp`. */
  socketPath?: string;
  /** A TCP address to serve on instead (the task door of `task-door.listen`; requires door `task`). */
  tcp?: TcpAddress;
  /** Which door this socket is (default `owner`); `task` requires a task token on every request. */
  door?: Door;
  version: string;
  /** User for submissions without a `user` field (default: the OS user running the cluster). */
  defaultUser?: string;
  /** Working directory for submissions without `cwd` (default: process.cwd()). */
  defaultCwd?: string;
  /** Where internal errors are logged (default: stderr). */
  log?: (message: string) => void;
  /** How long close() waits for in-flight requests before cutting connections (default 5000 ms). */
  closeGraceMs?: number;
  /** What GET /metrics and GET /v1/metrics/density serve; absent: 404. */
  metrics?: MetricsEndpoints;
  /** The door's bounds (absent: the defaults of config/schema/connections.ts). */
  limits?: Partial<DoorLimits>;
  /** The clock the routes count "that long ago" from (default Date.now). */
  now?: () => number;
  /** What POST /v1/dashboard answers (the daemon's dashboard); absent: 503. */
  dashboard?: RouteContext['dashboard'];
}

export interface ApiServer {
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** Longest unix socket path Linux accepts (sun_path is 108 bytes including the NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;
/** Numbers the private bind names of the servers of this process. */
let bindCount = 0;

/** Does anything accept connections on this unix socket path? */
export function probeSocket(socketPath: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    const done = (alive: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    // A peer that accepts but never completes is still someone else's socket: treat as alive.
    const timer = setTimeout(() => done(true), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function createApiServer(service: ClusterService, opts: ApiServerOptions): ApiServer {
  const door: Door = opts.door ?? 'owner';
  if ((opts.socketPath === undefined) === (opts.tcp === undefined))
    throw new Error('createApiServer: give exactly one of socketPath and tcp');
  // Owner rights come from the socket file's mode; a TCP address has none, so it is a task door.
  if (opts.tcp && door !== 'task') throw new Error('createApiServer: a TCP address can only be the task door');
  /** The door as messages name it: `this socket (PATH)` or `this address (http://HOST:PORT)`. */
  const doorName = opts.tcp ? `this address (${formatControllerUrl(opts.tcp)})` : `this socket (${opts.socketPath})`;
  const log = opts.log ?? ((message: string) => void process.stderr.write(message));
  const closing = new AbortController();
  const inFlight = new Set<ServerResponse>();
  /** Requests that may be waiting on close() themselves; close() does not wait for them. */
  const exempt = new Set<ServerResponse>();
  let listening = false;
  let closed: Promise<void> | null = null;
  /** Device and inode of the socket file this server created. */
  let own: { dev: number; ino: number } | null = null;

  const ctx: RouteContext = {
    service,
    version: opts.version,
    defaultUser: opts.defaultUser ?? defaultUserName(),
    defaultCwd: opts.defaultCwd ?? process.cwd(),
    log,
    now: opts.now ?? Date.now,
    stream: (call, open, context) => streamNdjson(call.res, open, context, log, closing.signal),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.dashboard ? { dashboard: opts.dashboard } : {}),
  };

  const limits: DoorLimits = {
    maxConnections: door === 'owner' ? DEFAULT_OWNER_CONNECTIONS : DEFAULT_TASK_DOOR_CONNECTIONS,
    perPeer: DEFAULT_PER_PEER,
    headerTimeoutMs: DEFAULT_HEADER_TIMEOUT_MS,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    ...opts.limits,
  };
  /** Requests in progress of each task token on this door. */
  const tokenRequests = new Map<string, number>();

  const server = createServer(serverTimeouts(limits), (req, res) => {
    void handle(req, res);
  });
  const doorLabel =
    `${door === 'owner' ? 'the owner socket' : 'the task door'} ` +
    `(${opts.tcp ? formatHostPort(opts.tcp) : opts.socketPath})`;
  const guard = guardConnections(server, {
    name: doorLabel,
    cap: limits.maxConnections,
    capKey: door === 'owner' ? 'connections.owner' : 'connections.task-door',
    ...(opts.tcp ? { perPeer: limits.perPeer } : {}),
    log: (line) => log(`iris api: ${line}\n`),
  });
  // `iris exec` (POST /v1/exec) upgrades its connection; every other upgrade is refused there.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    void handleExecUpgrade(req, socket, head, {
      service,
      callerFor,
      holdToken: takeTokenSlot,
      holdConnection: (conn) => guard.hold(conn),
      owner: ctx.defaultUser,
      closing: closing.signal,
      log,
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const problem = isLate(error)
      ? new IrisError(
          'invalid_argument',
          `the request did not arrive in time (its headers within ${formatDuration(limits.headerTimeoutMs)}, ` +
            `all of it within ${formatDuration(limits.requestTimeoutMs)})`,
          'send the whole request at once; the owner sets these bounds with connections.header-timeout ' +
            'and connections.request-timeout',
        )
      : new IrisError('invalid_argument', `malformed HTTP request: ${error.message}`);
    const { status, body } = errorBody(problem, 'clientError', log);
    const line = isLate(error) ? '408 Request Timeout' : `${status} Bad Request`;
    closeWith(socket, line, 'application/json', JSON.stringify(body));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight.add(res);
    res.on('close', () => {
      inFlight.delete(res);
      exempt.delete(res);
    });
    if (closing.signal.aborted) res.setHeader('connection', 'close');
    const method = req.method ?? 'GET';
    let path = '/';
    let query = new URLSearchParams();
    try {
      const url = new URL(req.url ?? '/', 'http://iris');
      path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      query = url.searchParams;
    } catch {
      // unparsable URL: falls through to 404 on "/"
    }
    const context = `${method} ${path}`;
    try {
      const route = ROUTES[path];
      if (!route)
        throw new IrisError('not_found', `no such API route: ${path}`, 'see docs/api.md for the routes under /v1');
      const handler = route[method as Method];
      if (!handler) {
        const allowed = Object.keys(route).join(', ');
        // 405 has no ErrorCode of its own; the body carries invalid_argument.
        req.resume();
        sendJson(
          res,
          405,
          {
            error: {
              code: 'invalid_argument',
              message: `method ${method} is not allowed on ${path}`,
              hint: `use ${allowed}`,
            },
          },
          { allow: allowed },
        );
        return;
      }
      const caller = callerFor(req);
      if (caller) holdTokenSlot(req, res);
      const ownerOnly = OWNER_ONLY.get(`${method} ${path}`);
      if (ownerOnly) requireOwner(caller, ownerOnly);
      if (path === '/v1/cluster/stop') exempt.add(res);
      let bodyRead = false;
      const call: Call = {
        req,
        res,
        query,
        closing: closing.signal,
        body: async () => {
          bodyRead = true;
          return parseJsonBody(await readBody(req, maxBodyBytes(path)));
        },
        caller: () => caller,
      };
      const reply = await handler(call, ctx);
      if (!bodyRead) req.resume();
      if (reply && !res.headersSent && !res.destroyed)
        sendJson(res, reply.status, reply.body, closing.signal.aborted ? { connection: 'close' } : {});
    } catch (error) {
      if (res.destroyed) return;
      if (error instanceof IrisError && error.code === 'payload_too_large') {
        // Answer without reading the rest, then drop the connection: the body is not worth reading.
        res.once('finish', () => req.socket.end());
        sendError(res, error, context, log, { connection: 'close' });
        return;
      }
      req.resume();
      sendError(res, error, context, log, closing.signal.aborted ? { connection: 'close' } : {});
    }
  }

  /** Count the request against its token's bound until it ends; refuse it (429) past the bound. */
  function holdTokenSlot(req: IncomingMessage, res: ServerResponse): void {
    res.once('close', takeTokenSlot(req));
  }

  /** One of the request's token's slots, until the returned release is called (once); 429 past the bound. */
  function takeTokenSlot(req: IncomingMessage): () => void {
    const token = tokenOf(req)!;
    const held = tokenRequests.get(token) ?? 0;
    if (held >= limits.perPeer) {
      throw new IrisError(
        'quota_exceeded',
        `this task already has ${held} requests in progress on ${doorName}, its bound`,
        'end some of its `iris logs -f`, `iris wait` or `iris exec` calls first; the owner sets the bound with ' +
          'connections.per-peer',
      );
    }
    tokenRequests.set(token, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (tokenRequests.get(token) ?? 1) - 1;
      if (left > 0) tokenRequests.set(token, left);
      else tokenRequests.delete(token);
    };
  }

  function tokenOf(req: IncomingMessage): string | undefined {
    const header = req.headers[TASK_TOKEN_HEADER];
    return (Array.isArray(header) ? header[0] : header)?.trim();
  }

  function callerFor(req: IncomingMessage): TaskCaller | null {
    const token = tokenOf(req);
    if (!token) {
      if (door === 'owner') return null;
      throw new IrisError(
        'forbidden',
        `${doorName} is the task door: every request needs the task token`,
        'send IRIS_TASK_TOKEN in the x-iris-task-token header (the iris CLI inside a task does); the owner uses ' +
          "<home>/run/iris.sock on the controller's machine",
      );
    }
    const caller = service.callerForToken(token);
    if (!caller) {
      throw new IrisError(
        'forbidden',
        'unknown or expired task token',
        'IRIS_TASK_TOKEN is only valid while its task attempt runs; outside a task, unset IRIS_TASK_TOKEN',
      );
    }
    return caller;
  }

  async function listenTcp(address: TcpAddress): Promise<void> {
    const where = formatHostPort(address);
    await listenOnce(
      server,
      () => server.listen(address.port, address.host),
      (error) => {
        // Not 'conflict': a controller exiting with that code means "another holds this state directory" to the
        // launcher.
        if (error.code === 'EADDRINUSE')
          return new IrisError(
            'unavailable',
            `the task door's address ${where} is already in use`,
            'choose another port in task-door.listen, or stop what listens there',
          );
        if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
          return new IrisError(
            'invalid_argument',
            `cannot listen on ${where}: no such local address`,
            'use an address of this machine in task-door.listen, or 0.0.0.0 for every interface',
          );
        if (error.code === 'EACCES')
          return new IrisError(
            'unavailable',
            `no permission to listen on ${where}`,
            'use a port above 1023 in task-door.listen',
          );
        return error;
      },
    );
    listening = true;
  }

  async function listen(): Promise<void> {
    if (opts.tcp) return listenTcp(opts.tcp);
    const socketPath = opts.socketPath!;
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
      throw new IrisError(
        'invalid_argument',
        `socket path is too long (${Buffer.byteLength(socketPath)} bytes, at most ${MAX_SOCKET_PATH_BYTES}): ` +
          `${socketPath}`,
        'set IRIS_HOME to a shorter directory',
      );
    }
    await mkdir(dirname(socketPath), { recursive: true, mode: 0o700 });
    // The task door must be reachable by a container's unprivileged user (65534 by default):
    // its directory traversable (0711, not listable) and the socket 0666. That opens nothing on
    // the host, where the state directory above it is the owner's alone, and every request on
    // this door needs a live task token anyway (docs/security.md).
    if (door === 'task') await chmod(dirname(socketPath), 0o711);
    const existing = await lstat(socketPath).catch(() => null);
    if (existing) {
      if (!existing.isSocket()) {
        throw new IrisError(
          'conflict',
          `${socketPath} exists and is not a socket`,
          'move the file away, or set IRIS_HOME to another directory',
        );
      }
      if (await probeSocket(socketPath)) {
        throw new IrisError(
          'conflict',
          `an iris cluster is already running at ${socketPath}`,
          'stop it with `iris cluster stop`, or set IRIS_HOME to run another',
        );
      }
      // Stale: the rename below replaces it.
    }
    // Bind at a private name, then rename into place: Node unlinks a unix socket's bound path when
    // the server closes, and that path must never be one another server has taken over since.
    const bindPath = join(dirname(socketPath), `.${process.pid.toString(36)}${(bindCount++).toString(36)}.s`);
    if (Buffer.byteLength(bindPath) > MAX_SOCKET_PATH_BYTES) {
      throw new IrisError(
        'invalid_argument',
        `socket path is too long (${Buffer.byteLength(bindPath)} bytes, at most ${MAX_SOCKET_PATH_BYTES}): ${bindPath}`,
        'set IRIS_HOME to a shorter directory',
      );
    }
    await listenOnce(
      server,
      () => {
        // Create the socket owner-only from the start (umask), then make sure with chmod.
        let previousMask: number | null = null;
        try {
          previousMask = process.umask(0o177);
        } catch {
          previousMask = null; // umask is unavailable in worker threads; chmod below still applies
        }
        try {
          server.listen(bindPath);
        } finally {
          if (previousMask !== null) process.umask(previousMask);
        }
      },
      (error) => {
        if (error.code === 'EADDRINUSE')
          return new IrisError(
            'conflict',
            `socket ${socketPath} is already in use`,
            'is another iris cluster starting?',
          );
        if (error.code === 'EACCES')
          return new IrisError(
            'forbidden',
            `no permission to create ${socketPath}`,
            'check the permissions of IRIS_HOME',
          );
        return error;
      },
    );
    await chmod(bindPath, door === 'task' ? 0o666 : 0o600);
    await rename(bindPath, socketPath);
    const created = await lstat(socketPath);
    own = { dev: created.dev, ino: created.ino };
    listening = true;
  }

  /** Remove the socket file only if it is still ours (someone may have replaced it). */
  async function unlinkOwnSocket(): Promise<void> {
    if (opts.socketPath === undefined) return;
    const now = await lstat(opts.socketPath).catch(() => null);
    if (now && own && now.dev === own.dev && now.ino === own.ino) await unlink(opts.socketPath).catch(() => undefined);
  }

  function close(): Promise<void> {
    if (closed) return closed;
    closed = (async () => {
      closing.abort();
      if (!listening) return;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await unlinkOwnSocket();
      server.closeIdleConnections();
      const deadline = Date.now() + (opts.closeGraceMs ?? 5000);
      while ([...inFlight].some((res) => !exempt.has(res)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      server.closeIdleConnections();
      for (const res of inFlight) if (!exempt.has(res)) res.destroy();
      // Connections without a request (one that never sent a byte included) end now too.
      guard.closeAll(new Set([...exempt].map((res) => res.socket).filter((socket) => socket !== null)));
      // Exempt requests (cluster stop) finish on their own; their connection closes after the reply.
      const exemptLeft = [...exempt];
      if (exemptLeft.length === 0) await stopped;
      else void stopped;
      listening = false;
    })();
    return closed;
  }

  return { listen, close };
}

/** `start()` makes `server` listen; resolves once it does, or rejects with `mapError` of the listen error. */
function listenOnce(
  server: ReturnType<typeof createServer>,
  start: () => void,
  mapError: (error: NodeJS.ErrnoException) => Error,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(mapError(error));
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    start();
  });
}
