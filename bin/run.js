#!/usr/bin/env node
// iris entry point (the package's bin is bin/iris, a sh launcher that starts this file on the
// pinned Node 24 directly; this file is also run directly, e.g. `./bin/run.js` or the task shim).
// On a Node older than 22 (e.g. a system Node 20), re-run this script with the
// Node 24 pinned as a devDependency (node_modules/.bin/node): stdio is inherited, SIGINT/SIGTERM/
// SIGHUP sent to this process are forwarded, and the child's exit code or signal is passed on.
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;
const major = Number(process.versions.node.split('.')[0]);

if (major < MIN_MAJOR) {
  // Loaded on this path only: a start on Node >= 22 does not need them.
  const require = module.createRequire(import.meta.url);
  const { spawn } = require('node:child_process');
  const { existsSync } = require('node:fs');
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const pinned = join(root, 'node_modules', '.bin', 'node');
  if (!existsSync(pinned)) {
    process.stderr.write(
      `Error: iris needs Node >= ${MIN_MAJOR} (this is ${process.version}).\n` +
        `Hint: run \`npm ci\` in ${root} to install the pinned Node 24, or put Node >= ${MIN_MAJOR} on PATH.\n`,
    );
    process.exit(6);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => {
    try {
      child.kill(signal);
    } catch {
      // the child is already gone
    }
  };
  for (const signal of forwarded) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`Error: could not start ${pinned}: ${error.message}\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => {
    for (const name of forwarded) process.removeListener(name, forward);
    if (signal) {
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + 1), 100);
    } else {
      process.exit(code ?? 70);
    }
  });
} else {
  // Cache compiled code between runs (tasks start `iris` often): in this package's own
  // node_modules, never a shared temp directory. Best effort: without it iris only starts slower.
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  try {
    module.enableCompileCache?.(join(root, 'node_modules', '.cache', 'iris-compile'));
  } catch {
    // not writable or not supported: run without the cache
  }
  // No top-level await: a process.exit() from oclif (e.g. EPIPE when piped to `head`) would
  // otherwise print a "Detected unsettled top-level await" warning.
  // oclif through dist/oclif.js (src/oclif.ts), the module every command takes it from: one
  // copy of oclif per process, and after `npm run build` one bundled file instead of ~100
  // modules of @oclif/core (scripts/bundle.js). Not the package index, which also loads semver
  // for an engines warning iris does not need.
  import('../dist/oclif.js')
    .catch((error) => {
      // A checkout that was never built: say so instead of a module-loader stack trace.
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(join('dist', 'oclif.js')))
        throw error;
      process.stderr.write(
        `Error: iris is not built: ${join(root, 'dist', 'oclif.js')} is missing.\nHint: run \`npm run build\` (or ` +
          `\`npm ci\`) in ${root}.\n`,
      );
      process.exit(6);
    })
    .then(({ execute, settings }) => {
      // Always run the compiled commands in dist/, even under NODE_ENV=test or development.
      settings.enableAutoTranspile = false;
      // oclif's completion plugin costs every start ~20 ms to load, so it is added only where it
      // serves: `iris autocomplete …`, and `iris help` and the root help, which list it. (`iris help`
      // itself is iris's own command, src/commands/help.ts, over oclif's help formatter.)
      const first = process.argv[2];
      const withPlugins =
        first === undefined ||
        first === 'help' ||
        first.startsWith('autocomplete') ||
        first === '--help' ||
        first === '-h';
      // The plugin imports '@oclif/core': hand it dist/oclif.js, the copy already loaded, rather
      // than the ~100 modules of @oclif/core in node_modules (src/oclif.ts exports what it uses:
      // Args, Command, Flags, loadHelpClass, ux).
      if (withPlugins && module.registerHooks) {
        const oclifUrl = new URL('../dist/oclif.js', import.meta.url).href;
        module.registerHooks({
          resolve: (specifier, context, nextResolve) =>
            specifier === '@oclif/core' && /\/@oclif\/plugin-autocomplete\//.test(context.parentURL ?? '')
              ? { url: oclifUrl, shortCircuit: true }
              : nextResolve(specifier, context),
        });
      }
      // The package root and its package.json given to oclif, which otherwise walks up from this
      // file to find them (~3 ms). The same file oclif would read; oclif takes its `oclif` section.
      const pjson = JSON.parse(process.getBuiltinModule('node:fs').readFileSync(join(root, 'package.json'), 'utf8'));
      const loadOptions = {
        root,
        pjson,
        ...(withPlugins ? { pluginAdditions: { core: ['@oclif/plugin-autocomplete'] } } : {}),
      };
      return execute({ dir: import.meta.url, loadOptions });
    });
}
