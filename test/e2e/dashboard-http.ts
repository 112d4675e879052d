/**
 * Plain HTTP for the dashboard's e2e tests (node:http, no browser): a request with any headers
 * (Host included), its whole answer, and the login exchange of `iris dashboard --url`; and the
 * stopped cluster's dashboard served in the foreground (`serveOffline`), for these and the browser tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { BIN, cleanEnv } from './harness.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer from ${url} within 20 s`)));
    req.end(opts.body);
  });
}

/** The session cookie (`iris_dashboard=…`) a /login answer sets. */
export function cookieOf(answer: Answer): string {
  const set = answer.headers['set-cookie'];
  const line = (Array.isArray(set) ? set : [set ?? '']).find((c) => c.startsWith('iris_dashboard='));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(answer.headers)}`);
  return line.split(';')[0]!;
}

/** Log in with a login link; answers the base URL and the cookie. */
export async function login(loginUrl: string): Promise<{ base: string; cookie: string }> {
  const answer = await request(loginUrl);
  if (answer.status !== 303) throw new Error(`login answered ${answer.status}: ${answer.body}`);
  return { base: new URL('/', loginUrl).toString(), cookie: cookieOf(answer) };
}

/** A POST of JSON as the page makes it (the dashboard header, its own Origin). */
export function pagePost(
  base: string,
  path: string,
  cookie: string,
  body: unknown,
  extra: Record<string, string> = {},
) {
  return request(new URL(path, base).toString(), {
    method: 'POST',
    headers: {
      cookie,
      'content-type': 'application/json',
      'x-iris-dashboard': '1',
      origin: base.replace(/\/$/, ''),
      ...extra,
    },
    body: JSON.stringify(body),
  });
}

/** A running `iris dashboard --url --json` of a stopped cluster (it serves until signalled). */
export interface OfflineServe {
  /** Its one line of JSON. */
  info: { url: string; loginUrl: string; mode: string };
  child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Its exit code once it ends. */
  exited: Promise<number | null>;
}

/** Starts `iris dashboard --url --json` in `cwd` with `env` and waits until it serves (its first line). */
export async function serveOffline(cwd: string, env: Record<string, string>): Promise<OfflineServe> {
  const child = spawn(process.execPath, [BIN, 'dashboard', '--url', '--json'], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    await expect.poll(() => stdout.includes('\n') || child.exitCode !== null, { timeout: 20_000 }).toBe(true);
    expect(child.exitCode, stderr).toBeNull();
    const info = JSON.parse(stdout.split('\n')[0]!) as OfflineServe['info'];
    return { info, child, stderr: () => stderr, exited };
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
}
