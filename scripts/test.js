#!/usr/bin/env node
// `npm test`: build, check the committed oclif manifest is fresh, bundle oclif into dist/oclif.js
// (scripts/bundle.js), run vitest, then print the plain `N passed, N failed` line CI reads.
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
// The Docker tests need an engine and the local test images (scripts/docker-setup.sh). Under CI
// they must run, so a setup failure fails the run; elsewhere they are skipped with one line.
const vitestEnv = { ...process.env };
const setup = spawnSync('bash', [path.join(root, 'scripts', 'docker-setup.sh')], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
const setupMessage = (setup.stderr ?? '').trim() || (setup.error ? String(setup.error.message) : `exit ${setup.status}`);
if (setup.status === 0) {
  vitestEnv.IRIS_TEST_DOCKER = '1';
} else if (process.env.CI) {
  console.error(setupMessage);
  console.log('0 passed, 1 failed');
  process.exit(1);
} else {
  console.log(`Docker tests will be skipped: ${setupMessage.split('\n').pop().replace(/^docker-setup: /, '')}`);
}
// The terminal test of `iris watch` needs tmux (scripts/tmux-setup.sh installs it as root).
// Under CI a missing tmux fails the run; elsewhere that test is skipped with one line.
const tmux = spawnSync('bash', [path.join(root, 'scripts', 'tmux-setup.sh')], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
if (tmux.status === 0) {
  vitestEnv.IRIS_TEST_TMUX = '1';
} else if (process.env.CI) {
  console.error((tmux.stderr ?? '').trim() || `tmux-setup: exit ${tmux.status}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
} else {
  console.log(`The tmux test of iris watch will be skipped: ${(tmux.stderr ?? '').trim().replace(/^tmux-setup: /, '')}`);
}
const results = path.join(root, '.vitest-results.json');
rmSync(results, { force: true });
const status = run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)], vitestEnv);
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
} else {
  console.log('0 passed, 1 failed');
}
process.exit(status);
