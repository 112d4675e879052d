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
 *   `describe.skip`, and the run prints ONE line (from the kube project's global setup,
 *   test/kube/global-setup.ts; a file run outside that project prints it itself):
 *   "kubernetes tests skipped: run `scripts/k8s-setup.sh build` (~8 min) to enable".
 * - `startKubeServer({ withKubelet: true })` also runs the real kubelet as one Node
 *   (`start --with-kubelet`: root, `scripts/k8s-setup.sh kubelet` built) and returns its Node name
 *   and the DOCKER_HOST of its private engine. `describeKubelet` is like `describeKube` for
 *   suites that need it: under CI=true a missing kubelet build or a non-root run fails; elsewhere
 *   the suite is skipped with one line of its own (KUBELET_SKIP_LINE, the reason appended).
 * - Nothing here builds the server: outside `npm test` under CI (scripts/test.js) no build
 *   happens implicitly.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, inject, it } from 'vitest';
import { inCI, KUBE_SKIP_LINE, kubeBuilt, kubeCache, kubeletBuilt, repoRoot } from './built.js';

export { inCI, kubeBuilt, kubeCache, kubeletBuilt, KUBE_SKIP_LINE } from './built.js';

export const KUBELET_SKIP_LINE =
  'kubelet test skipped: run `scripts/k8s-setup.sh kubelet` (~5 CPU-min, once) and the tests as root to enable';

const setupScript = path.join(repoRoot, 'scripts', 'k8s-setup.sh');

export interface KubeServer {
  /** Path of a kubeconfig (context iris-test, namespace default, bearer token, TLS unchecked). */
  kubeconfig: string;
  /** The server's state dir (logs: kube-apiserver.log, etcd.log, kube-scheduler.log). */
  dir: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** With `withKubelet`: the real kubelet's Node name (default iris-kubelet). */
  kubeletNode?: string;
  /** With `withKubelet`: DOCKER_HOST of the kubelet's private engine (its pod containers). */
  kubeletDockerHost?: string;
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

function runScript(
  args: string[],
  dir: string,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [setupScript, ...args],
      { env: scriptEnv(dir), timeout: timeoutMs, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr || (error && !stderr ? String(error.message) : '') });
      },
    );
  });
}

/**
 * Starts etcd + kube-apiserver (and kube-scheduler with `withScheduler`, the real kubelet as one
 * Node with `withKubelet`) in a fresh state dir.
 */
export async function startKubeServer(
  opts: { withScheduler?: boolean; withKubelet?: boolean } = {},
): Promise<KubeServer> {
  if (!kubeBuilt()) {
    throw new Error(
      `the kubernetes API server is not built in ${kubeCache()}: run \`scripts/k8s-setup.sh build\` (~8 min, once)`,
    );
  }
  if (opts.withKubelet && !kubeletBuilt()) {
    throw new Error(
      `the kubelet is not built in ${kubeCache()}: run \`scripts/k8s-setup.sh kubelet\` (~5 CPU-min, once)`,
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-k8s-'));
  installExitHook();
  running.add(dir);
  const args = [
    'start',
    ...(opts.withScheduler ? ['--with-scheduler'] : []),
    ...(opts.withKubelet ? ['--with-kubelet'] : []),
  ];
  const waitSeconds = Number(process.env.IRIS_K8S_WAIT_SECONDS || 60);
  // the kubelet waits (up to the same bound) for its engine and then for its Node to be Ready
  const started = await runScript(args, dir, (waitSeconds * (opts.withKubelet ? 2 : 1) + 60) * 1000);
  if (started.code !== 0) {
    const logs = ['kube-apiserver.log', 'etcd.log', 'kube-scheduler.log', 'dockerd.log', 'kubelet.log']
      .map((name) => {
        try {
          return (
            `--- ${name} (last lines)\n` +
            `${readFileSync(path.join(dir, name), 'utf8').split('\n').slice(-15).join('\n')}`
          );
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
  const kubelet = opts.withKubelet
    ? {
        kubeletNode: readFileSync(path.join(dir, 'kubelet.node'), 'utf8').trim(),
        kubeletDockerHost: readFileSync(path.join(dir, 'kubelet.docker-host'), 'utf8').trim(),
      }
    : {};
  let stopped = false;
  return {
    kubeconfig,
    dir,
    server: `https://127.0.0.1:${port}`,
    ...kubelet,
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

/** Prints the skip line unless the kube project's global setup printed it for the whole run. */
function noteSkip(): void {
  if ((inject as (key: string) => unknown)('kubeSkipNoted') === true) return;
  console.log(KUBE_SKIP_LINE);
}

function chooseDescribe(): typeof describe {
  if (kubeBuilt()) return describe;
  if (inCI()) {
    const failing = (name: string) =>
      describe(name, () => {
        it('needs the kubernetes API server (CI=true)', () => {
          throw new Error(
            `CI=true but the kubernetes API server is not built in ${kubeCache()}: run \`scripts/k8s-setup.sh ` +
              `build\` (npm test does this under CI)`,
          );
        });
      });
    return failing as unknown as typeof describe;
  }
  noteSkip();
  return describe.skip as unknown as typeof describe;
}

/**
 * `describe` for suites that need the API server; call it as `describeKube(name, fn)`.
 * Skipped with one line when the server is not built; failing under CI=true.
 */
export const describeKube: typeof describe = chooseDescribe();

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function chooseKubeletDescribe(): typeof describe {
  if (!kubeBuilt()) return describeKube;
  const missing = !kubeletBuilt()
    ? `the kubelet is not built in ${kubeCache()}`
    : !isRoot()
      ? 'the kubelet and its Docker engine need root'
      : null;
  if (missing === null) return describe;
  if (inCI()) {
    const failing = (name: string) =>
      describe(name, () => {
        it('needs the real kubelet (CI=true)', () => {
          throw new Error(
            `CI=true but ${missing}: run \`scripts/k8s-setup.sh kubelet\` (npm test does this under CI) and the ` +
              `tests as root`,
          );
        });
      });
    return failing as unknown as typeof describe;
  }
  console.log(`${KUBELET_SKIP_LINE} (${missing})`);
  return describe.skip as unknown as typeof describe;
}

/**
 * `describe` for suites that need the real kubelet (`startKubeServer({ withKubelet: true })`):
 * as `describeKube` when the API server is not built; otherwise skipped with one line when the
 * kubelet is not built or the run is not root, failing under CI=true.
 */
export const describeKubelet: typeof describe = chooseKubeletDescribe();
