/**
 * The dashboard's request gate (docs/api.md, "The dashboard"): what one HTTP request to the
 * dashboard may do, decided from its method, path and headers alone. Pure: no I/O, no clock.
 *
 * Guarantees, in the order they are checked:
 * - the Host header must name the address the server listens on: `HOST:PORT` of the listen
 *   address, and on a loopback address also `localhost:PORT`, `127.0.0.1:PORT` and `[::1]:PORT`;
 *   on a wildcard address (0.0.0.0, ::) any IP literal or localhost with the port. A name that
 *   merely resolves to the server (DNS rebinding) is refused (403);
 * - `GET /login` is the one route open without a session (it takes a one-time token);
 * - every other route needs a live session cookie: without one `/` answers 401 with an HTML page
 *   saying how to get in, everything else 401 with a JSON error;
 * - under `/v1/` only the allowlist (DASHBOARD_ROUTES) is reached; anything else is 403, so the
 *   page can do at most what those routes of the owner's socket do (never stop the cluster,
 *   drain a worker, submit or prune);
 * - a POST must carry `x-iris-dashboard: 1`, and an Origin header, when present, must be the
 *   dashboard's own origin (`http://` + the Host it was sent to): a page of another site can
 *   neither set that header without the browser asking first nor hide its origin (CSRF);
 * - only GET and POST are answered (405 otherwise).
 */
import type { ErrorCode } from '../../model/errors.js';

/** The owner API routes the page may reach, `METHOD /v1/path` (the contract of issue 35). */
export const DASHBOARD_ROUTES: ReadonlySet<string> = new Set([
  'GET /v1/jobs',
  'GET /v1/job',
  'GET /v1/task',
  'GET /v1/history',
  'GET /v1/logs',
  'GET /v1/queue',
  'GET /v1/workers',
  'GET /v1/cluster',
  'GET /v1/results',
  'GET /v1/health',
  'GET /v1/timeline',
  'GET /v1/metrics/series',
  'POST /v1/jobs/cancel',
  'POST /v1/jobs/retry',
  'POST /v1/jobs/update',
]);

/** The header every POST of the page carries. */
export const DASHBOARD_HEADER = 'x-iris-dashboard';
/** The session cookie's name. */
export const SESSION_COOKIE = 'iris_dashboard';

export interface GateRequest {
  method: string;
  /** The path as parsed (dot segments resolved), without the query. */
  path: string;
  host?: string | undefined;
  origin?: string | undefined;
  /** The value of the x-iris-dashboard header. */
  dashboardHeader?: string | undefined;
  /** Did the request carry a live session cookie? */
  session: boolean;
}

export interface ListenAddress {
  host: string;
  port: number;
}

export type Refusal = {
  kind: 'refuse';
  status: number;
  /** `html` for the page itself, `json` for /v1 and /events, `text` for the rest. */
  format: 'html' | 'json' | 'text';
  code: ErrorCode;
  message: string;
  hint: string;
};

export type GateDecision =
  | { kind: 'login' }
  | { kind: 'page' }
  /** A file of the page's build, by its plain name (`app.js`). */
  | { kind: 'asset'; file: string }
  /** A route of DASHBOARD_ROUTES, to be proxied as it is. */
  | { kind: 'api'; route: string }
  | { kind: 'events' }
  | Refusal;

const GET_IN = 'run `iris dashboard` on the machine of the cluster for a new login link';

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

/** `host` as it appears in a Host header (IPv6 in brackets). */
const bracket = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Is `header` (a Host header) one of the names of `listen`? (See the header of this module.) */
export function hostAllowed(header: string | undefined, listen: ListenAddress): boolean {
  if (header === undefined) return false;
  const value = header.trim().toLowerCase();
  const suffix = `:${listen.port}`;
  if (!value.endsWith(suffix)) return false;
  const name = value.slice(0, -suffix.length);
  if (name === bracket(listen.host.toLowerCase())) return true;
  if (isLoopbackHost(listen.host) || isWildcard(listen.host)) {
    if (name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  }
  if (isWildcard(listen.host)) return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || /^\[[0-9a-f:.]+\]$/.test(name);
  return false;
}

const refuse = (
  status: number,
  format: Refusal['format'],
  code: ErrorCode,
  message: string,
  hint: string,
): Refusal => ({ kind: 'refuse', status, format, code, message, hint });

/** A plain file name of the page's build (no folders, no hidden files). */
const ASSET = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,99})$/;

/** What to do with one request (see the header). */
export function gate(req: GateRequest, listen: ListenAddress): GateDecision {
  const api = req.path.startsWith('/v1/') || req.path === '/v1' || req.path === '/events';
  const format: Refusal['format'] = api ? 'json' : req.path === '/' ? 'html' : 'text';
  if (!hostAllowed(req.host, listen))
    return refuse(
      403,
      format,
      'forbidden',
      `the dashboard answers only requests addressed to ${bracket(listen.host)}:${listen.port}`,
      'open the URL `iris dashboard` prints, as it is',
    );
  if (req.method !== 'GET' && req.method !== 'POST')
    return refuse(405, format, 'invalid_argument', `method ${req.method} is not allowed`, 'use GET or POST');
  if (req.path === '/login') {
    if (req.method !== 'GET') return refuse(405, 'text', 'invalid_argument', 'use GET on /login', 'open the link');
    return { kind: 'login' };
  }
  const known = api || req.path === '/' || req.path === '/index.html' || ASSET.test(req.path);
  if (!known) return refuse(404, 'text', 'not_found', `no such page: ${req.path}`, 'open /');
  if (!req.session)
    return refuse(401, format, 'forbidden', 'this dashboard needs a login: you have no session', GET_IN);
  if (req.path === '/events') {
    if (req.method !== 'GET') return refuse(405, 'json', 'invalid_argument', 'use GET on /events', 'use GET');
    return { kind: 'events' };
  }
  if (api) {
    const route = `${req.method} ${req.path}`;
    if (!DASHBOARD_ROUTES.has(route))
      return refuse(
        403,
        'json',
        'forbidden',
        `the dashboard does not reach ${route}`,
        'use the iris CLI on the machine of the cluster for that',
      );
    if (req.method === 'POST') {
      if (req.dashboardHeader?.trim() !== '1')
        return refuse(
          403,
          'json',
          'forbidden',
          `a POST to the dashboard needs the header ${DASHBOARD_HEADER}: 1`,
          'act from the dashboard page',
        );
      if (req.origin !== undefined && req.origin !== `http://${req.host!.trim().toLowerCase()}`)
        return refuse(
          403,
          'json',
          'forbidden',
          `a POST from another origin (${req.origin}) is refused`,
          'act from the dashboard page',
        );
    }
    return { kind: 'api', route };
  }
  if (req.method !== 'GET') return refuse(405, 'text', 'invalid_argument', `use GET on ${req.path}`, 'use GET');
  const asset = ASSET.exec(req.path);
  if (asset) return { kind: 'asset', file: asset[1]! };
  return { kind: 'page' };
}

/** The session secret of a Cookie header, if it carries one. */
export function sessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}
