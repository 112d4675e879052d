#!/usr/bin/env node
// Bundle oclif for a faster CLI start (run by `npm run build` and `npm test` after tsc).
//   node scripts/bundle.js
// tsc compiles src/oclif.ts to dist/oclif.js, a module of re-exports from @oclif/core. This script
// replaces that file with one ES module holding the same exports and every module of @oclif/core
// (and its dependencies) they reach: a CLI start then reads and compiles one file instead of
// ~100 (docs/architecture.md, "Starting a command"; docs/benchmarks.md, "CLI start").
// Guarantees:
//   - the exports of dist/oclif.js are unchanged (the script fails when one is missing);
//   - the bundle is one file: oclif's own lazy imports are inlined, and require() calls it makes
//     at run time (of a command file, a plugin) resolve from dist/, as they did from node_modules;
//   - running it twice is harmless: an already bundled dist/oclif.js is left alone;
//   - without this step (a plain `tsc` build) dist/oclif.js stays the re-exports and iris works
//     the same, only slower to start.
// typescript and ts-node stay outside: oclif loads them only to run commands from .ts sources,
// which bin/run.js turns off (settings.enableAutoTranspile = false).
// Node's built-in modules stay outside the bundle; the ES-module imports of them that rolldown
// writes at the top of the bundle (for the ES-module packages oclif uses, e.g. wsl-utils) become
// `process.getBuiltinModule(…)` constants (builtinImportsToConstants): an ESM import of a builtin
// reads every export, and the lazy ones of node:fs, node:util and node:process then load streams,
// worker_threads, util's diff and more (~4 ms at every start).
// One change to oclif's code on the way (SORT_PATCH): a plugin's commands are sorted by
// `a.id.localeCompare(b.id)`, and the first localeCompare of a process builds ICU's collator,
// ~7 ms of CPU at every start. Ids made only of a-z, `:` and `-` (all of iris's and its
// plugins') are compared by code unit instead, which gives the same order as the collator for
// those characters (`-` < `:` < letters, a prefix first); any other id still goes through
// localeCompare. When oclif's line changes, the bundle is built without the change and the script
// says so.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const target = join(root, 'dist', 'oclif.js');
const MARK = '// iris: bundled by scripts/bundle.js\n';
const EXPORTS = ['Args', 'Command', 'Errors', 'Flags', 'execute', 'loadHelpClass', 'settings', 'toConfiguredId', 'ux'];

function fail(message, hint) {
  process.stderr.write(`Error: ${message}\n${hint ? `Hint: ${hint}\n` : ''}`);
  process.exit(1);
}

let source;
try {
  source = await readFile(target, 'utf8');
} catch {
  fail(`${target} is missing`, 'run `tsc -p tsconfig.build.json` first');
}
if (source.startsWith(MARK)) {
  console.log(`${target} is already bundled`);
  process.exit(0);
}

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (error) {
  fail(`cannot load the bundler (rolldown): ${error.message}`, 'run `npm ci` to install the devDependencies');
}

const SORT_FILE = /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/;
const SORT_FROM = '.sort((a, b) => a.id.localeCompare(b.id));';
const SORT_TO =
  '.sort((a, b) => (/^[a-z:-]*$/.test(a.id) && /^[a-z:-]*$/.test(b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : ' +
  'a.id.localeCompare(b.id)));';
let sortPatched = false;
const SORT_PATCH = {
  name: 'iris-command-sort',
  transform(code, id) {
    if (!SORT_FILE.test(id)) return null;
    if (!code.includes(SORT_FROM)) return null;
    sortPatched = true;
    return { code: code.replace(SORT_FROM, SORT_TO), map: null };
  },
};

/**
 * `import a from "node:x";`, `import { b, c as d } from "node:x";` and `import a, { b } from
 * "node:x";` lines -> `const … = process.getBuiltinModule("node:x");`. Rolldown writes them first in
 * the file, before any code that uses them. Fails on a form of import of a builtin it does not know.
 */
function builtinImportsToConstants(code) {
  const IMPORT = /^import\s+(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}\s*)?from\s*"(node:[\w/]+)";$/gm;
  const converted = code.replace(IMPORT, (_, name, named, id) => {
    const module = `globalThis.process.getBuiltinModule(${JSON.stringify(id)})`;
    const lines = [];
    if (name) lines.push(`const ${name} = ${module};`);
    if (named) {
      const parts = named
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => part.replace(/^([\w$]+)\s+as\s+([\w$]+)$/, '$1: $2'));
      lines.push(`const { ${parts.join(', ')} } = ${name ?? module};`);
    }
    return lines.join(' ');
  });
  const left = /^import\b.*from\s*["']node:[^"']+["'];?$/m.exec(converted);
  if (left)
    fail(`scripts/bundle.js cannot rewrite this import of a builtin: ${left[0]}`, 'extend builtinImportsToConstants');
  return converted;
}

const out = join(root, 'dist', '.oclif-bundle');
await rm(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: target,
  platform: 'node',
  external: [/^typescript(\/|$)/, /^ts-node(\/|$)/],
  logLevel: 'warn',
  plugins: [SORT_PATCH],
});
await bundle.write({
  dir: out,
  format: 'esm',
  codeSplitting: false,
  entryFileNames: 'oclif.js',
  banner: MARK.trimEnd(),
});
await bundle.close();

const bundled = join(out, 'oclif.js');
const text = builtinImportsToConstants(await readFile(bundled, 'utf8'));
const exported = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(text)?.[1] ?? '';
const names = new Set(
  exported.split(',').map((part) =>
    part
      .trim()
      .split(/\s+as\s+/)
      .pop(),
  ),
);
const missing = EXPORTS.filter((name) => !names.has(name));
if (missing.length > 0)
  fail(
    `the bundle of ${target} lacks the exports ${missing.join(', ')}`,
    'keep EXPORTS in scripts/bundle.js and src/oclif.ts in step',
  );

await writeFile(target, text);
// The source map tsc wrote describes the re-export module, not the bundle.
await rm(`${target}.map`, { force: true });
await rm(out, { recursive: true, force: true });
console.log(`bundled @oclif/core into ${target} (${Math.round(text.length / 1024)} KiB)`);
if (!sortPatched) {
  process.stderr.write(
    `Warning: oclif's command sort (${SORT_FROM}) was not found in @oclif/core/lib/config/plugin.js; ` +
      'the bundle sorts with localeCompare (same output, ~7 ms more per start). Update SORT_FROM in ' +
      'scripts/bundle.js.\n',
  );
}
