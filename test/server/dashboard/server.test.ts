/**
 * The dashboard server in process, against a stand-in owner socket: the page's build served from
 * its folder only (and a missing build said so), a followed log streamed through the proxy and
 * ended on the socket when the browser goes away, the event stream as server-sent events, and
 * only the gate's route sent on (never the browser's cookie or a task token).
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardServer, type DashboardServer } from '../../../src/server/dashboard/server.js';

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
}

describe('the dashboard server', () => {
  let dir: string;
  let owner: Server;
  let dashboard: DashboardServer;
  let base: string;
  let cookie: string;
  const seen: Seen[] = [];
  let followClosed: () => void = () => {};
  const followEnded = new Promise<void>((resolve) => (followClosed = resolve));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'iris-dash-'));
    const web = path.join(dir, 'web');
    mkdirSync(web);
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><script src="/assets/app.js"></script>');
    writeFileSync(path.join(web, 'app.js'), 'console.log(1);');
    writeFileSync(path.join(dir, 'secret.txt'), 'not for the browser');
    owner = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url?.startsWith('/v1/logs')) {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write('{"text":"first line"}\n');
        res.on('close', () => followClosed());
        return;
      }
      if (req.url === '/v1/events?current=1') {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end('{"type":"job","name":"/a"}\n{"type":"cluster","state":"SYNCED"}\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    const socketPath = path.join(dir, 'api.sock');
    await new Promise<void>((resolve) => owner.listen(socketPath, resolve));
    dashboard = createDashboardServer({ socketPath, listen: { host: '127.0.0.1', port: 0 }, webRoot: web });
    const address = await dashboard.listen();
    expect(address.port).toBeGreaterThan(0);
    base = dashboard.url();
    const login = await fetch(dashboard.loginUrl(), { redirect: 'manual' });
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  });

  afterAll(async () => {
    await dashboard?.close();
    await new Promise<void>((resolve) => owner?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page and its files from the build folder, never beside it', async () => {
    const page = await fetch(base, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/assets/app.js');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const app = await fetch(new URL('/assets/app.js', base), { headers: { cookie } });
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toMatch(/javascript/);
    for (const outside of [
      '/assets/..%2fsecret.txt',
      '/assets/%2e%2e/secret.txt',
      '/secret.txt',
      '/assets/../secret.txt',
    ])
      expect((await fetch(new URL(outside, base), { headers: { cookie } })).status, outside).not.toBe(200);
  });

  it('says so when the page is not built', async () => {
    const other = createDashboardServer({
      socketPath: path.join(dir, 'api.sock'),
      listen: { host: '127.0.0.1', port: 0 },
      webRoot: path.join(dir, 'missing'),
    });
    await other.listen();
    try {
      const login = await fetch(other.loginUrl(), { redirect: 'manual' });
      const answer = await fetch(other.url(), { headers: { cookie: login.headers.get('set-cookie')!.split(';')[0]! } });
      expect(answer.status).toBe(503);
      expect(await answer.text()).toContain('npm run build');
    } finally {
      await other.close();
    }
  });

  it('sends on only the checked route and query, without the cookie or a task token', async () => {
    const answer = await fetch(new URL('/v1/jobs?state=RUNNING', base), {
      headers: { cookie, 'x-iris-task-token': 'stolen' },
    });
    expect(answer.status).toBe(200);
    const last = seen.at(-1)!;
    expect(last.path).toBe('/v1/jobs?state=RUNNING');
    expect(last.headers.cookie).toBeUndefined();
    expect(last.headers['x-iris-task-token']).toBeUndefined();
  });

  it('streams a followed log, and ends it on the socket when the browser goes away', async () => {
    const browser = new AbortController();
    const answer = await fetch(new URL('/v1/logs?target=/a&follow=1', base), {
      headers: { cookie },
      signal: browser.signal,
    });
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('first line');
    browser.abort();
    await followEnded;
  });

  it('turns the event stream into server-sent events', async () => {
    const answer = await fetch(new URL('/events', base), { headers: { cookie } });
    expect(answer.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await answer.text();
    expect(text).toContain('data: {"type":"job","name":"/a"}\n\n');
    expect(text).toContain('data: {"type":"cluster","state":"SYNCED"}\n\n');
  });

  it('refuses a request with a Host it does not listen on', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/v1/jobs', base), { headers: { cookie, host: 'rebound.test' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
