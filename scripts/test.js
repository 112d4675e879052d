#!/usr/bin/env node
// `npm test`: build, check the committed oclif manifest is fresh, run vitest, then print the
// plain `N passed, N failed` line CI reads. The exit code is vitest's (or the build's).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

if (run(bin('tsc'), ['-p', 'tsconfig.build.json']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (run(process.execPath, ['scripts/manifest.js', '--check']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const results = path.join(root, '.vitest-results.json');
rmSync(results, { force: true });
const status = run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)]);
if (existsSync(results)) {
  const report = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
} else {
  console.log('0 passed, 1 failed');
}
process.exit(status);
