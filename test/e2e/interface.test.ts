/**
 * E2E: the outer interface — bad input on the socket (malformed JSON, oversized and non-object
 * bodies, unknown fields and routes) gets a 4xx and the cluster keeps answering; `iris watch`
 * without a TTY prints a plain snapshot; every command supports --json and has help with
 * examples; `iris jobs` shows a tree and filters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { JobSummary } from '../../src/api/types.js';
import { describeRun, withJson, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
  - {name: w1, cpu: 1, memory: 1GiB}
`;

interface Raw {
  status: number;
  body: string;
}

function raw(
  socketPath: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, method, path, headers: { 'content-type': 'application/json', ...headers }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server may cut an oversized upload short; that still counts as refused.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve({ status: 413, body: '' });
      else reject(error);
    });
    req.end(body);
  });
}

describe('socket robustness and command output', () => {
  const c = withCluster(CONFIG);
  beforeAll(async () => {
    await c.submit(['--name', 'tree', '--cpu', '0.1'], ['sh', '-c', 'sleep 120']);
    await c.waitForState('/tree', 'RUNNING');
    await c.submit(['--name', 'tree/leaf', '--cpu', '0.1', '--user', 'bob'], ['sh', '-c', 'echo leaf-line']);
    await c.waitForState('/tree/leaf', 'SUCCEEDED');
  });

  const healthy = async () => {
    const health = await raw(c.socket, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true });
  };

  it.each([
    ['malformed JSON', '/v1/jobs', '{"command": ["true"', 400],
    ['a JSON array', '/v1/jobs', '[1,2,3]', 400],
    ['a string', '/v1/jobs', '"true"', 400],
    ['an unknown field', '/v1/jobs', JSON.stringify({ command: ['true'], colour: 'blue' }), 400],
    ['a command that is not a list', '/v1/jobs', JSON.stringify({ command: 'true' }), 400],
    ['a negative replica count', '/v1/jobs', JSON.stringify({ command: ['true'], replicas: -1 }), 400],
    ['a bad cancel body', '/v1/jobs/cancel', JSON.stringify({ names: 'tree' }), 400],
  ])('%s gets a 4xx with a JSON error, and the cluster still answers', async (_what, path, body, status) => {
    const r = await raw(c.socket, 'POST', path, body);
    expect(r.status).toBe(status);
    const parsed = JSON.parse(r.body) as { error: { code: string; message: string } };
    expect(parsed.error.message.length).toBeGreaterThan(0);
    await healthy();
  });

  it('an oversized body gets 413 and the cluster still answers', async () => {
    const big = JSON.stringify({ command: ['true'], env: { BIG: 'x'.repeat(3 * 1024 * 1024) } });
    const r = await raw(c.socket, 'POST', '/v1/jobs', big);
    expect(r.status).toBe(413);
    await healthy();
    expect((await c.iris(['cluster', 'status'])).code).toBe(0);
  });

  it('unknown routes and methods get 404/405, an unknown task token 403', async () => {
    expect((await raw(c.socket, 'GET', '/v1/nothing-here')).status).toBe(404);
    expect((await raw(c.socket, 'DELETE', '/v1/jobs')).status).toBe(405);
    const forged = await raw(c.socket, 'POST', '/v1/jobs', JSON.stringify({ command: ['true'] }), {
      'x-iris-task-token': 'forged',
    });
    expect(forged.status).toBe(403);
    await healthy();
  });

  it('iris watch --once without a TTY prints one plain snapshot and exits', async () => {
    const r = await c.iris(['watch', '--once'], { timeoutMs: 20_000 });
    expect(r.code, describeRun(['watch', '--once'], r)).toBe(0);
    expect(r.stdout).toContain('/tree');
    expect(r.stdout).toContain('w0');
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('iris jobs shows the tree and filters by prefix, state and user', async () => {
    const plain = await c.iris(['jobs']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/tree/);
    expect(plain.stdout).toMatch(/leaf/);
    const byPrefix = await c.json<JobSummary[]>(['jobs', '--prefix', 'tree']);
    expect(byPrefix.map((j) => j.name).sort()).toEqual(['/tree', '/tree/leaf']);
    const running = await c.json<JobSummary[]>(['jobs', '--state', 'running']);
    expect(running.map((j) => j.name)).toContain('/tree');
    expect(running.map((j) => j.name)).not.toContain('/tree/leaf');
    const bob = await c.json<JobSummary[]>(['jobs', '--user', 'bob']);
    expect(bob.map((j) => j.name)).toEqual(['/tree/leaf']);
  });

  // Every command, with --json, prints parseable JSON on stdout (logs: one document per line).
  it.each([
    [['cluster', 'status']],
    [['workers']],
    [['jobs']],
    [['status', 'tree']],
    [['logs', 'tree/leaf']],
    [['endpoints']],
    [['watch']],
    [['submit', '--cpu', '0.1', '--', 'true']],
    [['run', '--cpu', '0.1', '--', 'true']],
    [['status', 'does-not-exist']],
  ])('iris %j --json prints JSON', async (args) => {
    const full = withJson(args);
    const r = await c.iris(full, { timeoutMs: 20_000 });
    const text = r.stdout.trim();
    expect(text.length, describeRun(full, r)).toBeGreaterThan(0);
    let ok = true;
    try {
      JSON.parse(text);
    } catch {
      ok = text.split('\n').every((line) => {
        try {
          JSON.parse(line);
          return true;
        } catch {
          return false;
        }
      });
    }
    expect(ok, describeRun(full, r)).toBe(true);
    if (args[1] === 'does-not-exist') {
      expect(r.code).toBe(3);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'not_found' } });
    } else {
      expect(r.code, describeRun(full, r)).toBe(0);
    }
  });

  it('cancel, drain and cluster stop support --json too', async () => {
    const cancel = await c.json<{ cancelled: string[] }>(['cancel', 'tree']);
    expect(cancel.cancelled).toContain('/tree');
    await c.waitForState('/tree', 'KILLED');
    expect((await c.job('/tree/leaf')).state).toBe('SUCCEEDED');
    const drained = await c.json<{ id: string }>(['workers', 'drain', 'w1']);
    expect(drained.id).toBe('w1');
    const stop = await c.iris(['cluster', 'stop', '--json']);
    expect(stop.code, describeRun(['cluster', 'stop', '--json'], stop)).toBe(0);
    JSON.parse(stop.stdout);
  });

  it.each([
    'submit',
    'run',
    'jobs',
    'history',
    'status',
    'logs',
    'cancel',
    'workers',
    'workers drain',
    'workers resume',
    'endpoints',
    'endpoints register',
    'watch',
    'cluster start',
    'cluster stop',
    'cluster status',
  ])('iris %s --help shows examples', async (command) => {
    const r = await c.iris([...command.split(' '), '--help']);
    expect(r.code, describeRun([command, '--help'], r)).toBe(0);
    expect(r.stdout).toMatch(/EXAMPLES/);
    expect(r.stdout).toMatch(/--json/);
  });
});
