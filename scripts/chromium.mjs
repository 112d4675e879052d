// Which chromium the browser tests and the dashboard bench drive, and how they start it: one home
// for both (test/browser/browser.ts, bench/dashboard.mjs).
// Guarantees:
//   - chromiumPath() is the first of IRIS_TEST_CHROMIUM (npm test sets it to what
//     scripts/chromium-setup.sh printed), IRIS_CHROMIUM that names a file, then `chromium` on PATH;
//     null when there is none;
//   - CHROMIUM_FLAGS keep chromium off the network it cannot reach here (no background networking,
//     component updates, sync or QUIC), without the sandbox (root in CI) and without /dev/shm.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function chromiumPath(env = process.env) {
  for (const candidate of [env.IRIS_TEST_CHROMIUM, env.IRIS_CHROMIUM]) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  const which = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found || null;
}
