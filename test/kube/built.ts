/**
 * Whether the test API server is built, without loading vitest (the kube project's global
 * setup and scripts use it too).
 *
 * Guarantees: `kubeBuilt()` asks scripts/k8s-setup.sh itself (`status --json`), so "built"
 * means what `start` needs (binaries of the current recipe); `kubeletBuilt()` likewise for
 * `start --with-kubelet` (bin/kubelet and bin/pause). Both answers are memoised per process.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

let statusMemo: { built?: boolean; kubeletBuilt?: boolean } | undefined;

function buildStatus(): { built?: boolean; kubeletBuilt?: boolean } {
  if (statusMemo !== undefined) return statusMemo;
  // status --json on a state dir that does not exist: only the "built" fields are of interest
  const probe = spawnSync('bash', [setupScript, 'status', '--json'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: {
      ...process.env,
      IRIS_K8S_CACHE: kubeCache(),
      IRIS_K8S_DIR: path.join(os.tmpdir(), `iris-k8s-none-${process.pid}`),
    },
  });
  try {
    statusMemo = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '{}') as {
      built?: boolean;
      kubeletBuilt?: boolean;
    };
  } catch {
    statusMemo = {};
  }
  return statusMemo;
}

/** Whether the cache holds a complete build of the current recipe (the script's own check). */
export function kubeBuilt(): boolean {
  return buildStatus().built === true;
}

/** Whether the cache also holds the real kubelet and the pause binary (`scripts/k8s-setup.sh kubelet`). */
export function kubeletBuilt(): boolean {
  return kubeBuilt() && buildStatus().kubeletBuilt === true;
}
