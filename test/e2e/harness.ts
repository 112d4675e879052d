/**
 * End-to-end harness: runs the BUILT `iris` binary (bin/run.js -> dist/) against a real local
 * cluster in a private temporary IRIS_HOME, with real task processes.
 *
 * No fixed sleeps: `waitFor*` re-check their condition on every cluster event (the /v1/events
 * stream) and on a short poll as a fallback, and fail with the last observed value once a
 * bounded deadline passes.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import type { JobDetail, JobSummary, LogLine, TaskInfo } from '../../src/api/types.js';
import { JOB_STATES, isFinalJobState } from '../../src/model/states.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'run.js');

export function assertBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'commands'))) {
    throw new Error(
      'dist/ is missing: build first with `npm run build` (tsc, the manifest and the oclif bundle; npm test does it)',
    );
  }
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/** Environment for iris without anything IRIS_* inherited from the outer shell. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('IRIS_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  env.NO_COLOR = '1';
  env.FORCE_COLOR = '0';
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Run `iris ARGS…` (the built binary under this Node) and collect its output. */
export function runIris(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`iris ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** `args` plus `--json`, placed before a `--` so it never lands in a task's command. */
export function withJson(args: readonly string[]): string[] {
  const cut = args.indexOf('--');
  return cut < 0 ? [...args, '--json'] : [...args.slice(0, cut), '--json', ...args.slice(cut)];
}

export function describeRun(args: readonly string[], r: RunResult): string {
  return (
    `iris ${args.join(' ')} -> exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\nstdout: ${r.stdout}\nstderr: ` +
    `${r.stderr}`
  );
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Await `probe()` returning a value satisfying `ok`, re-checking on every cluster event and on a
 * short poll; throws with the last value after the deadline.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  opts: WaitOptions & { client?: SocketClient } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  const interval = opts.intervalMs ?? 100;
  const events = new AbortController();
  const waker: { wake: (() => void) | null } = { wake: null };
  if (opts.client) {
    void (async () => {
      try {
        for await (const _event of opts.client!.events(events.signal)) waker.wake?.();
      } catch {
        // the poll below still works without events
      }
    })();
  }
  let last: T | undefined;
  let lastError: unknown;
  try {
    for (;;) {
      try {
        last = await probe();
        lastError = undefined;
        if (ok(last)) return last;
      } catch (error) {
        lastError = error;
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(interval, left));
        function done() {
          clearTimeout(timer);
          waker.wake = null;
          resolve();
        }
        waker.wake = done;
      });
    }
  } finally {
    events.abort();
  }
  const shown = lastError !== undefined ? `error: ${String(lastError)}` : JSON.stringify(last, null, 1)?.slice(0, 3000);
  throw new Error(`timed out waiting for ${what}; last seen: ${shown}`);
}

export interface ClusterOptions {
  /** Contents of `.irisrc.yaml` in the cluster's working directory (none: machine defaults). */
  config?: string;
  /** Don't start the cluster (a test starts it itself). */
  noStart?: boolean;
}

export const FINAL_JOB_STATES: string[] = JOB_STATES.filter(isFinalJobState);

/** One private cluster for a test file: temp IRIS_HOME, temp cwd with the config. */
export class E2ECluster {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly client: SocketClient;
  readonly socket: string;

  private constructor(root: string) {
    this.root = root;
    this.home = path.join(root, 'home');
    this.cwd = path.join(root, 'work');
    mkdirSync(this.cwd, { recursive: true });
    this.env = { IRIS_HOME: this.home };
    this.socket = path.join(this.home, 'run', 'iris.sock');
    this.client = new SocketClient({ socketPath: this.socket, env: {} });
  }

  static async create(opts: ClusterOptions = {}): Promise<E2ECluster> {
    assertBuilt();
    const root = mkdtempSync(path.join(tmpdir(), 'iris-e2e-'));
    // Searchable by others (mkdtemp makes it 0700): a container job submitted from the work
    // directory gets it mounted, and the container's user (65534 when root runs the tests) must
    // be able to read it, else the submit is refused. The state directory below stays 0700.
    chmodSync(root, 0o755);
    const cluster = new E2ECluster(root);
    // never group-writable (config trust)
    if (opts.config !== undefined) writeFileSync(path.join(cluster.cwd, '.irisrc.yaml'), opts.config, { mode: 0o644 });
    if (!opts.noStart) await cluster.start();
    return cluster;
  }

  async start(): Promise<RunResult> {
    const r = await this.iris(['cluster', 'start', '--detach'], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`cluster start failed: ${describeRun(['cluster', 'start', '--detach'], r)}`);
    return r;
  }

  /** Run iris against this cluster (cwd = the cluster's work dir unless given). */
  iris(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    return runIris(args, { ...opts, cwd: opts.cwd ?? this.cwd, env: { ...this.env, ...opts.env } });
  }

  /** Run `iris ARGS --json`, require exit 0 and parse stdout. */
  async json<T>(args: readonly string[], opts: RunOptions = {}): Promise<T> {
    const full = withJson(args);
    const r = await this.iris(full, opts);
    if (r.code !== 0) throw new Error(describeRun(full, r));
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      throw new Error(`not JSON: ${describeRun(full, r)}`);
    }
  }

  /** `iris submit` with the given flags and command; returns the job name printed (canonical). */
  async submit(flags: readonly string[], command: readonly string[]): Promise<string> {
    const args = ['submit', ...flags, '--', ...command];
    const r = await this.iris(args);
    if (r.code !== 0) throw new Error(describeRun(args, r));
    const match = /(\/[A-Za-z0-9_.\-/]+)/.exec(r.stdout);
    if (!match) throw new Error(`no job name printed: ${describeRun(args, r)}`);
    return match[1]!;
  }

  pid(): number | null {
    const file = path.join(this.home, 'cluster.pid');
    if (!existsSync(file)) return null;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  job(name: string): Promise<JobDetail> {
    return this.client.job(name);
  }

  jobs(): Promise<JobSummary[]> {
    return this.client.jobs();
  }

  async logs(target: string, extra: { attempt?: number } = {}): Promise<LogLine[]> {
    const out: LogLine[] = [];
    for await (const line of this.client.logs({ target, ...extra })) out.push(line);
    return out;
  }

  waitForJob(
    name: string,
    ok: (job: JobDetail) => boolean,
    what = 'condition',
    opts: WaitOptions = {},
  ): Promise<JobDetail> {
    return waitUntil(`job ${name}: ${what}`, () => this.job(name), ok, { ...opts, client: this.client });
  }

  waitForState(name: string, states: string | string[], opts: WaitOptions = {}): Promise<JobDetail> {
    const wanted = Array.isArray(states) ? states : [states];
    return this.waitForJob(name, (j) => wanted.includes(j.state), `state in ${wanted.join('|')}`, opts);
  }

  waitForEnd(name: string, opts: WaitOptions = {}): Promise<JobDetail> {
    return this.waitForState(name, FINAL_JOB_STATES, opts);
  }

  waitForTask(
    name: string,
    index: number,
    ok: (task: TaskInfo) => boolean,
    what = 'condition',
    opts: WaitOptions = {},
  ): Promise<TaskInfo> {
    return waitUntil(
      `task ${name}/task-${index}: ${what}`,
      async () => (await this.job(name)).taskList.find((t) => t.index === index)!,
      (t) => t !== undefined && ok(t),
      { ...opts, client: this.client },
    );
  }

  /** Await a log line of `target` containing `text`. */
  async waitForLog(target: string, text: string, opts: WaitOptions = {}): Promise<LogLine[]> {
    return waitUntil(
      `log of ${target} containing ${JSON.stringify(text)}`,
      () => this.logs(target),
      (lines) => lines.some((l) => l.text.includes(text)),
      {
        ...opts,
        client: this.client,
      },
    );
  }

  /** Write an executable shell script into the work dir; returns its absolute path. */
  script(name: string, body: string): string {
    const file = path.join(this.cwd, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  }

  /**
   * A gate a task can wait on: `hold` is a shell snippet that returns once `open()` was called
   * (the task polls for a file; the test itself never sleeps).
   */
  gate(name: string): { path: string; hold: string; open: () => void } {
    const file = path.join(this.cwd, `gate-${name}`);
    return {
      path: file,
      hold: `while [ ! -f '${file}' ]; do sleep 0.05; done`,
      open: () => writeFileSync(file, 'open\n'),
    };
  }

  async stop(): Promise<void> {
    const pid = this.pid();
    try {
      if (existsSync(this.socket)) await this.iris(['cluster', 'stop'], { timeoutMs: 30_000 });
    } catch {
      // fall through to the kill
    }
    if (pid !== null && isRunning(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * The cluster of the enclosing describe block (or file): created in a beforeAll with `options`
 * (the `.irisrc.yaml` text, or ClusterOptions) and disposed in an afterAll. What it returns
 * stands for that cluster: tests and later hooks use it as the cluster itself (a beforeAll the
 * file adds runs after the cluster exists; an afterAll it adds runs before it is disposed).
 */
export function withCluster(options: string | ClusterOptions = {}, timeoutMs?: number): E2ECluster {
  let cluster: E2ECluster | undefined;
  beforeAll(async () => {
    cluster = await E2ECluster.create(typeof options === 'string' ? { config: options } : options);
  }, timeoutMs);
  afterAll(async () => {
    await cluster?.dispose();
  });
  return new Proxy({} as E2ECluster, {
    get(_, key) {
      if (!cluster) throw new Error(`withCluster: no cluster (its beforeAll did not make one): ${String(key)}`);
      const value: unknown = Reflect.get(cluster, key, cluster);
      return typeof value === 'function' ? value.bind(cluster) : value;
    },
  });
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** SIGKILL every process whose command line contains `marker` (teardown of tasks a test left behind). */
export function killMarked(marker: string): void {
  for (const pid of pidsWithMarker(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Pids of processes whose command line contains `marker` (from /proc). */
export function pidsWithMarker(marker: string): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && cmdline.includes(marker)) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Live controller processes (`cluster start`, foreground or `--foreground`) whose IRIS_HOME is `home`. */
export function controllersOf(home: string): number[] {
  return pidsWithMarker('cluster start').filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`IRIS_HOME=${home}`);
    } catch {
      return false;
    }
  });
}

/** SIGKILL each of `pids` (those already gone are skipped). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** A unique marker for process command lines and log lines. */
export function marker(prefix: string): string {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The tasks of a job keyed by index. */
export function byIndex(job: JobDetail): TaskInfo[] {
  return [...job.taskList].sort((a, b) => a.index - b.index);
}

/** Parse `KEY=VALUE` lines (e.g. `env` output) into a map. */
export function parseEnvLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const cut = line.indexOf('=');
    if (cut > 0) out[line.slice(0, cut).trim()] = line.slice(cut + 1);
  }
  return out;
}
