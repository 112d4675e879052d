#!/usr/bin/env node
// Generate oclif.manifest.json from the compiled commands in dist/ (no `oclif` dev CLI needed).
//   node scripts/manifest.js          write oclif.manifest.json
//   node scripts/manifest.js --check  exit 1 when the committed file differs from a fresh one
// --check compares with the version committed at git HEAD (the working file is rewritten by
// `npm run build`, which `npm ci` runs through `prepare`); outside a git checkout it compares
// with the file on disk.
// Run `npm run build` (or `tsc -p tsconfig.build.json`) first: the manifest is read from dist/.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin, settings } from '@oclif/core';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const file = join(root, 'oclif.manifest.json');
const check = process.argv.includes('--check');

/**
 * Stable JSON: object keys sorted, so the file does not churn with module load order — except
 * the keys of a command's `args`, whose order is the positional order oclif prints in USAGE
 * (sorting them showed `endpoints register ADDRESS NAME` for `register NAME ADDRESS`).
 */
function sortKeys(value, keepOrder = false) {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value && typeof value === 'object') {
    const keys = keepOrder ? Object.keys(value) : Object.keys(value).sort();
    return Object.fromEntries(keys.map((key) => [key, sortKeys(value[key], key === 'args')]));
  }
  return value;
}

async function freshManifest() {
  settings.enableAutoTranspile = false;
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true });
  await plugin.load();
  if (Object.keys(plugin.manifest.commands).length === 0) {
    throw new Error('no commands found in dist/commands; run `tsc -p tsconfig.build.json` first');
  }
  return JSON.stringify(sortKeys(plugin.manifest), null, 2) + '\n';
}

/** The manifest as committed at HEAD, or the file on disk when git or the commit is unavailable. */
async function committedManifest() {
  const inRepo = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' });
  if (inRepo.status === 0 && inRepo.stdout.trim() === 'true') {
    const shown = spawnSync('git', ['show', 'HEAD:oclif.manifest.json'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (shown.status === 0) return { text: shown.stdout, where: 'git HEAD' };
    return { text: null, where: 'git HEAD' };
  }
  try {
    return { text: await readFile(file, 'utf8'), where: file };
  } catch {
    return { text: null, where: file };
  }
}

const fresh = await freshManifest();
if (check) {
  const { text: committed, where } = await committedManifest();
  if (committed === null) {
    console.error(`oclif.manifest.json is missing from ${where}; run \`npm run build\` and commit it`);
    process.exit(1);
  }
  // Compared exactly, version included: oclif ignores (and warns about) a manifest whose version
  // differs from package.json, so a version bump without a rebuild is stale too.
  if (committed !== fresh) {
    console.error(
      `oclif.manifest.json (${where}) is stale: commands, flags or the version changed since it was generated.`,
    );
    console.error('Run `npm run build` and commit oclif.manifest.json.');
    process.exit(1);
  }
  console.log('oclif.manifest.json is up to date');
} else {
  await writeFile(file, fresh);
  console.log(`wrote ${file} (${Object.keys(JSON.parse(fresh).commands).length} commands)`);
}
