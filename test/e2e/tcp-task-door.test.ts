/**
 * E2E: the task door on TCP (config `task-door`, docs/api.md "Doors"). A real cluster listens on
 * 127.0.0.1:<free port> besides its sockets; its tasks get IRIS_CONTROLLER_ADDRESS=http://… and
 * submit children over TCP with their token. Without a token, or with a wrong one, the TCP door
 * refuses everything (exit 4 with the documented message), and a task's token never opens the
 * owner-only routes there. A second cluster on the same port fails to start and says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { E2ECluster, describeRun } from './harness.js';
import { freePort } from '../helpers/free-port.js';

/** A plain HTTP GET on the TCP door, as any program on the network could send it. */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Lines `NAME rc=N` a script printed, as { NAME: N }. */
function exitCodes(stdout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of stdout.matchAll(/ (\w+) rc=(\d+)$/gm)) out[match[1]!] = Number(match[2]);
  return out;
}

const tryIt = (name: string, command: string) => `${command} >/dev/null 2>>errs.txt; echo "${name} rc=$?"`;

describe('the task door on TCP', () => {
  let c: E2ECluster;
  let port: number;
  let url: string;
  beforeAll(async () => {
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    c = await E2ECluster.create({
      config: `
stop-grace: 1s
task-door:
  listen: 127.0.0.1:${port}
workers:
  - {name: w0, cpu: 8, memory: 8GiB}
`,
    });
  });
  afterAll(async () => {
    await c?.dispose();
  });

  it('a task gets the http:// address and submits a child through it, which runs', async () => {
    const script = c.script(
      'parent.sh',
      [
        'echo "addr=$IRIS_CONTROLLER_ADDRESS"',
        'iris run --name kid --cpu 0.1 -- sh -c "echo child-ran-over-tcp"',
        'echo "child rc=$?"',
      ].join('\n'),
    );
    const args = ['run', '--name', 'parent', '--cpu', '0.1', '--', 'sh', script];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain(`addr=${url}`);
    expect(r.stdout).toContain('child rc=0');
    const kid = await c.job('/parent/kid');
    expect(kid.state).toBe('SUCCEEDED');
    const logs = await c.iris(['logs', '/parent/kid']);
    expect(logs.stdout).toContain('child-ran-over-tcp');
  });

  it('without a token, or with a wrong one, the TCP door refuses with the documented error (exit 4)', async () => {
    const noToken = await c.iris(['jobs'], { env: { IRIS_CONTROLLER_ADDRESS: url } });
    expect(noToken.code, describeRun(['jobs'], noToken)).toBe(4);
    expect(noToken.stderr).toContain(
      `Error: this address (${url}) is the task door: every request needs the task token`,
    );
    expect(noToken.stderr).toContain('Hint: send IRIS_TASK_TOKEN in the x-iris-task-token header');

    const forged = await c.iris(['submit', '--name', 'evil', '--cpu', '0.1', '--', 'true'], {
      env: { IRIS_CONTROLLER_ADDRESS: url, IRIS_TASK_TOKEN: 'forged' },
    });
    expect(forged.code, describeRun(['submit'], forged)).toBe(4);
    expect(forged.stderr).toContain('Error: unknown or expired task token');
    const asJson = await c.iris(['status', '/parent', '--json'], {
      env: { IRIS_CONTROLLER_ADDRESS: url, IRIS_TASK_TOKEN: 'forged' },
    });
    expect(asJson.code).toBe(4);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      error: { code: 'forbidden', message: 'unknown or expired task token' },
    });

    // Any HTTP client on the network: 403 with the JSON error body, on every route.
    for (const path of ['/v1/health', '/v1/jobs', '/v1/queue', '/metrics']) {
      const res = await get(port, path);
      expect(res.status, path).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({
        error: {
          code: 'forbidden',
          message: `this address (${url}) is the task door: every request needs the task token`,
        },
      });
    }
    expect((await get(port, '/v1/jobs', { 'x-iris-task-token': 'forged' })).status).toBe(403);
    expect((await c.jobs()).map((j) => j.name)).not.toContain('/evil');
  });

  it("a task's token does not open the owner-only routes over TCP", async () => {
    const script = c.script(
      'owner-only.sh',
      [
        tryIt('drain', 'iris workers drain w0'),
        tryIt('queue', 'iris queue'),
        tryIt('metrics', 'iris metrics'),
        tryIt('stop', 'iris cluster stop'),
        tryIt('own', 'iris status "$IRIS_JOB_ID"'),
        'sed "s/^/ERR /" errs.txt; rm -f errs.txt',
      ].join('\n'),
    );
    const args = ['run', '--name', 'scoped', '--cpu', '0.1', '--', 'sh', script];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(exitCodes(r.stdout), r.stdout).toEqual({ drain: 4, queue: 4, metrics: 4, stop: 4, own: 0 });
    expect(r.stdout).toMatch(/ERR .*draining a worker is for the cluster's owner only/);
    expect(await c.client.ping()).toBe(true);
    expect((await c.job('/scoped')).state).toBe('SUCCEEDED');
  });

  it('the owner sees the TCP door in cluster status', async () => {
    const r = await c.iris(['cluster', 'status']);
    expect(r.code, describeRun(['cluster', 'status'], r)).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`Task door:\\s+tcp 127\\.0\\.0\\.1:${port}; tasks are given ${url.replace(/\./g, '\\.')}`),
    );
    const json = await c.iris(['cluster', 'status', '--json']);
    expect(JSON.parse(json.stdout).taskDoor).toEqual({ listen: `127.0.0.1:${port}`, advertise: url });
  });

  it('a second cluster configured on the same port does not start, and says why', async () => {
    const other = await E2ECluster.create({ config: `task-door:\n  listen: 127.0.0.1:${port}\n`, noStart: true });
    try {
      const r = await other.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
      expect(r.code, describeRun(['cluster', 'start'], r)).toBe(6);
      expect(r.stderr).toContain(`the task door's address 127.0.0.1:${port} is already in use`);
    } finally {
      await other.dispose();
    }
  });
});
