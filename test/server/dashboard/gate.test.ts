import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_ROUTES, gate, hostAllowed, sessionCookie } from '../../../src/server/dashboard/gate.js';
import type { GateRequest } from '../../../src/server/dashboard/gate.js';

const LISTEN = { host: '127.0.0.1', port: 8484 };
const HOST = '127.0.0.1:8484';

const req = (over: Partial<GateRequest>): GateRequest => ({
  method: 'GET',
  path: '/',
  host: HOST,
  session: true,
  ...over,
});

const post = (path: string, over: Partial<GateRequest> = {}) =>
  gate(req({ method: 'POST', path, dashboardHeader: '1', origin: `http://${HOST}`, ...over }), LISTEN);

describe('the dashboard gate', () => {
  it('checks the Host header against the listen address (DNS rebinding)', () => {
    for (const host of ['127.0.0.1:8484', 'localhost:8484', 'LOCALHOST:8484', '[::1]:8484'])
      expect(hostAllowed(host, LISTEN), host).toBe(true);
    for (const host of [undefined, '', 'evil.test:8484', '127.0.0.1:8485', '127.0.0.1', '127.0.0.1.evil.test:8484'])
      expect(hostAllowed(host, LISTEN), String(host)).toBe(false);
    const remote = { host: '10.0.0.5', port: 8484 };
    expect(hostAllowed('10.0.0.5:8484', remote)).toBe(true);
    expect(hostAllowed('localhost:8484', remote)).toBe(false);
    const wildcard = { host: '0.0.0.0', port: 8484 };
    expect(hostAllowed('10.1.2.3:8484', wildcard)).toBe(true);
    expect(hostAllowed('evil.test:8484', wildcard)).toBe(false);
    expect(gate(req({ host: 'evil.test:8484' }), LISTEN)).toMatchObject({ kind: 'refuse', status: 403 });
  });

  it('opens /login without a session, and nothing else', () => {
    expect(gate(req({ path: '/login', session: false }), LISTEN)).toEqual({ kind: 'login' });
    expect(gate(req({ session: false }), LISTEN)).toMatchObject({ status: 401, format: 'html' });
    expect(gate(req({ path: '/v1/jobs', session: false }), LISTEN)).toMatchObject({ status: 401, format: 'json' });
    expect(gate(req({ path: '/events', session: false }), LISTEN)).toMatchObject({ status: 401, format: 'json' });
    expect(gate(req({ path: '/assets/app.js', session: false }), LISTEN)).toMatchObject({ status: 401 });
    expect(post('/v1/jobs/cancel', { session: false })).toMatchObject({ status: 401 });
  });

  it('with a session serves the page, its plain asset names, the events and the allowlist', () => {
    expect(gate(req({}), LISTEN)).toEqual({ kind: 'page' });
    expect(gate(req({ path: '/assets/app.js' }), LISTEN)).toEqual({ kind: 'asset', file: 'app.js' });
    expect(gate(req({ path: '/events' }), LISTEN)).toEqual({ kind: 'events' });
    expect(gate(req({ path: '/v1/jobs' }), LISTEN)).toEqual({ kind: 'api', route: 'GET /v1/jobs' });
    expect(post('/v1/jobs/cancel')).toEqual({ kind: 'api', route: 'POST /v1/jobs/cancel' });
    for (const path of ['/assets/.env', '/assets/a/b.js', '/assets/', '/assets/..', '/etc/passwd', '/index.htm'])
      expect(gate(req({ path }), LISTEN), path).toMatchObject({ kind: 'refuse', status: 404 });
  });

  it('refuses every route off the allowlist (403), writes included', () => {
    for (const path of ['/v1/cluster/stop', '/v1/workers/drain', '/v1/jobs', '/v1/prune', '/v1/dashboard', '/v1/wait'])
      expect(post(path), path).toMatchObject({ kind: 'refuse', status: 403, format: 'json' });
    for (const path of ['/v1/events', '/v1/endpoints', '/v1/metrics/density', '/v1', '/v1/jobs/cancel'])
      expect(gate(req({ path }), LISTEN), path).toMatchObject({ kind: 'refuse', status: 403 });
  });

  it('a POST needs the page header and, when it has an Origin, its own', () => {
    expect(post('/v1/jobs/cancel', { dashboardHeader: undefined })).toMatchObject({ status: 403 });
    expect(post('/v1/jobs/cancel', { dashboardHeader: '0' })).toMatchObject({ status: 403 });
    expect(post('/v1/jobs/cancel', { origin: 'http://evil.test' })).toMatchObject({ status: 403 });
    expect(post('/v1/jobs/cancel', { origin: 'null' })).toMatchObject({ status: 403 });
    expect(post('/v1/jobs/cancel', { origin: 'http://127.0.0.1:8485' })).toMatchObject({ status: 403 });
    expect(post('/v1/jobs/cancel', { origin: undefined })).toMatchObject({ kind: 'api' });
    expect(post('/v1/jobs/retry', { host: 'localhost:8484', origin: 'http://localhost:8484' })).toMatchObject({
      kind: 'api',
    });
  });

  it('answers only GET and POST', () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'])
      expect(gate(req({ method, path: '/v1/jobs' }), LISTEN), method).toMatchObject({ status: 405 });
    expect(gate(req({ method: 'POST', path: '/login' }), LISTEN)).toMatchObject({ status: 405 });
  });

  it('property: a request reaches the cluster only on the allowlist, with a session and the right Host', () => {
    const paths = fc.oneof(
      fc.constantFrom(...[...DASHBOARD_ROUTES].map((r) => r.split(' ')[1]!), '/v1/cluster/stop', '/events', '/'),
      fc.string().map((s) => `/v1/${s}`),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'POST', 'PUT'),
        paths,
        fc.constantFrom(HOST, 'evil.test:8484', undefined),
        fc.boolean(),
        fc.constantFrom('1', undefined),
        fc.constantFrom(`http://${HOST}`, 'http://evil.test', undefined),
        (method, path, host, session, header, origin) => {
          const decision = gate({ method, path, host, session, dashboardHeader: header, origin }, LISTEN);
          if (decision.kind !== 'api') return;
          expect(DASHBOARD_ROUTES.has(`${method} ${path}`)).toBe(true);
          expect(session).toBe(true);
          expect(host).toBe(HOST);
          if (method === 'POST') {
            expect(header).toBe('1');
            expect(origin === undefined || origin === `http://${HOST}`).toBe(true);
          }
        },
      ),
    );
  });

  it('reads the session cookie among others', () => {
    expect(sessionCookie('a=1; iris_dashboard=abc; b=2')).toBe('abc');
    expect(sessionCookie('iris_dashboardx=abc')).toBeUndefined();
    expect(sessionCookie(undefined)).toBeUndefined();
  });
});
