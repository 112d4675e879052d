/**
 * Hostile suite, "Connections to the doors are bounded" (docs/security.md): the built binary against
 * real local clusters, flooded the way a container task (through the mounted task door) or a local
 * user (through the TCP door) can flood them.
 *
 * - (a) idle connections past the task door's cap, from this process and from a container task
 *   through its mounted door: the door closes its oldest idle ones and stays at its cap; meanwhile
 *   the owner's `iris jobs` answers and a job runs, uses the door and logs;
 * - (b) 20,000 connections with the default caps, from two processes (each may hold 10,000): the
 *   controller holds no more than its caps, answers its owner, launches and logs a job, and lives;
 * - (c) a request whose headers or body never finish is answered 408 and closed after the
 *   timeouts, while a stream longer than those timeouts is not cut;
 * - (d) the TCP door bounds each remote address: one address is cut back to its bound, another
 *   address's connections are served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv, describeRun, E2ECluster, isRunning } from '../e2e/harness.js';
import { freePort } from '../helpers/free-port.js';
import { NODE_IMAGE, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from '../e2e/docker-fixture.js';
import { parseOpenFileLimit } from '../../src/server/connection-budget.js';
import { joined } from '../helpers/regex.js';

/**
 * The Docker engine and the test images (under CI a missing engine fails the container test instead of skipping it).
 */
const DOCKER = (await dockerTestEnv()).run;
const FLOOD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'doors-flood.mjs');
const WORKERS = 'workers:\n  - {name: w0, cpu: 8, memory: 8GiB}\nstop-grace: 1s\n';

/** A connection from this process that never sends a byte. */
function idle(where: NetConnectOpts): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(where);
    socket.on('error', () => undefined);
    // Reading (and dropping) what comes, so a last answer before the close does not hold the close back.
    socket.resume();
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves once every socket is closed; rejects after `ms` saying how many were. */
function allClosed(sockets: Socket[], ms: number): Promise<void> {
  const each = sockets.map(
    (s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve()))),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `the server closed ${sockets.filter((s) => s.destroyed).length} of these ${sockets.length} connections ` +
              `within ${ms} ms`,
          ),
        ),
      ms,
    );
    void Promise.all(each).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Send a GET and resolve with the status line of the answer. */
function statusLine(socket: Socket, route: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.once('close', () => reject(new Error(`closed without an answer: ${JSON.stringify(text)}`)));
    socket.write(`GET ${route} HTTP/1.1\r\nhost: iris\r\n\r\n`);
  });
}

/** Write `head`, then one more byte every 200 ms; resolves with the answer and when the server closed. */
function slowRequest(
  where: NetConnectOpts,
  head: string,
  byte: string,
  ms: number,
): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(where);
    let text = '';
    const drip = setInterval(() => socket.write(byte), 200);
    const limit = setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      reject(new Error(`still open after ${ms} ms; answered so far: ${JSON.stringify(text)}`));
    }, ms);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(limit);
      resolve({ text, ms: Date.now() - started });
    });
    socket.write(head);
  });
}

interface FloodReport {
  made: number;
  open: number;
  closedByServer: number;
  ms: number;
}

/** A flooding process (doors-flood.mjs): its report once it made `count` connections; kill() ends it. */
function flood(target: string, count: number): { report: Promise<FloodReport>; kill(): void } {
  const child: ChildProcess = spawn(process.execPath, [FLOOD, target, String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const report = new Promise<FloodReport>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as FloodReport);
    });
    child.once('exit', (code) => reject(new Error(`the flood exited (${code}) before its report: ${out}`)));
  });
  report.catch(() => undefined);
  return {
    report,
    kill: () => {
      child.stdin!.end();
      child.kill('SIGKILL');
    },
  };
}

const openFiles = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/**
 * What a container task runs to flood its task door: 100 idle connections through the mounted
 * socket; once the door has closed the 60 beyond its cap it says so, and holds the rest until killed.
 */
const CONTAINER_FLOOD = `
const net = require('net');
let open = 0, closed = 0, said = false;
const say = () => {
  if (said || open < 100 || closed < 60) return;
  said = true;
  console.log('door capped: ' + closed + ' of ' + open + ' closed');
};
const one = () => new Promise((resolve) => {
  const s = net.connect(process.env.IRIS_CONTROLLER_ADDRESS);
  s.resume();
  s.on('connect', () => { open++; resolve(); });
  s.on('error', () => resolve());
  s.on('close', () => { closed++; say(); });
});
(async () => { for (let i = 0; i < 100; i++) await one(); say(); setInterval(() => {}, 1 << 30); })();
`;

/**
 * A process task that opens 8 event streams with its token on its door, then asks a ninth time and prints the answer.
 */
const HOLDER =
  `
const http = require('http');
const ask = (route) => new Promise((resolve, reject) => {
  const headers = { 'x-iris-task-token': process.env.IRIS_TASK_TOKEN };
  const req = http.request({ socketPath: process.env.IRIS_CONTROLLER_ADDRESS, path: route, headers, agent: false }, ` +
  `resolve);
  req.on('error', reject);
  req.end();
});
(async () => {
  for (let i = 0; i < 8; i++) await ask('/v1/events');
  const res = await ask('/v1/health');
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => {
    console.log('ninth: ' + res.statusCode + ' ' + body);
    setInterval(() => {}, 1 << 30);
  });
})();
`;

describe('the task door at its cap (connections.task-door: 40, per-peer: 8, header-timeout: 10m)', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    // A long header timeout: every connection closed here is closed for the cap, none for being slow.
    ({ c, clusterId } = await startDockerCluster(
      `${WORKERS}connections:\n  task-door: 40\n  per-peer: 8\n  header-timeout: 10m\n`,
    ));
  });
  afterAll(() => (DOCKER ? stopDockerCluster(c, clusterId) : c?.dispose()));

  it(
    '(a) keeps its cap by closing the oldest idle connections; the owner is answered, a job runs through the door ' +
      'and logs',
    async () => {
      const pid = c.pid()!;
      const door = { path: path.join(c.home, 'tasks', 'iris.sock') };
      const sockets: Socket[] = [];
      for (let i = 0; i < 60; i++) sockets.push(await idle(door));
      await allClosed(sockets.slice(0, 20), 10_000);
      expect(sockets.filter((s) => !s.destroyed)).toHaveLength(40);

      // The door is full of idle connections: the owner's socket is another door.
      const started = Date.now();
      const jobs = await c.iris(['jobs']);
      expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);

      // A task's own requests get in (an idle connection makes room), its launch and its log work.
      const script = c.script('through.sh', 'iris result set door open && echo "task went through the door"');
      const run = await c.iris(['run', '--name', 'through', '--cpu', '0.1', '--', 'sh', script], { timeoutMs: 60_000 });
      expect(run.code, describeRun(['run'], run)).toBe(0);
      expect((await c.logs('/through')).map((l) => l.text)).toContain('task went through the door');
      const results = await c.json<{ results: { key: string; value: string }[] }>(['results', '/through']);
      expect(JSON.stringify(results)).toContain('"door"');
      expect(isRunning(pid)).toBe(true);
      for (const s of sockets) s.destroy();
    },
  );

  it.skipIf(!DOCKER)(
    '(a) a container task floods its door: the door stays at its cap, the owner and other tasks go on',
    { timeout: 90_000 },
    async () => {
      const pid = c.pid()!;
      const flooder = await c.submit(
        ['--name', 'flooder', '--image', NODE_IMAGE, '--cpu', '0.2'],
        ['node', '-e', CONTAINER_FLOOD],
      );
      await c.waitForLog(flooder, 'door capped: 60 of 100 closed', { timeoutMs: 30_000 });
      const jobs = await c.iris(['jobs']);
      expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
      expect(jobs.stdout).toContain('/flooder');
      const script = c.script('beside.sh', 'iris result set beside yes && echo "a task beside the flood"');
      const run = await c.iris(['run', '--name', 'beside', '--cpu', '0.1', '--', 'sh', script], { timeoutMs: 60_000 });
      expect(run.code, describeRun(['run'], run)).toBe(0);
      expect((await c.logs('/beside')).map((l) => l.text)).toContain('a task beside the flood');
      expect((await c.iris(['cancel', flooder])).code).toBe(0);
      await c.waitForState(flooder, 'KILLED');
      expect(isRunning(pid)).toBe(true);
    },
  );

  it(
    '(per token) a task holding per-peer streams on the socket door gets 429 for the next request; another task ' +
      'goes on',
    async () => {
      const script = c.script('holder.cjs', HOLDER); // node skips the #! line
      const holder = await c.submit(['--name', 'holder', '--cpu', '0.1'], [process.execPath, script]);
      const lines = await c.waitForLog(holder, 'ninth:', { timeoutMs: 30_000 });
      const ninth = lines.find((l) => l.text.startsWith('ninth:'))!.text;
      expect(ninth).toMatch(
        joined(
          /^ninth: 429 .*"code":"quota_exceeded".*"message":"this t/,
          /ask already has 8 requests in progress on this socket \(/,
        ),
      );
      const run = await c.iris(['run', '--name', 'other', '--cpu', '0.1', '--', 'iris', 'result', 'set', 'k', 'v'], {
        timeoutMs: 60_000,
      });
      expect(run.code, describeRun(['run'], run)).toBe(0);
      expect((await c.iris(['cancel', holder])).code).toBe(0);
    },
  );

  it('(a) idle connections that never sent a byte do not hold `iris cluster stop` back', async () => {
    const door = { path: path.join(c.home, 'tasks', 'iris.sock') };
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i++) sockets.push(await idle(door));
    const started = Date.now();
    const stop = await c.iris(['cluster', 'stop'], { timeoutMs: 60_000 });
    expect(stop.code, describeRun(['cluster', 'stop'], stop)).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    await allClosed(sockets, 5_000);
  });
});

describe('a flood of 20,000 connections with the default caps', () => {
  let c: E2ECluster;
  const floods: { kill(): void }[] = [];
  beforeAll(async () => {
    c = await E2ECluster.create({ config: WORKERS, noStart: true });
    // Started under a soft limit of 1024: the controller still gets the hard limit (Node raises it).
    const started = await new Promise<number | null>((resolve) => {
      const child = spawn(
        'sh',
        ['-c', 'ulimit -Sn 1024 && exec "$@"', 'sh', process.execPath, BIN, 'cluster', 'start', '--detach'],
        {
          cwd: c.cwd,
          env: cleanEnv(c.env),
          stdio: 'ignore',
        },
      );
      child.on('exit', (code) => resolve(code));
    });
    expect(started).toBe(0);
  });
  afterAll(async () => {
    for (const f of floods) f.kill();
    await c?.dispose();
  });

  it('(b) the controller holds at most its caps, answers its owner, launches and logs a job, and lives', {
    timeout: 120_000,
  }, async () => {
    const pid = c.pid()!;
    const limits = parseOpenFileLimit(readFileSync(`/proc/${pid}/limits`, 'utf8'))!;
    expect(limits.soft).toBe(limits.hard);
    const door = path.join(c.home, 'tasks', 'iris.sock');
    const started = Date.now();
    const two = [flood(door, 10_000), flood(door, 10_000)];
    floods.push(...two);
    // The owner asks while the flood comes in, and again once it is all there.
    const during = await c.iris(['jobs']);
    const duringMs = Date.now() - started;
    expect(during.code, describeRun(['jobs'], during)).toBe(0);
    const reports = await Promise.all(two.map((f) => f.report));
    const floodMs = Date.now() - started;
    expect(reports.map((r) => r.made)).toEqual([10_000, 10_000]);

    const asked = Date.now();
    const jobs = await c.iris(['jobs']);
    expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
    const ownerMs = Date.now() - asked;
    const run = await c.iris(
      ['run', '--name', 'during-flood', '--cpu', '0.1', '--', 'sh', '-c', 'echo launched while flooded'],
      { timeoutMs: 60_000 },
    );
    expect(run.code, describeRun(['run'], run)).toBe(0);
    expect((await c.logs('/during-flood')).map((l) => l.text)).toContain('launched while flooded');
    // The task door's default cap is 4096 and the owner's 1024: far from the 20,000 made. (What
    // the floods count as open includes connections still queued for accept, up to the listen queue.)
    const held = reports.reduce((sum, r) => sum + r.open, 0);
    const controllerFiles = openFiles(pid);
    expect(controllerFiles).toBeLessThan(4096 + 1024 + 300);
    expect(isRunning(pid)).toBe(true);
    console.log(
      `flood of 20,000: made in ${floodMs} ms, ${held} open for the floods at the end, the controller had ` +
        `${controllerFiles} open files; iris jobs answered in ${duringMs} ms during it and in ${ownerMs} ms after`,
    );
    for (const f of two) f.kill();
  });
});

describe('slow requests (connections.header-timeout: 1s, request-timeout: 2s)', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create({ config: `${WORKERS}connections:\n  header-timeout: 1s\n  request-timeout: 2s\n` });
  });
  afterAll(async () => {
    await c?.dispose();
  });

  it('(c) headers sent a byte at a time, and a body that never ends, are answered 408 and closed', async () => {
    const door = { path: path.join(c.home, 'tasks', 'iris.sock') };
    const headers = await slowRequest(door, 'GET /v1/health HTTP/1.1\r\nhost: iris\r\nx-slow: ', 'a', 10_000);
    expect(headers.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(headers.text).toContain('the request did not arrive in time (its headers within 1s, all of it within 2s)');
    expect(headers.ms).toBeGreaterThanOrEqual(900);
    // The owner socket has the same bounds; there a submission reads its body (a task door refuses
    // a request without a live token before reading any).
    const owner = await slowRequest(
      { path: c.socket },
      'GET /v1/health HTTP/1.1\r\nhost: iris\r\nx-slow: ',
      'a',
      10_000,
    );
    expect(owner.text).toMatch(/^HTTP\/1\.1 408 /);
    const body = await slowRequest(
      { path: c.socket },
      'POST /v1/jobs HTTP/1.1\r\nhost: iris\r\ncontent-length: 100000\r\n\r\n{',
      ' ',
      10_000,
    );
    expect(body.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.ms).toBeGreaterThanOrEqual(1900);
    expect((await c.jobs()).map((j) => j.name)).toEqual([]);
  });

  it('(c) a stream that lasts longer than both timeouts is not cut', async () => {
    const run = await c.iris(
      ['run', '--name', 'long', '--cpu', '0.1', '--', 'sh', '-c', 'echo begin; sleep 3; echo end'],
      { timeoutMs: 60_000 },
    );
    expect(run.code, describeRun(['run'], run)).toBe(0);
    expect(run.stdout).toContain('end');
  });
});

describe('the TCP door bounds each address (connections.per-peer: 8, header-timeout: 10m)', () => {
  let c: E2ECluster;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    c = await E2ECluster.create({
      config: `${WORKERS}task-door:\n  listen: 127.0.0.1:${port}\nconnections:\n  per-peer: 8\n  header-timeout: 10m\n`,
    });
  });
  afterAll(async () => {
    await c?.dispose();
  });

  it('(d) one address is cut back to its bound; another address is served beside it', async () => {
    const one: Socket[] = [];
    for (let i = 0; i < 20; i++) one.push(await idle({ host: '127.0.0.1', port, localAddress: '127.0.0.1' }));
    await allClosed(one.slice(0, 12), 10_000);
    const other: Socket[] = [];
    for (let i = 0; i < 3; i++) other.push(await idle({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }));
    // Every connection left open is served (403: no task token), the other address's included.
    const survivors = [...one.slice(12), ...other];
    expect(await Promise.all(survivors.map((s) => statusLine(s, '/v1/health')))).toEqual(
      survivors.map(() => 'HTTP/1.1 403 Forbidden'),
    );
    expect(isRunning(c.pid()!)).toBe(true);
    for (const s of [...one, ...other]) s.destroy();
  });
});
