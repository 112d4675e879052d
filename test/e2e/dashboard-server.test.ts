/**
 * E2E: the web dashboard's HTTP surface on a real local cluster, with plain HTTP (no browser):
 * `iris dashboard --url` gives a one-time login link on 127.0.0.1; nothing is served without the
 * session cookie (401); the link becomes the cookie once (a second use is 403); with the cookie
 * the allowlisted /v1 routes answer as the owner's socket does (a job listed, a job cancelled), a
 * POST needs the page's header and no foreign Origin, routes off the allowlist are 403 and do
 * nothing (the cluster keeps running, the worker is not drained), a wrong Host header is refused
 * (DNS rebinding), a followed log streams while its job runs, and /events streams the cluster's
 * events as server-sent events.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail, WorkerInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';
import { cookieOf, login, pagePost, request } from './dashboard-http.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 4
    memory: 2GiB
`;

interface DashboardJson {
  url: string;
  loginUrl: string;
  mode: string;
}

describe('iris dashboard on a running cluster', () => {
  const c = withCluster(CONFIG);

  async function link(): Promise<string> {
    const r = await c.iris(['dashboard', '--url']);
    expect(r.code, describeRun(['dashboard', '--url'], r)).toBe(0);
    return r.stdout.trim();
  }

  it('--url prints a one-time login link on 127.0.0.1; --json says live; the port is kept', async () => {
    const first = await link();
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]{40,}$/);
    const info = await c.json<DashboardJson>(['dashboard']);
    expect(info.mode).toBe('live');
    expect(info.url).toBe(new URL('/', first).toString());
    expect(info.loginUrl).not.toBe(first);
    expect(new URL(info.loginUrl).port).toBe(new URL(first).port);
  });

  it('without a display it prints the address and the link and asks you to open it', async () => {
    const r = await c.iris(['dashboard'], { env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined } });
    expect(r.code, describeRun(['dashboard'], r)).toBe(0);
    expect(r.stdout).toMatch(/^Dashboard: http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(r.stdout).toMatch(/^Log in \(one use, good for 5 minutes\): http:\/\/127\.0\.0\.1:\d+\/login\?token=/m);
    expect(r.stdout).toContain('Open this URL in a browser.');
  });

  it('with a display it starts the browser opener with the link and returns without waiting for it', async () => {
    // A stand-in xdg-open that records the link and then stays (a browser run in the foreground).
    const bin = path.join(c.cwd, 'opener-bin');
    mkdirSync(bin, { recursive: true });
    const seen = path.join(c.cwd, 'opened.txt');
    const gate = c.gate('opener');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > '${seen}'\n${gate.hold}\n`, { mode: 0o755 });
    try {
      const r = await c.iris(['dashboard'], {
        env: { DISPLAY: ':99', WAYLAND_DISPLAY: undefined, PATH: `${bin}:${process.env.PATH}` },
        timeoutMs: 20_000,
      });
      expect(r.code, describeRun(['dashboard'], r)).toBe(0);
      expect(r.stdout).toContain('Opened it in your browser.');
      const link = /^Log in \(one use, good for 5 minutes\): (\S+)$/m.exec(r.stdout)?.[1];
      await expect
        .poll(() => (existsSync(seen) ? readFileSync(seen, 'utf8').trim() : ''), { timeout: 10_000 })
        .toBe(link);
    } finally {
      gate.open();
    }
  });

  it('without the session cookie the page is 401 (HTML), /v1 and /events are 401 (JSON)', async () => {
    const base = new URL('/', await link()).toString();
    const page = await request(base);
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('iris dashboard');
    for (const path of ['/v1/jobs', '/events']) {
      const answer = await request(new URL(path, base).toString());
      expect(answer.status, path).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'forbidden' } });
    }
    const forged = await request(new URL('/v1/jobs', base).toString(), { headers: { cookie: 'iris_dashboard=x' } });
    expect(forged.status).toBe(401);
  });

  it('the login link sets an HttpOnly, SameSite=Strict cookie and redirects to /, once', async () => {
    const url = await link();
    const answer = await request(url);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/');
    const set = String(answer.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).toMatch(/Path=\//);
    expect(cookieOf(answer)).toMatch(/^iris_dashboard=[A-Za-z0-9_-]{40,}$/);
    const again = await request(url);
    expect(again.status).toBe(403);
    expect(again.body).toContain('iris dashboard');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('answers carry the security headers', async () => {
    const { base, cookie } = await login(await link());
    const answer = await request(new URL('/v1/health', base).toString(), { headers: { cookie } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('with the cookie /v1/jobs lists a job, and the page cancels it (header and origin checked)', async () => {
    const { base, cookie } = await login(await link());
    const name = await c.submit(['--name', 'dash-long', '--cpu', '0.1'], ['sleep', '300']);
    await c.waitForState(name, 'RUNNING');
    const jobs = await request(new URL('/v1/jobs', base).toString(), { headers: { cookie } });
    expect(jobs.status).toBe(200);
    expect((JSON.parse(jobs.body) as { name: string }[]).map((j) => j.name)).toContain(name);

    const cancelUrl = new URL('/v1/jobs/cancel', base).toString();
    const body = JSON.stringify({ names: [name] });
    const noHeader = await request(cancelUrl, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body,
    });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body).toContain('x-iris-dashboard');
    const foreign = await pagePost(base, '/v1/jobs/cancel', cookie, { names: [name] }, { origin: 'http://evil.test' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('another origin');
    const status = await c.json<JobDetail>(['status', name]);
    expect(status.state).toBe('RUNNING');

    const cancelled = await pagePost(base, '/v1/jobs/cancel', cookie, { names: [name] });
    expect(cancelled.status, cancelled.body).toBe(200);
    expect(JSON.parse(cancelled.body)).toMatchObject({ cancelled: [name] });
    await c.waitForState(name, 'KILLED');
    expect((await c.json<JobDetail>(['status', name])).state).toBe('KILLED');
  });

  it('routes off the allowlist are 403 and change nothing', async () => {
    const { base, cookie } = await login(await link());
    const stop = await pagePost(base, '/v1/cluster/stop', cookie, {});
    expect(stop.status).toBe(403);
    const drain = await pagePost(base, '/v1/workers/drain', cookie, { name: 'w0' });
    expect(drain.status).toBe(403);
    const submit = await pagePost(base, '/v1/jobs', cookie, { command: ['true'] });
    expect(submit.status).toBe(403);
    const dashboard = await pagePost(base, '/v1/dashboard', cookie, {});
    expect(dashboard.status).toBe(403);
    expect(JSON.parse(stop.body)).toMatchObject({ error: { code: 'forbidden' } });
    const st = await c.iris(['cluster', 'status']);
    expect(st.code, describeRun(['cluster', 'status'], st)).toBe(0);
    const workers = await c.json<WorkerInfo[]>(['workers']);
    expect(workers.map((w) => [w.id, w.state])).toEqual([['w0', 'READY']]);
  });

  it('a wrong Host header is refused (DNS rebinding)', async () => {
    const { base, cookie } = await login(await link());
    const port = new URL(base).port;
    for (const host of [`evil.test:${port}`, 'localhost:1', `127.0.0.1.evil.test:${port}`]) {
      const answer = await request(new URL('/v1/jobs', base).toString(), { headers: { cookie, host } });
      expect(answer.status, host).toBe(403);
    }
    const local = await request(new URL('/v1/jobs', base).toString(), {
      headers: { cookie, host: `localhost:${port}` },
    });
    expect(local.status).toBe(200);
  });

  it('a followed log streams through the dashboard while its job runs, and ends with it', async () => {
    const { base, cookie } = await login(await link());
    const gate = c.gate('follow');
    const name = await c.submit(
      ['--name', 'dash-follow', '--cpu', '0.1'],
      ['sh', '-c', `echo first-line; ${gate.hold}; echo last-line`],
    );
    const answer = await fetch(new URL(`/v1/logs?target=${name}&follow=1`, base), { headers: { cookie } });
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('first-line')) {
      const chunk = await reader.read();
      expect(chunk.done, text).toBe(false);
      text += decoder.decode(chunk.value, { stream: true });
    }
    // Streamed: the first line came while the job still runs (it waits on the gate).
    expect((await c.job(name)).state).toBe('RUNNING');
    gate.open();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toContain('last-line');
    expect((await c.waitForEnd(name)).state).toBe('SUCCEEDED');
  });

  it('/events delivers a server-sent event when a job is submitted', async () => {
    const { base, cookie } = await login(await link());
    const events = new AbortController();
    const seen: string[] = [];
    let got: (value: string) => void = () => {};
    const found = new Promise<string>((resolve) => (got = resolve));
    let contentType = '';
    const req = httpRequest(new URL('/events', base), { headers: { cookie }, signal: events.signal }, (res) => {
      contentType = String(res.headers['content-type']);
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
        seen.push(chunk);
        const match = text.split('\n\n').find((e) => e.startsWith('data: ') && e.includes('/dash-event'));
        if (match) got(match);
      });
      res.on('error', () => {});
    });
    req.on('error', () => {});
    req.end();
    try {
      // The stream opens with the current jobs and the SYNCED marker; then the submission comes.
      await expect.poll(() => seen.join('').includes('SYNCED'), { timeout: 15_000 }).toBe(true);
      await c.submit(['--name', 'dash-event', '--cpu', '0.1'], ['true']);
      const event = await Promise.race([
        found,
        new Promise<string>((_, reject) => setTimeout(() => reject(new Error(seen.join(''))), 20_000)),
      ]);
      expect(contentType).toMatch(/text\/event-stream/);
      const data = JSON.parse(event.slice('data: '.length)) as { name: string };
      expect(data.name).toMatch(/^\/dash-event/);
    } finally {
      events.abort();
    }
  });
});
