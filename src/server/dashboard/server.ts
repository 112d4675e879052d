/**
 * The dashboard's HTTP server (docs/api.md, "The dashboard"): node:http on a TCP address
 * (loopback by default) serving the page's build, the login exchange, the allowlisted owner API
 * routes (proxied to the owner's unix socket) and the event stream.
 *
 * Guarantees:
 * - every request passes the gate (gate.ts: Host, session, allowlist, CSRF) before anything else
 *   happens; `GET /login?token=T` with a valid one-time token (sessions.ts) sets the session
 *   cookie (HttpOnly, SameSite=Strict, Path=/) and redirects (303) to `/`; an invalid, used or
 *   expired token is a 403 page;
 * - the page can do no more than the owner's socket does for the allowlisted routes: the proxy
 *   (proxy.ts) sends exactly the route the gate checked;
 * - connections are bounded (connection-guard.ts: at most DASHBOARD_CONNECTIONS; each open one
 *   may also hold one connection to the owner's socket), requests must arrive within the
 *   header and request timeouts, and a bad request never stops the server;
 * - listen() with port 0 takes a free port; the address (and so the URL) is then fixed until
 *   close(), which ends every connection (streams included).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IrisError } from '../../model/errors.js';
import { formatHostPort } from '../../model/net-address.js';
import { DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from '../../config/schema/connections.js';
import { closeWith, guardConnections, serverTimeouts } from '../connection-guard.js';
import { DASHBOARD_HEADER, SESSION_COOKIE, gate, isLoopbackHost, sessionCookie, type ListenAddress } from './gate.js';
import { createSessionStore, type SessionStore } from './sessions.js';
import { DEFAULT_WEB_ROOT, LOGIN_REFUSED, NO_SESSION, NO_STORE, htmlPage, send, sendBuildFile } from './pages.js';
import { proxyEvents, proxyRequest } from './proxy.js';

const { createServer } = process.getBuiltinModule('node:http');

/** Connections the dashboard keeps open (a few browser tabs need a handful each). */
export const DASHBOARD_CONNECTIONS = 64;

export interface DashboardServerOptions {
  /** The owner API socket the /v1 routes and /events are proxied to. */
  socketPath: string;
  /** Where to listen; port 0: a free port. */
  listen: ListenAddress;
  /** The page's build (default dist/web next to this module). */
  webRoot?: string;
  log?: (line: string) => void;
  sessions?: SessionStore;
  /**
   * Set when the socket serves a stopped cluster's saved state (offline.ts): what the page is told.
   * Then GET /v1/cluster and /events answer 503 `unavailable` with it (nothing runs, nothing
   * changes), which is how the page knows to show the read-only view.
   */
  readOnly?: string;
}

export interface DashboardServer {
  /** Starts listening; resolves with the address taken. */
  listen(): Promise<ListenAddress>;
  /** The address listened on (the port chosen, after listen()). */
  address(): ListenAddress;
  /** `http://HOST:PORT/`. */
  url(): string;
  /** A login link with a fresh one-time token. */
  loginUrl(): string;
  /** Without loopback: the warning the owner must see (anyone reaching it with a link is the owner). */
  warning(): string | undefined;
  close(): Promise<void>;
}

/** The warning for a dashboard on a non-loopback address, or undefined on loopback. */
export function exposureWarning(listen: ListenAddress): string | undefined {
  if (isLoopbackHost(listen.host)) return undefined;
  return (
    `the dashboard listens on ${formatHostPort(listen)}, not a loopback address: anyone who can reach it ` +
    "and holds a login link gets the owner's rights over this cluster"
  );
}

/** The host a URL names for `listen` (a wildcard address is reached on loopback here). */
function urlHost(listen: ListenAddress): string {
  const host =
    listen.host === '0.0.0.0' || listen.host === '' ? '127.0.0.1' : listen.host === '::' ? '::1' : listen.host;
  return formatHostPort({ host, port: listen.port });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function createDashboardServer(opts: DashboardServerOptions): DashboardServer {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const sessions = opts.sessions ?? createSessionStore();
  const webRoot = opts.webRoot ?? DEFAULT_WEB_ROOT;
  let address: ListenAddress = { ...opts.listen };
  let closed: Promise<void> | null = null;
  const limits = { headerTimeoutMs: DEFAULT_HEADER_TIMEOUT_MS, requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS };
  const server = createServer(serverTimeouts(limits), (req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      log(`iris dashboard: internal error: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    }
  });
  const guard = guardConnections(server, {
    name: 'the dashboard',
    cap: DASHBOARD_CONNECTIONS,
    perPeer: DASHBOARD_CONNECTIONS,
    capKey: 'a fixed bound',
    log: (line) => log(`iris dashboard: ${line}`),
  });
  server.on('clientError', (_error, socket) => closeWith(socket, '400 Bad Request', 'text/plain', 'bad request\n'));

  function handle(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://dashboard');
    } catch {
      send(res, 400, 'text/plain; charset=utf-8', 'bad request\n');
      return;
    }
    const method = req.method ?? 'GET';
    const decision = gate(
      {
        method,
        path: url.pathname,
        host: header(req, 'host'),
        origin: header(req, 'origin'),
        dashboardHeader: header(req, DASHBOARD_HEADER),
        session: sessions.valid(sessionCookie(header(req, 'cookie'))),
      },
      address,
    );
    switch (decision.kind) {
      case 'refuse': {
        req.resume();
        if (decision.format === 'json') {
          const body = { error: { code: decision.code, message: decision.message, hint: decision.hint } };
          send(res, decision.status, 'application/json; charset=utf-8', JSON.stringify(body), { ...NO_STORE });
        } else if (decision.format === 'html') {
          const page =
            decision.status === 401 ? NO_SESSION : htmlPage('iris dashboard', [decision.message, decision.hint]);
          send(res, decision.status, 'text/html; charset=utf-8', page, { ...NO_STORE });
        } else {
          send(res, decision.status, 'text/plain; charset=utf-8', `${decision.message}\n`, { ...NO_STORE });
        }
        return;
      }
      case 'login': {
        req.resume();
        const secret = sessions.redeem(url.searchParams.get('token') ?? '');
        if (secret === null) {
          send(res, 403, 'text/html; charset=utf-8', LOGIN_REFUSED, { ...NO_STORE });
          return;
        }
        send(res, 303, 'text/plain; charset=utf-8', 'logged in\n', {
          ...NO_STORE,
          location: '/',
          'set-cookie': `${SESSION_COOKIE}=${secret}; HttpOnly; SameSite=Strict; Path=/`,
        });
        return;
      }
      case 'page':
        req.resume();
        void sendBuildFile(res, webRoot, 'index.html');
        return;
      case 'asset':
        req.resume();
        void sendBuildFile(res, webRoot, decision.file);
        return;
      case 'events':
        if (opts.readOnly) stopped(req, res, opts.readOnly);
        else proxyEvents(opts.socketPath, req, res);
        return;
      case 'api':
        if (opts.readOnly && url.pathname === '/v1/cluster') stopped(req, res, opts.readOnly);
        else proxyRequest(opts.socketPath, req, res, { method, path: url.pathname, search: url.search });
        return;
    }
  }

  /** The read-only view's answer to a question only a running cluster answers. */
  function stopped(req: IncomingMessage, res: ServerResponse, message: string): void {
    req.resume();
    const body = JSON.stringify({
      error: { code: 'unavailable', message, hint: 'start the cluster with `iris cluster start` for the live view' },
    });
    send(res, 503, 'application/json; charset=utf-8', body, { ...NO_STORE });
  }

  async function listen(): Promise<ListenAddress> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        server.off('listening', onListening);
        const where = formatHostPort(opts.listen);
        if (error.code === 'EADDRINUSE')
          reject(
            new IrisError(
              'unavailable',
              `the dashboard's address ${where} is already in use`,
              'choose another dashboard.port in the config (0: a free one), or stop what listens there',
            ),
          );
        else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
          reject(
            new IrisError(
              'invalid_argument',
              `cannot listen on ${where}: no such local address`,
              'use an address of this machine in dashboard.listen (default 127.0.0.1)',
            ),
          );
        else reject(error);
      };
      const onListening = (): void => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(opts.listen.port, opts.listen.host);
    });
    const bound = server.address();
    if (bound && typeof bound === 'object') address = { host: opts.listen.host, port: bound.port };
    return { ...address };
  }

  const url = (): string => `http://${urlHost(address)}/`;

  return {
    listen,
    address: () => ({ ...address }),
    url,
    loginUrl: () => `${url()}login?token=${sessions.issueToken()}`,
    warning: () => exposureWarning(address),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        guard.closeAll(new Set());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
