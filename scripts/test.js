#!/usr/bin/env node
// `npm test`: build, check the committed oclif manifest is fresh, bundle oclif into dist/oclif.js
// (scripts/bundle.js), build the dashboard's page into dist/web (scripts/web.js), run vitest, then print
// the plain `N passed, N failed` line CI reads.
// The exit code is vitest's (or the build's).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args, env = process.env) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env }).status ?? 1;

if (run(bin('tsc'), ['-p', 'tsconfig.build.json']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (run(process.execPath, ['scripts/manifest.js', '--check']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// The e2e tests run the CLI as `npm run build` makes it: oclif bundled into dist/oclif.js.
if (run(process.execPath, ['scripts/bundle.js']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// The dashboard's page (dist/web), served by `iris dashboard` and opened by the browser tests.
if (run(process.execPath, ['scripts/web.js']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// The Docker tests need an engine and the local test images (scripts/docker-setup.sh). Under CI
// they must run, so a setup failure fails the run; elsewhere they are skipped with one line.
const vitestEnv = { ...process.env };
const setup = spawnSync('bash', [path.join(root, 'scripts', 'docker-setup.sh')], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
});
const setupMessage =
  (setup.stderr ?? '').trim() || (setup.error ? String(setup.error.message) : `exit ${setup.status}`);
if (setup.status === 0) {
  vitestEnv.IRIS_TEST_DOCKER = '1';
} else if (process.env.CI) {
  console.error(setupMessage);
  console.log('0 passed, 1 failed');
  process.exit(1);
} else {
  console.log(
    `Docker tests will be skipped: ${setupMessage
      .split('\n')
      .pop()
      .replace(/^docker-setup: /, '')}`,
  );
}
// The terminal test of `iris watch` needs tmux (scripts/tmux-setup.sh installs it as root).
// Under CI a missing tmux fails the run; elsewhere that test is skipped with one line.
const tmux = spawnSync('bash', [path.join(root, 'scripts', 'tmux-setup.sh')], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
});
if (tmux.status === 0) {
  vitestEnv.IRIS_TEST_TMUX = '1';
} else if (process.env.CI) {
  console.error((tmux.stderr ?? '').trim() || `tmux-setup: exit ${tmux.status}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
} else {
  console.log(
    `The tmux test of iris watch will be skipped: ${(tmux.stderr ?? '').trim().replace(/^tmux-setup: /, '')}`,
  );
}
// The dashboard's browser tests (test/browser/) drive Debian's chromium through playwright-core
// (scripts/chromium-setup.sh installs it as root). Under CI a missing browser fails the run;
// elsewhere those tests are skipped with one line.
const chromium = spawnSync('bash', [path.join(root, 'scripts', 'chromium-setup.sh')], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (chromium.status === 0) {
  const lines = chromium.stdout.trim().split('\n');
  console.log(lines[0]);
  vitestEnv.IRIS_TEST_CHROMIUM = lines.at(-1);
} else if (process.env.CI) {
  console.error((chromium.stderr ?? '').trim() || `chromium-setup: exit ${chromium.status}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
} else {
  console.log(
    'The browser tests of the dashboard will be skipped: ' +
      (chromium.stderr ?? '').trim().replace(/^chromium-setup: /, ''),
  );
}
// The kubernetes tests (vitest project `kube`) need the API server that scripts/k8s-setup.sh
// builds into .cache/k8s (or IRIS_K8S_CACHE). Under CI they must run, so a missing build is made
// here, once per CI run (~7 min cold on a quiet 2-core VM; bounded at 40 min). Elsewhere nothing
// is built implicitly: those tests skip with one line.
const ci = process.env.CI !== undefined && !['', 'false', '0'].includes(process.env.CI);
if (ci) {
  const k8s = path.join(root, 'scripts', 'k8s-setup.sh');
  const probeEnv = { ...process.env, IRIS_K8S_DIR: path.join(root, '.cache', 'k8s-status-probe') };
  const probe = spawnSync('bash', [k8s, 'status', '--json'], { cwd: root, encoding: 'utf8', env: probeEnv });
  let built = false;
  let kubeletBuilt = false;
  try {
    const status = JSON.parse(probe.stdout.trim().split('\n').pop());
    built = status.built === true;
    kubeletBuilt = status.kubeletBuilt === true;
  } catch {
    built = false;
  }
  const hasTimeout = spawnSync('sh', ['-c', 'command -v timeout'], { stdio: 'ignore' }).status === 0;
  /**
   * Runs `k8s-setup.sh <command>` bounded at `boundSeconds`, announced and timed when `quiet` is
   * false; a failure ends this run as one failed test naming `what` and the `tests` that need it.
   */
  const buildStep = (command, boundSeconds, { what, tests, announce, quiet = false }) => {
    if (!quiet) console.log(announce);
    const started = Date.now();
    // timeout(1) signals the build's whole process group (make, go) when the bound is reached
    const build = hasTimeout
      ? spawnSync('timeout', ['-k', '30', String(boundSeconds), 'bash', k8s, command], {
          cwd: root,
          stdio: ['ignore', 'inherit', 'inherit'],
        })
      : spawnSync('bash', [k8s, command], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    const took = `${Math.round((Date.now() - started) / 1000)} s`;
    if (build.status !== 0) {
      console.error(
        `The ${what} build failed after ${took}` +
          `${build.status === 124 ? ` (over the ${boundSeconds / 60} min bound)` : ''}; ${tests} cannot run under CI.`,
      );
      console.log('0 passed, 1 failed');
      process.exit(1);
    }
    if (!quiet) console.log(`${what[0].toUpperCase()}${what.slice(1)} built in ${took}.`);
  };
  if (!built) {
    buildStep('build', 2400, {
      what: 'Kubernetes API server',
      tests: 'the kubernetes tests',
      announce:
        'Building the Kubernetes API server for the kubernetes tests (scripts/k8s-setup.sh build: ~7 min cold on a ' +
        'quiet 2-core VM, cached afterwards)...',
    });
  }
  // test/e2e/kubelet.kube.test.ts runs the backend on the real kubelet (root, given in CI): its
  // build (bin/kubelet + bin/pause, after the server's: ~5 CPU-minutes cold) is made here too when
  // missing; with both present the script only prints `cached`.
  buildStep('kubelet', 1800, {
    what: 'kubelet',
    tests: 'the kubelet test',
    announce:
      'Building the kubelet for the kubelet test (scripts/k8s-setup.sh kubelet: ~5 CPU-minutes cold, cached ' +
      'afterwards)...',
    quiet: kubeletBuilt,
  });
}
const results = path.join(root, '.vitest-results.json');
rmSync(results, { force: true });
const status = run(
  bin('vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  vitestEnv,
);
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(
    `${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`,
  );
} else {
  console.log('0 passed, 1 failed');
}
process.exit(status);
