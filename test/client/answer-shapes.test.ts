/**
 * The client checks the shape of every answer (src/api/responses.ts through
 * SocketTransport.ask/stream): against a stand-in "cluster" on a unix socket that answers `{}`
 * (or other nonsense) to everything, every IrisClient method fails with IrisError('unavailable',
 * exit 6) naming the address and the route, instead of handing the answer on.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import type { IrisError } from '../../src/model/errors.js';
import { rejection } from '../helpers/refusal.js';

let dir: string;
let socketPath: string;
let server: Server;
/** What the stand-in answers: status, body. */
let answer: (method: string, url: string) => { status?: number; body: string } = () => ({ body: '{}' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-shapes-'));
  socketPath = join(dir, 'iris.sock');
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { status = 200, body } = answer(req.method ?? '', req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const failure = (run: () => Promise<unknown>): Promise<IrisError> => rejection(Promise.resolve().then(run));

async function drain(items: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of items) {
    // consume
  }
}

const client = () => new SocketClient(socketPath, {});
const HEALTH = JSON.stringify({ ok: true, version: '0.1.0', pid: 1 });

/** Every method of IrisClient that reads JSON, with the route its message names. */
const CALLS: Array<[string, string, (c: SocketClient) => Promise<unknown>]> = [
  ['submit', 'POST /v1/jobs', (c) => c.submit({ command: ['true'] })],
  ['estimate', 'POST /v1/jobs', (c) => c.estimate({ command: ['true'] })],
  ['submitPipeline', 'POST /v1/pipelines', (c) => c.submitPipeline({ name: 'p', stages: {} } as never)],
  ['queue', 'GET /v1/queue', (c) => c.queue()],
  ['jobs', 'GET /v1/jobs', (c) => c.jobs()],
  ['job', 'GET /v1/job', (c) => c.job('/a')],
  ['history', 'GET /v1/history', (c) => c.history()],
  ['task', 'GET /v1/task', (c) => c.task('/a/task-0')],
  ['cancel', 'POST /v1/jobs/cancel', (c) => c.cancel(['/a'])],
  ['retry', 'POST /v1/jobs/retry', (c) => c.retry('/a', false)],
  ['cluster', 'GET /v1/cluster', (c) => c.cluster()],
  ['stopCluster', 'GET /v1/health', (c) => c.stopCluster()],
  ['workers', 'GET /v1/workers', (c) => c.workers()],
  ['drain', 'POST /v1/workers/drain', (c) => c.drain('w')],
  ['resume', 'POST /v1/workers/resume', (c) => c.resume('w')],
  ['disable', 'POST /v1/workers/disable', (c) => c.disable('w')],
  ['enable', 'POST /v1/workers/enable', (c) => c.enable('w')],
  ['prune', 'POST /v1/prune', (c) => c.prune({})],
  ['endpoints', 'GET /v1/endpoints', (c) => c.endpoints()],
  ['registerEndpoint', 'POST /v1/endpoints', (c) => c.registerEndpoint('e', 'localhost:1')],
  ['results', 'GET /v1/results', (c) => c.results('/a')],
  ['setResult', 'POST /v1/results', (c) => c.setResult('k', 'v')],
  ['wait', 'POST /v1/wait', (c) => c.wait('/a')],
  ['waitJobs', 'POST /v1/wait', (c) => c.waitJobs({ jobs: ['/a'], timeout: '1s' })],
  ['density', 'GET /v1/metrics/density', (c) => c.density()],
  ['health', 'GET /v1/health', (c) => c.health()],
  ['logs', 'GET /v1/logs', (c) => drain(c.logs({ target: '/a' }))],
  ['logBatches', 'GET /v1/logs', (c) => drain(c.logBatches({ target: '/a' }))],
  ['events', 'GET /v1/events', (c) => drain(c.events())],
];

describe('an answer of the wrong shape is an error (exit 6) naming the address and the route', () => {
  it.each(CALLS)('%s', async (_name, route, run) => {
    answer = () => ({ body: '{}' });
    const error = await failure(() => run(client()));
    expect(error.code).toBe('unavailable');
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(
      new RegExp(
        `^the cluster at ${socketPath} sent an answer iris cannot use: .+ \\(${route.replace('/', '\\/')}\\)$`,
      ),
    );
    expect(error.hint).toContain('not an iris cluster of this version');
  });

  it('names the first field at fault, deep inside the answer', async () => {
    answer = (_m, url) => ({
      body: url.startsWith('/v1/jobs')
        ? JSON.stringify([{ name: '/a', run: 1, archived: false, user: 'u', state: 'DONE' }])
        : '{}',
    });
    const error = await failure(() => client().jobs());
    expect(error.message).toContain('[0].state must be one of "PENDING", "RUNNING"');
    expect(error.message).toContain('got "DONE"');
  });

  it('a submit answered with an array, or with nothing at all', async () => {
    answer = () => ({ body: '[]' });
    expect((await failure(() => client().submit({ command: ['true'] }))).message).toContain(
      'the answer must be an object, got an array',
    );
    answer = () => ({ body: '' });
    expect((await failure(() => client().submit({ command: ['true'] }))).message).toContain('the answer is missing');
  });

  it('an answer that is not JSON', async () => {
    answer = () => ({ body: '<html>hello</html>' });
    const error = await failure(() => client().cluster());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`the cluster at ${socketPath} sent an answer that is not JSON (GET /v1/cluster)`);
  });

  it('a stream line that is not JSON is shown escaped', async () => {
    answer = () => ({ body: 'not json \u001b[31m\n' });
    const error = await failure(() => drain(client().events()));
    expect(error.message).toContain('sent a line that is not JSON: "not json \\u001b[31m"');
    expect(error.message).not.toContain('\u001b');
  });

  it('a string from the other end is shown escaped in the message', async () => {
    answer = () => ({
      body: JSON.stringify({ name: '/a', run: 1, tasks: 1, parent: null, generated: '\u001b[2Jyes' }),
    });
    const error = await failure(() => client().submit({ command: ['true'] }));
    expect(error.message).toContain('generated must be true or false, got "\\u001b[2Jyes"');
    expect(error.message).not.toContain('\u001b');
  });

  it('answers that fit are handed on, extra fields and all', async () => {
    answer = (_m, url) =>
      url === '/v1/health'
        ? { body: HEALTH }
        : { body: JSON.stringify({ name: '/a', run: 3, tasks: 1, parent: null, generated: false, newer: 1 }) };
    expect(await client().health()).toEqual({ ok: true, version: '0.1.0', pid: 1 });
    expect(await client().submit({ command: ['true'] })).toMatchObject({ name: '/a', run: 3 });
    expect(await client().ping()).toBe(true);
  });

  it('ping stays false (never throws) for a stand-in that answers health with {}', async () => {
    answer = () => ({ body: '{}' });
    expect(await client().ping()).toBe(false);
  });
});
