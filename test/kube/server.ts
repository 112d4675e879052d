/**
 * A real Kubernetes API server (1.20, etcd 3.4) on loopback for tests, started and stopped
 * through scripts/k8s-setup.sh.
 *
 * Guarantees:
 * - Each `startKubeServer()` gets a fresh state dir (IRIS_K8S_DIR) of its own, so servers of
 *   several test files run side by side; the build cache is IRIS_K8S_CACHE (default: the repo's
 *   .cache/k8s). `stop()` stops every process of that server and removes its state dir; it is
 *   safe to call twice. A server still running when the test process exits is stopped then.
 * - `describeKube` is vitest's `describe` when the server is built. When it is not: under
 *   CI=true the suite is kept and fails with one test saying how to build it; elsewhere it is
 *   `describe.skip`, and the run prints ONE line (the first file to notice prints it):
 *   "kubernetes tests skipped: run `scripts/k8s-setup.sh build` (~8 min) to enable".
 * - Nothing here builds the server: outside `npm test` under CI (scripts/test.js) no build
 *   happens implicitly.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const setupScript = path.join(repoRoot, 'scripts', 'k8s-setup.sh');

export const KUBE_SKIP_LINE = 'kubernetes tests skipped: run `scripts/k8s-setup.sh build` (~8 min) to enable';

/** The build cache the tests use: IRIS_K8S_CACHE, or the repo's .cache/k8s. */
export function kubeCache(): string {
  return process.env.IRIS_K8S_CACHE || path.join(repoRoot, '.cache', 'k8s');
}

/** True under CI=true (any CI value but '', 'false' and '0'), where the kubernetes tests must run. */
export function inCI(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

let builtMemo: boolean | undefined;

/** Whether the cache holds a complete build of the current recipe (the script's own check). */
export function kubeBuilt(): boolean {
  if (builtMemo !== undefined) return builtMemo;
  // status --json on a state dir that does not exist: only the "built" field is of interest
  const probe = spawnSync('bash', [setupScript, 'status', '--json'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, IRIS_K8S_CACHE: kubeCache(), IRIS_K8S_DIR: path.join(os.tmpdir(), `iris-k8s-none-${process.pid}`) },
  });
  try {
    builtMemo = (JSON.parse(probe.stdout.trim().split('\n').pop() ?? '{}') as { built?: boolean }).built === true;
  } catch {
    builtMemo = false;
  }
  return builtMemo;
}

export interface KubeServer {
  /** Path of a kubeconfig (context iris-test, namespace default, bearer token, TLS unchecked). */
  kubeconfig: string;
  /** The server's state dir (logs: kube-apiserver.log, etcd.log, kube-scheduler.log). */
  dir: string;
  /** https://127.0.0.1:PORT */
  server: string;
  stop(): Promise<void>;
}

const running = new Set<string>();
let exitHookInstalled = false;

function scriptEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, IRIS_K8S_CACHE: kubeCache(), IRIS_K8S_DIR: dir };
}

function stopSync(dir: string): void {
  spawnSync('bash', [setupScript, 'stop'], { env: scriptEnv(dir), stdio: 'ignore', timeout: 30_000 });
  rmSync(dir, { recursive: true, force: true });
  running.delete(dir);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // the servers run in sessions of their own (setsid): a test process that ends without calling
  // stop() must not leave them behind
  process.on('exit', () => {
    for (const dir of [...running]) stopSync(dir);
  });
}

function runScript(args: string[], dir: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [setupScript, ...args], { env: scriptEnv(dir), timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (error && !stderr ? String(error.message) : '') });
    });
  });
}

/** Starts etcd + kube-apiserver (and kube-scheduler with `withScheduler`) in a fresh state dir. */
export async function startKubeServer(opts: { withScheduler?: boolean } = {}): Promise<KubeServer> {
  if (!kubeBuilt()) {
    throw new Error(`the kubernetes API server is not built in ${kubeCache()}: run \`scripts/k8s-setup.sh build\` (~8 min, once)`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-k8s-'));
  installExitHook();
  running.add(dir);
  const args = ['start', ...(opts.withScheduler ? ['--with-scheduler'] : [])];
  const waitSeconds = Number(process.env.IRIS_K8S_WAIT_SECONDS || 60);
  const started = await runScript(args, dir, (waitSeconds + 60) * 1000);
  if (started.code !== 0) {
    const logs = ['kube-apiserver.log', 'etcd.log', 'kube-scheduler.log']
      .map((name) => {
        try {
          return `--- ${name} (last lines)\n${readFileSync(path.join(dir, name), 'utf8').split('\n').slice(-15).join('\n')}`;
        } catch {
          return '';
        }
      })
      .join('\n');
    stopSync(dir);
    throw new Error(`scripts/k8s-setup.sh start failed (exit ${started.code}): ${started.stderr.trim()}\n${logs}`);
  }
  const kubeconfig = started.stdout.trim().split('\n').pop() ?? '';
  const port = readFileSync(path.join(dir, 'apiserver.port'), 'utf8').trim();
  let stopped = false;
  return {
    kubeconfig,
    dir,
    server: `https://127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      const result = await runScript(['stop'], dir, 60_000);
      if (result.code !== 0) {
        stopSync(dir);
        throw new Error(`scripts/k8s-setup.sh stop failed (exit ${result.code}): ${result.stderr.trim()}`);
      }
      rmSync(dir, { recursive: true, force: true });
      running.delete(dir);
    },
  };
}

/** Prints the skip line once per test run (the vitest main process is every worker's parent). */
function noteSkipOnce(): void {
  const marker = path.join(os.tmpdir(), `iris-kube-skip-noted-${process.ppid}`);
  try {
    writeFileSync(marker, String(Date.now()), { flag: 'wx' });
  } catch {
    return; // another file of this run printed it
  }
  console.log(KUBE_SKIP_LINE);
}

function chooseDescribe(): typeof describe {
  if (kubeBuilt()) return describe;
  if (inCI()) {
    const failing = (name: string) =>
      describe(name, () => {
        it('needs the kubernetes API server (CI=true)', () => {
          throw new Error(`CI=true but the kubernetes API server is not built in ${kubeCache()}: run \`scripts/k8s-setup.sh build\` (npm test does this under CI)`);
        });
      });
    return failing as unknown as typeof describe;
  }
  noteSkipOnce();
  return describe.skip as unknown as typeof describe;
}

/**
 * `describe` for suites that need the API server; call it as `describeKube(name, fn)`.
 * Skipped with one line when the server is not built; failing under CI=true.
 */
export const describeKube: typeof describe = chooseDescribe();
